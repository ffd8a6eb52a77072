"""A stdio server with one start-up fault, chosen by argv[1]: what `mcpx doctor` must diagnose.

banner          prints a banner line on stdout before speaking JSON-RPC (the most common fault)
exit-at-start   writes a reason to stderr and exits with code 2 before reading anything
mute            reads stdin and never answers
fine            a correct minimal legacy server (tools only)
"""

from __future__ import annotations

import json
import sys

mode = sys.argv[1]
if mode == "exit-at-start":
    sys.stderr.write("error: DATABASE_URL is not set\n")
    sys.exit(2)
if mode == "banner":
    print("Weather server v1.2 listening on stdio", flush=True)

for line in sys.stdin:
    message = json.loads(line)
    if mode == "mute" or "id" not in message:
        continue
    method = message["method"]
    if method == "initialize":
        result: dict = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": mode, "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [{"name": "forecast", "inputSchema": {"type": "object"}}]}
    else:
        reply = {
            "jsonrpc": "2.0",
            "id": message["id"],
            "error": {"code": -32601, "message": "Method not found"},
        }
        print(json.dumps(reply), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
