"""mcpx.auth (see DESIGN.md)."""
