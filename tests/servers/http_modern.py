"""A small hand-written 2026-07-28 (handshake-free) Streamable HTTP server, stdlib only, for what a real
server cannot be made to do on demand.

    python http_modern.py PORT

POST only (GET and DELETE get 405). Every request is checked as the spec says a server checks it:
`MCP-Protocol-Version` must equal `_meta`'s version (else 400 / -32020), `Mcp-Method` the method and
`Mcp-Name` the tool name (else -32020); an unknown version gets 400 / -32022. Paths:

    /ok/mcp      server/discover, tools/list and these tools:
                   headers    answers with the HTTP headers of its request (JSON text); its arguments
                              carry x-mcp-header annotations (one nested under `where`)
                   slow       an event stream that sends progress, then keep-alives for 10 s; a client
                              that closes it is noticed (GET /_seen lists it under "cancelled")
                   dropped    an event stream that ends before its response the first time it is called
                   accepted   202 with no body
                 and tools whose x-mcp-header annotations break the rules (a client must not list them)
    /stale/mcp   its first tools/list shows `route` without annotations, later ones with `Region`; a
                 call of `route` without `Mcp-Param-Region` is refused with -32020
    /down/mcp    every POST answers 503 with an HTML page

Test hooks: `GET /_seen` (requests with headers and bodies, cancelled calls), `POST /_reset`.
"""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSION = "2026-07-28"
LOCK = threading.Lock()
SEEN: list[dict[str, Any]] = []
CANCELLED: list[Any] = []
STATE: dict[str, int] = {"stale_lists": 0, "dropped_calls": 0}

HEADERS_TOOL = {
    "name": "headers",
    "description": "Answers with the HTTP headers of its request.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "debug": {"type": "boolean", "x-mcp-header": "Debug"},
            "where": {
                "type": "object",
                "properties": {"city": {"type": "string", "x-mcp-header": "City"}},
            },
            "note": {"type": "string"},
        },
    },
}
PLAIN = {"type": "object", "properties": {}}
GOOD_TOOLS = [
    HEADERS_TOOL,
    {"name": "slow", "inputSchema": PLAIN},
    {"name": "dropped", "inputSchema": PLAIN},
    {"name": "accepted", "inputSchema": PLAIN},
]
BAD_TOOLS = [
    {"name": "bad_space", "inputSchema": {"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": "My Region"}}}},
    {"name": "bad_number", "inputSchema": {"type": "object", "properties": {"v": {"type": "number", "x-mcp-header": "Score"}}}},
    {"name": "bad_items", "inputSchema": {"type": "object", "properties": {"v": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}}},
    {"name": "bad_twice", "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Zone"}, "b": {"type": "string", "x-mcp-header": "zone"}}}},
]  # fmt: skip
ROUTE_PLAIN = {
    "name": "route",
    "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}},
}
ROUTE_ANNOTATED = {
    "name": "route",
    "inputSchema": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
}


def decode(value: str | None) -> str | None:
    if value is not None and value.startswith("=?base64?") and value.endswith("?="):
        return base64.b64decode(value[9:-2]).decode("utf-8")
    return value


