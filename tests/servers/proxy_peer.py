"""A hand-written stdio server for the proxy tests: it answers what a host asks, and on request sends
what a well-behaved SDK never would, so the test can see the proxy relay it untouched.

- `initialize`, `tools/list`, `ping`: answered (serverInfo `proxy-peer 1.0`).
- `tools/call` `echo` {text}: the text back; `env`: the value of $API_TOKEN (a secret the host passed in
  the server's env); `garble`: first a frame that is not JSON and one with invalid UTF-8, then the answer;
  `die`: three stderr lines and exit 3 without answering; `flood` {count, size}: that many log
  notifications of that size, then $PROXY_PEER_FLOODED is created, then the answer; `crlf`: a log
  notification, a blank line and the answer, each ended with CRLF (as a Windows-minded server writes).
- A line that is not JSON: a -32700 error with id null, as JSON-RPC says.
- With $PROXY_PEER_DEAF set it reads nothing at all (a server that stopped reading its stdin).
- Every line read is appended, exactly as its bytes came, to $PROXY_PEER_SEEN when set (what the server
  saw, for the byte-identity assertions), and its pid goes to $PROXY_PEER_PID.

No SDK: it writes bytes by hand, so a frame can be exactly as odd as the test needs.
"""

from __future__ import annotations

import json
import os
import sys

out = sys.stdout.buffer
seen = os.environ.get("PROXY_PEER_SEEN")
if os.environ.get("PROXY_PEER_PID"):
    with open(os.environ["PROXY_PEER_PID"], "w") as f:
        f.write(str(os.getpid()))
sys.stderr.write("proxy-peer ready\n")
sys.stderr.flush()
if os.environ.get("PROXY_PEER_DEAF"):  # never reads its stdin: what is written to it piles up in the pipe
    import time

    time.sleep(3600)


def send(obj: object) -> None:
    out.write(json.dumps(obj, separators=(",", ":")).encode() + b"\n")
    out.flush()


def tool(rid: object, params: dict) -> None:
    name, args = params.get("name"), params.get("arguments") or {}
    if name == "echo":
        text = str(args.get("text", ""))
    elif name == "env":
        text = os.environ.get("API_TOKEN", "")
    elif name == "garble":
        out.write(b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + b',"result":\n')
        out.write(
            b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"caf\xe9"}}\n'
        )
        text = "garbled"
    elif name == "flood":
        # notifications of `size` bytes, `count` of them, as fast as the pipe takes them; then a mark
        line = json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "x" * int(args.get("size", 65536))},
            }
        ).encode()
        for _ in range(int(args.get("count", 100))):
            out.write(line + b"\n")
        out.flush()
        if os.environ.get("PROXY_PEER_FLOODED"):
            open(os.environ["PROXY_PEER_FLOODED"], "w").close()
        text = "flooded"
    elif name == "crlf":  # not listed in tools/list: the shared tests count those
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "crlf"},
        }
        answer = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "crlf"}]}}
        out.write(json.dumps(note).encode() + b"\r\n\r\n" + json.dumps(answer).encode() + b"\r\n")
        out.flush()
        return
    elif name == "die":
        for line in ("working on it", "still working", "FATAL: the disk is on fire"):
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        os._exit(3)
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": f"no tool {name}"}})
        return
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})


for raw in sys.stdin.buffer:
    if seen:
        with open(seen, "ab") as f:
            f.write(raw)
    if not raw.strip():
        continue
    try:
        message = json.loads(raw)
    except ValueError:
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
        continue
    method, rid = message.get("method"), message.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "proxy-peer", "version": "1.0"},
                },
            }
        )
    elif method == "tools/list":
        tools = [{"name": n, "inputSchema": {"type": "object"}} for n in ("echo", "env", "garble", "die")]
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}})
    elif method == "tools/call":
        tool(rid, message.get("params") or {})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {method}"}})
