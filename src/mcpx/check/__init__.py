"""mcpx.check (see DESIGN.md)."""
