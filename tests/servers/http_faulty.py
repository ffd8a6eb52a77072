"""A small hand-written Streamable HTTP server (stdlib only) that misbehaves on purpose, path by path.

    python http_faulty.py PORT

Every scenario is a minimal legacy-era MCP server (initialize, tools/list, tools/call `echo`) at
`/<scenario>/mcp`; the scenario bends one rule:

    /ok/mcp         well-behaved: JSON replies, sessions, GET answered 405, DELETE accepted
    /dropget/mcp    a GET stream that sends one event (with `retry: 100`) and drops; reconnecting with
                    Last-Event-ID gets the next event and a stream that stays open
    /droppost/mcp   tools/call answers with an event stream that ends (after an event with an id) before
                    its response; GET with that Last-Event-ID resumes it and carries the response
    /dropnoid/mcp   the same, but the stream's events carry no id, so nothing can resume it
    /slowget/mcp    the GET stream is answered after 0.3 s; tools/list sends a log message on the session's
                    GET stream if one is open (and loses it otherwise, as servers do)
    /holdget/mcp    the GET stream gets no answer for 3 s, then 405
    /auth/mcp       401 with a WWW-Authenticate challenge unless `Authorization: Bearer good-token-1234`
    /html/mcp       tools/call answers 500 with an HTML page
    /plain/mcp      tools/call answers 200 text/plain
    /page/mcp       tools/call answers 200 with an HTML page (a login wall or a proxy's page)
    /slow/mcp       tools/call sends its headers after 3 s
    /loop/mcp       every POST redirects (307) to itself
    /bare400/mcp    a request without a session (the modern probe) gets 400 with an empty body

Test hooks: `GET /_seen` lists every request made (method, path, headers), `POST /_forget` makes the
server forget every session (the next request carrying one gets 404), `POST /_reset` clears both.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SESSIONS: set[str] = set()
SEEN: list[dict[str, Any]] = []
LOCK = threading.Lock()
# what a dropped POST stream left unsaid, by the event id it can be resumed from
PARKED: dict[str, bytes] = {}
# the open GET streams of /slowget, by session: what tools/list writes its log message to
GET_STREAMS: dict[str, Any] = {}


def sse(data: str = "", event_id: str | None = None, retry: int | None = None) -> bytes:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if retry is not None:
        lines.append(f"retry: {retry}")
    lines.append(f"data: {data}")
    return ("\n".join(lines) + "\n\n").encode()


def rpc(rid: Any, result: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- plumbing ------------------------------------------------------------------------------------
    def _scenario(self) -> str:
        parts = self.path.split("?")[0].strip("/").split("/")
        return parts[0] if len(parts) == 2 and parts[1] == "mcp" else ""

    def _record(self) -> None:
        if not self.path.startswith("/_"):
            with LOCK:
                SEEN.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                    }
                )

    def _reply(self, status: int, body: bytes = b"", ctype: str = "application/json", **headers: str) -> None:
        self.send_response(status)
        if body or status != 202:
            self.send_header("Content-Type", ctype)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _open_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
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

    def _hold_open(self, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(0.2)
            with LOCK:
                alive = self._write(b": keep-alive\n\n")
            if not alive:
                return

    # -- verbs ---------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path == "/_seen":
            with LOCK:
                self._reply(200, json.dumps(SEEN).encode())
            return
        self._record()
        scenario = self._scenario()
        session = self.headers.get("Mcp-Session-Id")
        if scenario == "auth" and not self._authorized():
            return
        if session is not None and session not in SESSIONS:
            self._reply(
                404, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}'
            )
            return
        last = self.headers.get("Last-Event-ID")
        if scenario == "holdget":
            time.sleep(3)
        if scenario == "slowget" and session is not None:
            time.sleep(0.3)
            self._open_stream()
            with LOCK:
                GET_STREAMS[session] = self
            self._hold_open(10)
            with LOCK:
                GET_STREAMS.pop(session, None)
            return
        if scenario == "dropget":
            self._open_stream()
            if last is None:
                note = {
                    "jsonrpc": "2.0",
                    "method": "notifications/message",
                    "params": {"level": "info", "data": "one"},
                }
                self._write(sse(json.dumps(note), "g1", retry=100))
                return  # and the connection drops
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": f"two after {last}"},
            }
            self._write(sse(json.dumps(note), "g2"))
            self._hold_open()
            return
        if scenario in ("droppost", "dropnoid") and last is not None:
            parked = PARKED.pop(last, None)
            self._open_stream()
            if parked is not None:
                self._write(parked)
            return
        self._reply(405, b"", "text/plain", Allow="POST, DELETE")

    def do_DELETE(self) -> None:
        self._record()
        session = self.headers.get("Mcp-Session-Id")
        if session in SESSIONS:
            SESSIONS.discard(session)
            self._reply(200)
        else:
            self._reply(404)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path == "/_forget":
            SESSIONS.clear()
            self._reply(200, b"{}")
            return
        if self.path == "/_reset":
            with LOCK:
                SESSIONS.clear()
                SEEN.clear()
            self._reply(200, b"{}")
            return
        self._record()
        scenario = self._scenario()
        if not scenario:
            self._reply(404, b"<html><body>Cannot POST here</body></html>", "text/html")
            return
        if scenario == "loop":
            self._reply(307, b"", "text/plain", Location=self.path)
            return
        if scenario == "auth" and not self._authorized():
            return
        try:
            message = json.loads(body)
        except ValueError:
            self._reply(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')
            return
        method, rid = message.get("method"), message.get("id")
        if method == "initialize":
            session = uuid.uuid4().hex
            SESSIONS.add(session)
            version = (message.get("params") or {}).get("protocolVersion", "2025-11-25")
            result = {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": f"faulty-{scenario}", "version": "0"},
            }
            self._reply(200, rpc(rid, result).encode(), Mcp_Session_Id=session)
            return
        session = self.headers.get("Mcp-Session-Id")
        if session is None and scenario == "bare400":
            self._reply(400, b"", "text/plain")
            return
        if session is None:
            self._reply(
                400,
                b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Mcp-Session-Id header is required"}}',
            )
            return
        if session not in SESSIONS:
            self._reply(
                404, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}'
            )
            return
        if method is None or rid is None:
            self._reply(202)  # a notification, or our answer to a server request
            return
        if method == "tools/list":
            with LOCK:
                stream = GET_STREAMS.get(session)
                if stream is not None:
                    note = {
                        "jsonrpc": "2.0",
                        "method": "notifications/message",
                        "params": {"level": "info", "data": "listing"},
                    }
                    stream._write(sse(json.dumps(note)))
            tools = [{"name": "echo", "inputSchema": {"type": "object"}}]
            self._reply(200, rpc(rid, {"tools": tools}).encode())
            return
        if method == "tools/call":
            self._call(scenario, rid, message.get("params") or {})
            return
        self._reply(
            200,
            json.dumps(
                {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}
            ).encode(),
        )

    def _authorized(self) -> bool:
        if self.headers.get("Authorization") == "Bearer good-token-1234":
            return True
        challenge = 'Bearer realm="mcpx-test", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
        self._reply(401, b'{"error":"invalid_token"}', WWW_Authenticate=challenge)
        return False

    def _call(self, scenario: str, rid: Any, params: dict[str, Any]) -> None:
        result = {"content": [{"type": "text", "text": json.dumps(params.get("arguments") or {})}]}
        if scenario == "html":
            page = b"<!DOCTYPE html><html><body><h1>500 Internal Server Error</h1><p>upstream exploded</p></body></html>"
            self._reply(500, page, "text/html; charset=utf-8")
        elif scenario == "plain":
            self._reply(200, b"hello, I am not JSON", "text/plain")
        elif scenario == "page":
            self._reply(200, b"<!DOCTYPE html><html><body>Please sign in</body></html>", "text/html")
        elif scenario == "slow":
            time.sleep(3)
            self._reply(200, rpc(rid, result).encode())
        elif scenario in ("droppost", "dropnoid"):
            with_ids = scenario == "droppost"
            self._open_stream()
            self._write(sse("", "p1" if with_ids else None, retry=50))
            progress = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "working"},
            }
            self._write(sse(json.dumps(progress), "p2" if with_ids else None))
            if with_ids:
                PARKED["p2"] = sse(rpc(rid, result), "p3")
            # the stream ends here, before the response
        else:
            self._reply(200, rpc(rid, result).encode())


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
