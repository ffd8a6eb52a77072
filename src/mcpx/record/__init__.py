"""mcpx.record (see DESIGN.md)."""
