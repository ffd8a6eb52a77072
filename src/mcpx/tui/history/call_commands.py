"""A tool call as something to paste elsewhere: `mcpx call …`, the official inspector's `--cli` line, or
the JSON-RPC request itself. No Textual here (the History tab and the palette both use it).

The commands reach the same server as the session (the target, `--cwd`, `--transport`, the server's own
arguments after `--`) and run as printed: every word is quoted for a POSIX shell. The server's env and
HTTP headers are left out on purpose: they may hold secrets, and a copied command travels.
"""

from __future__ import annotations

import json
import shlex
from typing import Any, Literal

from mcpx.target import ServerSpec, command_words
from mcpx.wire.secret_policy import mask_url

CallFormat = Literal["mcpx", "inspector", "json-rpc"]
CALL_FORMATS: dict[CallFormat, str] = {
    "mcpx": "mcpx call",
    "inspector": "the official inspector's --cli",
    "json-rpc": "JSON-RPC",
}
#: the official inspector's package, as its README runs it
INSPECTOR = "@modelcontextprotocol/inspector"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def as_mcpx_call(spec: ServerSpec, tool: str, arguments: dict[str, Any]) -> str:
    """`mcpx call TARGET --method tools/call --tool-name T --tool-args-json '{…}' [-- server args]`."""
    flags = ["--method", "tools/call", "--tool-name", tool]
    if arguments:
        flags += ["--tool-args-json", _compact(arguments)]
    return shlex.join(command_words("call", spec, flags=flags))


def as_inspector_cli(spec: ServerSpec, tool: str, arguments: dict[str, Any]) -> str:
    """`npx @modelcontextprotocol/inspector --cli COMMAND ARGS… --method tools/call --tool-name T
    --tool-arg k=v …` (a value that is not a string is written as JSON, which the inspector parses)."""
    words = ["npx", INSPECTOR, "--cli"]
    if spec.url is not None:
        words.append(mask_url(spec.url))  # userinfo and secret-looking query values never travel
        if spec.transport in ("http", "sse"):
            words += ["--transport", spec.transport]
    else:
        words += list(spec.command or [])
    words += ["--method", "tools/call", "--tool-name", tool]
    for key, value in arguments.items():
        words += ["--tool-arg", f"{key}={value if isinstance(value, str) else _compact(value)}"]
    return shlex.join(words)


def as_json_rpc(tool: str, arguments: dict[str, Any], request_id: int = 1) -> str:
    """The `tools/call` request as one JSON-RPC frame."""
    request = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return _compact(request)


def call_as(form: CallFormat, spec: ServerSpec | None, tool: str, arguments: dict[str, Any]) -> str | None:
    """The call in `form`, or None when it needs a server and there is none (a recording)."""
    if form == "json-rpc":
        return as_json_rpc(tool, arguments)
    if spec is None:
        return None
    return as_mcpx_call(spec, tool, arguments) if form == "mcpx" else as_inspector_cli(spec, tool, arguments)
