"""A minimal Streamable HTTP MCP server (legacy era, JSON replies), standard library only.

It bounds the HTTP benchmark the way echo_server.py bounds the stdio one: HTTP/1.1 with keep-alive,
`POST /mcp` answered with `application/json` (initialize, tools/list, tools/call echo, ping; -32601
for anything else), 202 for notifications, 405 for GET (no server-to-client stream). No session id.

    python benchmarks/http_echo_server.py PORT      # prints "ready" once listening
"""

from __future__ import annotations

import asyncio
import json
import sys

TOOLS = [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]


def answer(message: dict) -> dict:
    method, rid = message.get("method"), message.get("id")
    if method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "http-echo", "version": "0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        text = message.get("params", {}).get("arguments", {}).get("text", "")
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {method}"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            verb = head.split(b" ", 1)[0]
            length = 0
            for line in head.split(b"\r\n")[1:]:
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            body = await reader.readexactly(length) if length else b""
            if verb != b"POST":
                writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                continue
            message = json.loads(body)
            if "id" not in message:
                writer.write(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
                continue
            data = json.dumps(answer(message)).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + str(len(data)).encode()
                + b"\r\n\r\n"
                + data
            )
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def main(port: int) -> None:
    server = await asyncio.start_server(serve, "127.0.0.1", port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
