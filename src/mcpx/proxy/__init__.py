"""The proxy: relay a host's MCP session to a server, recorded, listed, watched live, exported.

`relay` (the stdio relay), `upstream` (the server's end: stdio or HTTP), `host` (our stdin/stdout),
`sessions` (the sessions folder). Built on the transports and the recorder; the CLI and the TUI use it.
"""
