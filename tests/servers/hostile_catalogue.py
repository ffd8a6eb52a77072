"""A server whose catalogue is hostile by size or shape, hand-written (standard library only).

    python hostile_catalogue.py huge-description [--mb 10]     one tool, its description N MB of prose
    python hostile_catalogue.py many-tools [--count 20000]     N tools, each with a small schema
    python hostile_catalogue.py deep-schema [--depth 3000]     one tool whose schema nests N objects deep
    python hostile_catalogue.py ref-cycles                     `$ref`s that point at each other, and at themselves
    … [--http PORT]                                            served over Streamable HTTP (JSON replies) at /mcp
    … [--list-delay S]                                         `tools/list` answered S seconds late (the client
                                                               has settled: what the catalogue itself costs)

Over stdio by default (newline-delimited JSON). It speaks the handshake era (`server/discover` gets
-32601, as from a 2025 server); `tools/call` answers with the arguments it was given, as JSON text.
Every catalogue is well-formed JSON-RPC: what is hostile is only its size or its shape.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SENTENCE = "the server describes its one tool at a length no client expects and every line matters"
WORDS = SENTENCE.split()


def prose(size: int) -> str:
    """About `size` characters of text in lines of about 80 (a description a screen must not lay out whole)."""
    lines: list[str] = []
    total = 0
    n = 0
    while total < size:
        words = [WORDS[(n * 7 + i) % len(WORDS)] for i in range(13)]
        line = f"{n:07d} " + " ".join(words)
        lines.append(line)
        total += len(line) + 1
        n += 1
    lines.append("END OF THE DESCRIPTION")
    return "\n".join(lines)


def small_schema(n: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"text": {"type": "string", "description": f"text for tool {n}"}},
        "required": ["text"],
    }


#: stands in the catalogue for the deep schema; its JSON text replaces it once the catalogue is serialised
DEEP = "@@deep-schema@@"


def deep_schema_json(depth: int) -> str:
    """The JSON text of a schema `depth` objects deep, written out without recursion: json.dumps of N
    nested dicts recurses N times in C, and from Python 3.12 that is bounded apart from
    sys.setrecursionlimit (3.12.1 raised RecursionError at depth 3000, and the server died at start)."""
    opened = "".join(
        f'{{"type":"object","title":"level {level}","properties":{{"inner":' for level in range(1, depth + 1)
    )
    return opened + '{"type":"string","description":"the bottom"}' + "}}" * depth


def cyclic_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A"},
            "self": {"$ref": "#/$defs/Self"},
            "loop": {"$ref": "#/$defs/Loop1"},
        },
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}, "name": {"type": "string"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "n": {"type": "integer"}}},
            "Self": {"$ref": "#/$defs/Self"},
            "Loop1": {"$ref": "#/$defs/Loop2"},
            "Loop2": {"$ref": "#/$defs/Loop1"},
        },
    }


def catalogue(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.kind == "huge-description":
        return [
            {"name": "verbose", "description": prose(int(args.mb * 2**20)), "inputSchema": small_schema(0)}
        ]
    if args.kind == "many-tools":
        return [
            {"name": f"tool_{n:05d}", "description": f"Tool number {n}.", "inputSchema": small_schema(n)}
            for n in range(args.count)
        ]
    if args.kind == "deep-schema":
        return [
            {
                "name": "deep",
                "description": f"A schema {args.depth} levels deep.",
                "inputSchema": DEEP,
            }
        ]
    return [
        {"name": "cyclic", "description": "Schemas whose $refs form cycles.", "inputSchema": cyclic_schema()}
    ]


class Server:
    def __init__(self, tools: list[dict[str, Any]], depth: int, list_delay: float = 0.0) -> None:
        self.list_delay = list_delay
        # serialised once: the catalogue is the same for every listing
        self.tools_json = json.dumps({"tools": tools})
        if json.dumps(DEEP) in self.tools_json:
            self.tools_json = self.tools_json.replace(json.dumps(DEEP), deep_schema_json(depth))

    def answer(self, line: str) -> str | None:
        try:
            message = json.loads(line)
        except ValueError:
            return None
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            return None  # notifications and stray answers
        rid, method, params = message["id"], message["method"], message.get("params") or {}
        head = '{"jsonrpc":"2.0","id":' + json.dumps(rid) + ","
        if method == "initialize":
            asked = params.get("protocolVersion")
            result = {
                "protocolVersion": asked if asked in VERSIONS else VERSIONS[0],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-catalogue", "version": "1.0.0"},
            }
            return head + '"result":' + json.dumps(result) + "}"
        if method == "tools/list":
            time.sleep(self.list_delay)
            return head + '"result":' + self.tools_json + "}"
        if method == "tools/call":
            text = json.dumps(params.get("arguments") or {})
            return head + '"result":' + json.dumps({"content": [{"type": "text", "text": text}]}) + "}"
        if method == "ping":
            return head + '"result":{}}'
        return head + '"error":{"code":-32601,"message":"Method not found: ' + str(method)[:80] + '"}}'


def serve_stdio(server: Server) -> None:
    for line in sys.stdin:
        reply = server.answer(line)
        if reply is not None:
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()


def serve_http(server: Server, port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
            reply = server.answer(body)
            if reply is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            data = reply.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_DELETE(self) -> None:
            self.do_GET()

        def log_message(self, *args: Any) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("kind", choices=["huge-description", "many-tools", "deep-schema", "ref-cycles"])
    parser.add_argument("--mb", type=float, default=10.0)
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=3_000)
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--list-delay", type=float, default=0.0, metavar="SECONDS")
    args = parser.parse_args()
    server = Server(catalogue(args), args.depth, args.list_delay)
    if args.http:
        serve_http(server, args.http)
    else:
        serve_stdio(server)


if __name__ == "__main__":
    main()
