"""The demo MCP server bundled with mcpx (`python -m mcpx.demo`, `mcpx demo`).

`core` is a small, generic MCP server on mcpx's own peer; the modules beside it fill it with tools
(tools.py, asking.py), resources (resources.py) and prompts (prompts.py) that together exercise every
client feature, and misbehave.py breaks rules on purpose.
"""
