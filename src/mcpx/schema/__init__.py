"""mcpx.schema (see DESIGN.md)."""
