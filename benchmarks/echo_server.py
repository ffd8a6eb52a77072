"""The fastest MCP server we can write in plain Python: the ceiling every stdio benchmark runs under.

Newline-delimited JSON on stdin/stdout, standard library only. It answers `initialize` (echoing a
handshake-era protocol version it knows), `ping`, `tools/list` (one tool, `echo`) and `tools/call`
`echo` (the `text` argument comes back as text content); notifications are ignored; anything else,
the modern `server/discover` probe included, gets -32601 as from a handshake-era server.

    python benchmarks/echo_server.py
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Any

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
TOOLS = {
    "tools": [
        {
            "name": "echo",
            "description": "Returns its text argument.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        }
    ]
}


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method = message.get("method")
    if "id" not in message or method is None:
        return None  # a notification, or a response to nothing we asked
    params = message.get("params") or {}
    if method == "tools/call":
        arguments = params.get("arguments") or {}
        if params.get("name") != "echo":
            return {"error": {"code": -32602, "message": f"unknown tool {params.get('name')!r}"}}
        text = arguments.get("text", "")
        return {"result": {"content": [{"type": "text", "text": text}], "isError": False}}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "result": {
                "protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "echo-server", "version": "1.0.0"},
            }
        }
    if method == "tools/list":
        return {"result": TOOLS}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


def main() -> None:
    readline = sys.stdin.buffer.readline
    loads, dumps, write = json.loads, json.dumps, os.write
    while True:
        line = readline()
        if not line:
            return
        try:
            message = loads(line)
        except ValueError:
            write(1, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n')
            continue
        if not isinstance(message, dict):
            continue
        reply = answer(message)
        if reply is None:
            continue
        reply["jsonrpc"] = "2.0"
        reply["id"] = message["id"]
        data = dumps(reply, separators=(",", ":")).encode() + b"\n"
        while data:  # os.write may write less than asked
            data = data[write(1, data) :]


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        main()
