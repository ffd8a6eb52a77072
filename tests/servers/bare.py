"""The smallest possible MCP server over stdio, for servers that misbehave on purpose.

No SDK: newline-delimited JSON read from stdin and written to stdout by hand, so a test server can
break exactly one rule and nothing else. `serve()` answers `initialize` like a 2025-11-25 server,
`tools/list` from the tools it is given, `ping` with `{}` and anything else (including the modern
`server/discover` probe) with -32601, as a legacy server does.

Environment knobs every server built on this understands (all optional):

- `MCPX_TEST_PIDFILE`: write the server's pid there at start.
- `MCPX_TEST_GRANDCHILD`: spawn a long-sleeping child process and write its pid there.
- `MCPX_TEST_SETSID`: spawn a long-sleeping child that leaves the process group with `setsid()` (a daemon:
  its stdio on /dev/null) and write its pid there.
- `MCPX_TEST_RECORD`: append every message received from the client to this file, one JSON per line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

PROTOCOL_VERSION = "2025-11-25"
Handler = Callable[[dict[str, Any]], Any]
#: a handler returns this to send no response at all
NO_ANSWER = object()

_stdin = sys.stdin.buffer
_stdout = sys.stdout.buffer


def start() -> None:
    """Write the pid file and spawn the grandchild the test asked for."""
    pidfile = os.environ.get("MCPX_TEST_PIDFILE")
    if pidfile:
        with open(pidfile, "w") as f:
            f.write(str(os.getpid()))
    grandchild = os.environ.get("MCPX_TEST_GRANDCHILD")
    if grandchild:
        # it inherits stdin, stdout and stderr, as `npx` → `node` does
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        with open(grandchild, "w") as f:
            f.write(str(child.pid))
    escapee = os.environ.get("MCPX_TEST_SETSID")
    if escapee:
        daemon = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(300)"],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with open(escapee, "w") as f:
            f.write(str(daemon.pid))


def send_bytes(data: bytes) -> None:
    _stdout.write(data)
    _stdout.flush()


def send(obj: Any) -> None:
    send_bytes(json.dumps(obj, separators=(",", ":")).encode() + b"\n")


def result(rid: Any, value: Any) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def error(rid: Any, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


def record(message: Any) -> None:
    path = os.environ.get("MCPX_TEST_RECORD")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(message) + "\n")


def read() -> dict[str, Any] | None:
    """The next message from the client (recorded), or None when stdin is closed."""
    while True:
        line = _stdin.readline()
        if not line:
            return None
        if line.strip():
            message = json.loads(line)
            record(message)
            return message


def text(value: str) -> dict[str, Any]:
    """A tools/call result with one text block."""
    return {"content": [{"type": "text", "text": value}]}


def tool(name: str, **properties: Any) -> dict[str, Any]:
    """A tool definition whose arguments are all strings unless given a schema."""
    return {
        "name": name,
        "description": f"The {name} tool.",
        "inputSchema": {
            "type": "object",
            "properties": {k: v or {"type": "string"} for k, v in properties.items()},
        },
    }


ECHO = tool("echo", text=None)


def call_echo(message: dict[str, Any]) -> dict[str, Any]:
    return text(str(message["params"].get("arguments", {}).get("text", "")))


def serve(
    *,
    name: str,
    tools: list[dict[str, Any]] | None = None,
    calls: dict[str, Handler] | None = None,
    methods: dict[str, Handler] | None = None,
    version: str = PROTOCOL_VERSION,
    capabilities: dict[str, Any] | None = None,
    on_initialize: Callable[[], None] | None = None,
) -> None:
    """Answer requests until stdin closes. `calls` maps tool names to handlers of the whole request."""
    start()
    tools = tools if tools is not None else [ECHO]
    calls = calls if calls is not None else {"echo": call_echo}
    methods = dict(methods or {})
    while (message := read()) is not None:
        method = message.get("method")
        rid = message.get("id")
        if method is None or rid is None:
            continue  # a response or a notification: nothing to answer
        if method in methods:
            answer = methods[method](message)
            if answer is not NO_ANSWER:
                result(rid, answer)
        elif method == "initialize":
            if on_initialize is not None:
                on_initialize()
            result(
                rid,
                {
                    "protocolVersion": version,
                    "capabilities": capabilities if capabilities is not None else {"tools": {}},
                    "serverInfo": {"name": name, "version": "0.0.1"},
                },
            )
        elif method == "ping":
            result(rid, {})
        elif method == "tools/list":
            result(rid, {"tools": tools})
        elif method == "tools/call":
            handler = calls.get(message["params"]["name"])
            if handler is None:
                error(rid, -32602, f"Unknown tool: {message['params']['name']}")
                continue
            answer = handler(message)
            if answer is not NO_ANSWER:
                result(rid, answer)
        else:
            error(rid, -32601, f"Method not found: {method}")
