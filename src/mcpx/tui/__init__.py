"""mcpx.tui (see DESIGN.md)."""
