"""A hand-written Streamable HTTP server (stdlib only) that keeps the HTTP rules `mcpx check` tests, in
both eras, except the one named by its mode. Each mode breaks exactly one rule; compared with mode `none`,
exactly one check's verdict changes.

    python check_http_server.py PORT [MODE]

mode              the rule it breaks                                              the check that catches it
none              (none)                                                          —
origin            a foreign Origin is served                                      http.origin
origin-400        a foreign Origin is refused with 400, not 403                   http.origin
host              a foreign Host is served                                        http.host
content-type      a text/plain body is served                                     http.content-type
session-400       a session id it never issued gets 400, not 404 (the TS SDK's)  http.session-unknown
delete-keeps      DELETE answers 200 but the session goes on                      http.session-delete
method-header     Mcp-Method is not compared with the body                        http.header-mismatch
mismatch-code     header mismatches are refused with 400 and -32600, not -32020   http.header-mismatch-code

Modern era (2026-07-28) for requests without a session that carry the `_meta` envelope, legacy era after
`initialize` (sessions in `Mcp-Session-Id`). One tool, `echo` (read-only).
"""

from __future__ import annotations

import json
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PORT = int(sys.argv[1])
MODE = sys.argv[2] if len(sys.argv) > 2 else "none"
MODERN = "2026-07-28"
LEGACY = ("2025-11-25", "2025-06-18", "2025-03-26")
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = {"name": "check-http-server", "version": "1.0.0"}
SESSIONS: set[str] = set()
ISSUED: set[str] = set()
LOCK = threading.Lock()
TOOLS = [
    {
        "name": "echo",
        "description": "Returns its text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "annotations": {"readOnlyHint": True},
    }
]
LOCAL_HOSTS = {f"127.0.0.1:{PORT}", f"localhost:{PORT}"}


class Refused(Exception):
    def __init__(self, status: int, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.data = status, code, message, data


def mismatch(what: str) -> Refused:
    return Refused(400, -32600 if MODE == "mismatch-code" else -32020, f"Header mismatch: {what}")


def result_of(method: str, params: dict[str, Any], modern: bool) -> dict[str, Any]:
    if method == "ping" and not modern:
        return {}
    if method == "server/discover" and modern:
        return {
            "supportedVersions": [MODERN],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
        }
    if method == "tools/list":
        if params.get("cursor") is not None:
            raise Refused(200, -32602, "Invalid cursor")
        return {"tools": TOOLS, **({"ttlMs": 0, "cacheScope": "private"} if modern else {})}
    if method == "tools/call":
        if params.get("name") != "echo":
            raise Refused(200, -32602, f"Unknown tool: {params.get('name')}")
        text = (params.get("arguments") or {}).get("text")
        if not isinstance(text, str):
            return {"content": [{"type": "text", "text": "text must be a string"}], "isError": True}
        return {"content": [{"type": "text", "text": text}]}
    raise Refused(404 if modern else 200, -32601, f"Method not found: {method}")


def dress(result: dict[str, Any]) -> dict[str, Any]:
    meta = {**result.get("_meta", {}), "io.modelcontextprotocol/serverInfo": INFO}
    return {**result, "resultType": "complete", "_meta": meta}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def reply(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def guard(self) -> bool:
        origin = self.headers.get("Origin")
        if origin and origin.split("://", 1)[-1] not in LOCAL_HOSTS and MODE != "origin":
            status = 400 if MODE == "origin-400" else 403
            self.reply(status, {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Forbidden origin"}})
            return False
        if self.headers.get("Host") not in LOCAL_HOSTS and MODE != "host":
            self.reply(403, {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Forbidden host"}})
            return False
        return True

    def do_GET(self) -> None:
        self.reply(405, None, {"Allow": "POST, DELETE"})

    def do_DELETE(self) -> None:
        if not self.guard():
            return
        sid = self.headers.get("Mcp-Session-Id")
        with LOCK:
            if sid not in SESSIONS:
                self.reply(404)
                return
            if MODE != "delete-keeps":
                SESSIONS.discard(sid)
        self.reply(200)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.guard():
            return
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json" and MODE != "content-type":
            self.reply(415, {"jsonrpc": "2.0", "error": {"code": -32000, "message": "Use application/json"}})
            return
        try:
            message = json.loads(raw)
        except ValueError:
            self.reply(
                400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
            )
            return
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            self.reply(
                400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
            )
            return
        rid, method = message.get("id"), message["method"]
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        try:
            status, body, headers = self.serve(rid, method, params, "id" in message)
        except Refused as exc:
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            status, body, headers = exc.status, {"jsonrpc": "2.0", "id": rid, "error": error}, {}
        self.reply(status, body, headers)

    def serve(
        self, rid: Any, method: str, params: dict[str, Any], is_request: bool
    ) -> tuple[int, Any, dict[str, str]]:
        sid = self.headers.get("Mcp-Session-Id")
        if method == "initialize":
            offered = params.get("protocolVersion")
            version = offered if offered in LEGACY else LEGACY[0]
            new = uuid.uuid4().hex
            with LOCK:
                SESSIONS.add(new)
                ISSUED.add(new)
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": INFO}
            return 200, {"jsonrpc": "2.0", "id": rid, "result": result}, {"Mcp-Session-Id": new}
        if sid is not None:
            with LOCK:
                known, issued = sid in SESSIONS, sid in ISSUED
            if not known:
                status = 400 if MODE == "session-400" and not issued else 404
                raise Refused(status, -32000 if status == 400 else -32001, "Session not found")
            if not is_request:
                return 202, None, {}
            return 200, {"jsonrpc": "2.0", "id": rid, "result": result_of(method, params, False)}, {}
        if not is_request:
            return 202, None, {}
        meta = params.get("_meta")
        if not isinstance(meta, dict) or META_VERSION not in meta or META_CAPS not in meta:
            raise Refused(400, -32602, "Missing _meta with protocolVersion and clientCapabilities")
        if self.headers.get("MCP-Protocol-Version") != meta[META_VERSION]:
            raise mismatch("MCP-Protocol-Version")
        if meta[META_VERSION] != MODERN:
            raise Refused(
                400,
                -32022,
                "Unsupported protocol version",
                {"supported": [MODERN], "requested": meta[META_VERSION]},
            )
        if self.headers.get("Mcp-Method") != method and MODE != "method-header":
            raise mismatch("Mcp-Method")
        named = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}.get(method)
        if named is not None and self.headers.get("Mcp-Name") != params.get(named):
            raise mismatch("Mcp-Name")
        return 200, {"jsonrpc": "2.0", "id": rid, "result": dress(result_of(method, params, True))}, {}


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
