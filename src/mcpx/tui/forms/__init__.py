"""Forms generated from JSON Schema (mcpx.schema's model): fields, groups, prompt and template arguments."""
