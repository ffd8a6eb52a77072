"""mcpx.workspace (see DESIGN.md)."""