def sse(message: dict[str, Any]) -> bytes:
    return f"event: message\ndata: {json.dumps(message)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _reply(self, status: int, body: bytes = b"", ctype: str = "application/json") -> None:
        self.send_response(status)
        if body:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _rpc(self, rid: Any, result: Any) -> None:
        self._reply(200, json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode())

    def _error(self, status: int, rid: Any, code: int, message: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self._reply(status, json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}).encode())

    def _stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _write(self, chunk: bytes) -> bool:
        try:
            self.wfile.write(chunk)
            self.wfile.flush()
            return True
        except OSError:
            return False

    def do_GET(self) -> None:
        if self.path == "/_seen":
            with LOCK:
                self._reply(200, json.dumps({"requests": SEEN, "cancelled": CANCELLED}).encode())
            return
        with LOCK:
            SEEN.append({"method": "GET", "path": self.path, "headers": dict(self.headers.items())})
        self._reply(405)

    def do_DELETE(self) -> None:
        with LOCK:
            SEEN.append({"method": "DELETE", "path": self.path, "headers": dict(self.headers.items())})
        self._reply(405)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/_reset":
            with LOCK:
                SEEN.clear()
                CANCELLED.clear()
                STATE.update(stale_lists=0, dropped_calls=0)
            self._reply(200, b"{}")
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        message = json.loads(body)
        with LOCK:
            SEEN.append({"method": "POST", "path": self.path, "headers": headers, "body": message})
        scenario = self.path.strip("/").split("/")[0]
        if scenario == "down":
            self._reply(503, b"<html><body>maintenance</body></html>", "text/html")
            return
        rid, method = message.get("id"), message.get("method")
        if rid is None:
            self._reply(202)
            return
        params = message.get("params") or {}
        version = (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
        if headers.get("mcp-protocol-version") != version or headers.get("mcp-method") != method:
            self._error(400, rid, -32020, "headers do not match the body")
            return
        if method in ("tools/call",) and decode(headers.get("mcp-name")) != params.get("name"):
            self._error(400, rid, -32020, "Mcp-Name does not match the body")
            return
        if version != VERSION:
            self._error(
                400,
                rid,
                -32022,
                "Unsupported protocol version",
                {"supported": [VERSION], "requested": version},
            )
            return
        if method == "server/discover":
            info = {"io.modelcontextprotocol/serverInfo": {"name": f"modern-{scenario}", "version": "1"}}
            self._rpc(
                rid,
                {
                    "resultType": "complete",
                    "supportedVersions": [VERSION],
                    "capabilities": {"tools": {}},
                    "_meta": info,
                },
            )
        elif method == "tools/list":
            self._rpc(rid, {"resultType": "complete", "tools": self._tools(scenario)})
        elif method == "tools/call":
            self._call(rid, params, headers)
        else:
            self._error(404, rid, -32601, f"Method not found: {method}")

    def _tools(self, scenario: str) -> list[dict[str, Any]]:
        if scenario == "stale":
            with LOCK:
                STATE["stale_lists"] += 1
                first = STATE["stale_lists"] == 1
            return [ROUTE_PLAIN if first else ROUTE_ANNOTATED]
        return GOOD_TOOLS + BAD_TOOLS

    def _call(self, rid: Any, params: dict[str, Any], headers: dict[str, str]) -> None:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if name == "route":
            if decode(headers.get("mcp-param-region")) != arguments.get("region"):
                self._error(400, rid, -32020, "Mcp-Param-Region does not match the body")
                return
            self._rpc(rid, {"resultType": "complete", "content": [{"type": "text", "text": "routed"}]})
        elif name == "headers":
            self._rpc(
                rid, {"resultType": "complete", "content": [{"type": "text", "text": json.dumps(headers)}]}
            )
        elif name == "slow":
            self._stream()
            token = (params.get("_meta") or {}).get("progressToken")
            if token is not None:
                note = {"progressToken": token, "progress": 1, "total": 2}
                self._write(sse({"jsonrpc": "2.0", "method": "notifications/progress", "params": note}))
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                time.sleep(0.05)
                if not self._write(b": keep-alive\n\n"):
                    with LOCK:
                        CANCELLED.append(rid)
                    return
        elif name == "dropped":
            with LOCK:
                STATE["dropped_calls"] += 1
                first = STATE["dropped_calls"] == 1
            self._stream()
            note = {"level": "info", "data": f"working on {rid}"}
            self._write(sse({"jsonrpc": "2.0", "method": "notifications/message", "params": note}))
            if not first:
                result = {"resultType": "complete", "content": [{"type": "text", "text": "done"}]}
                self._write(sse({"jsonrpc": "2.0", "id": rid, "result": result}))
            # the first time, the stream ends here, before the response
        elif name == "accepted":
            self._reply(202)
        else:
            self._error(400, rid, -32602, f"Unknown tool: {name}")


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
