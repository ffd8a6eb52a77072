"""Streamable HTTP servers that invite a reconnect hot loop (stdlib only, 127.0.0.1, a bounded lifetime).

    python http_reconnect_loop.py PORT [LIFETIME_SECONDS]

Each is a minimal legacy-era server (initialize with a session, tools/call) at `/<scenario>/mcp`:

    /resumeloop/mcp  tools/call answers with an event stream that sends an event with a new id and
                     `retry: 0` and closes, before any answer; every resume (GET + Last-Event-ID) gets the
                     same: a new id, `retry: 0`, a close. The answer never comes.
    /getloop/mcp     the GET listening stream is accepted (200, text/event-stream), sends an event with a new
                     id and `retry: 0`, and is closed at once, every time; tools/call answers normally.

`GET /_seen` returns how many requests of each kind were made: {"post": n, "resume": n, "listen": n}
(resume: a GET with Last-Event-ID to /resumeloop; listen: every GET to /getloop).
The process exits by itself after LIFETIME_SECONDS (default 60), so a test that dies leaves nothing.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COUNTS = {"post": 0, "resume": 0, "listen": 0}
LOCK = threading.Lock()
IDS = itertools.count(1)


def count(kind: str) -> None:
    with LOCK:
        COUNTS[kind] += 1


def primer() -> bytes:
    """An event with no data: a new id to resume from, and retry 0."""
    return f"id: e{next(IDS)}\nretry: 0\ndata:\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, body: bytes = b"", ctype: str = "application/json", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _stream_and_close(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.write(primer())
            self.wfile.flush()
        except OSError:
            pass

    def do_GET(self) -> None:
        if self.path == "/_seen":
            with LOCK:
                self._reply(200, json.dumps(COUNTS).encode())
            return
        scenario = self.path.strip("/").split("/")[0]
        if scenario == "getloop":  # the listening stream, opened and reopened (with Last-Event-ID)
            count("listen")
            self._stream_and_close()
        elif self.headers.get("Last-Event-ID") is not None:
            count("resume")
            self._stream_and_close()
        else:
            self._reply(405, b"", "text/plain", Allow="POST, DELETE")

    def do_DELETE(self) -> None:
        self._reply(200)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        count("post")
        scenario = self.path.strip("/").split("/")[0]
        message = json.loads(body)
        method, rid = message.get("method"), message.get("id")
        if method == "initialize":
            result = {
                "protocolVersion": (message.get("params") or {}).get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": f"reconnect-{scenario}", "version": "0"},
            }
            reply = {"jsonrpc": "2.0", "id": rid, "result": result}
            self._reply(200, json.dumps(reply).encode(), Mcp_Session_Id=uuid.uuid4().hex)
        elif rid is None:
            self._reply(202)
        elif method == "tools/call" and scenario == "resumeloop":
            self._stream_and_close()
        elif method == "tools/list":
            tools = [{"name": "echo", "inputSchema": {"type": "object"}}]
            self._reply(200, json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}}).encode())
        else:
            result = {"content": [{"type": "text", "text": "ok"}]}
            self._reply(200, json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode())


def main() -> None:
    lifetime = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    threading.Timer(lifetime, lambda: os._exit(0)).start()
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
