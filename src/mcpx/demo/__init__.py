"""mcpx.demo (see DESIGN.md)."""
