"""The Check tab: mcpx check on the connected server, findings linked to their exchange."""
