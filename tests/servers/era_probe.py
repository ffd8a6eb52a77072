"""A hand-written stdio server whose era behaviour is chosen by argv[1], to test era detection.

Modes (each breaks or bends one rule on purpose):
  exit-on-unknown   legacy; exits with code 3 when the first request is not `initialize` (as Rust-SDK servers do)
  silent            legacy; never answers a method it does not know
  legacy-32602      legacy; answers server/discover with -32602
  legacy-versions   answers server/discover with -32022 listing only handshake-era revisions
  modern-top        modern; DiscoverResult with serverInfo at the top level (as the conformance mocks do)
  mrtr-forever      modern; tools/call always answers input_required without inputRequests
  weird-result      modern; tools/call answers resultType "mystery"
  needs-capability  modern; tools/call answers -32021 naming the elicitation capability
  version-gone      modern; tools/call answers -32022 listing only a handshake-era revision

Every line it receives is appended to the file named by $ERA_PROBE_LOG, when set.
"""

from __future__ import annotations

import json
import os
import sys

MODE = sys.argv[1]
LOG = os.environ.get("ERA_PROBE_LOG")
MODERN = {"exit-on-unknown": False, "silent": False, "legacy-32602": False, "legacy-versions": False}.get(
    MODE, True
)


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def result(rid: object, value: dict) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def error(rid: object, code: int, message: str, data: object = None) -> None:
    err: dict = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    send({"jsonrpc": "2.0", "id": rid, "error": err})


first = True
for line in sys.stdin:
    if LOG:
        with open(LOG, "a") as fh:
            fh.write(line)
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if rid is None:
        continue
    if first and MODE == "exit-on-unknown" and method != "initialize":
        sys.stderr.write(f"expected initialize, got {method}\n")
        sys.exit(3)
    first = False
    if method == "initialize":
        if MODERN:
            error(
                rid, -32022, "Unsupported protocol version", {"supported": ["2026-07-28"], "requested": "x"}
            )
        else:
            result(
                rid,
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": f"legacy-{MODE}", "version": "1"},
                },
            )
    elif method == "server/discover":
        if MODE == "silent":
            continue
        if MODE in ("legacy-32602", "exit-on-unknown"):
            error(rid, -32602, "Invalid params")
        elif MODE == "legacy-versions":
            error(
                rid,
                -32022,
                "Unsupported protocol version",
                {"supported": ["2025-11-25"], "requested": "2026-07-28"},
            )
        else:
            result(
                rid,
                {
                    "resultType": "complete",
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": f"modern-{MODE}", "version": "2"},
                    "ttlMs": 0,
                    "cacheScope": "public",
                },
            )
    elif method == "tools/list":
        result(rid, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
    elif method == "tools/call":
        if MODE == "mrtr-forever":
            result(rid, {"resultType": "input_required", "requestState": "again"})
        elif MODE == "weird-result":
            result(rid, {"resultType": "mystery", "content": []})
        elif MODE == "needs-capability":
            error(
                rid,
                -32021,
                "Missing required client capability",
                {"requiredCapabilities": {"elicitation": {}}},
            )
        elif MODE == "version-gone":
            error(
                rid,
                -32022,
                "Unsupported protocol version",
                {"supported": ["2025-11-25"], "requested": "2026-07-28"},
            )
        else:
            result(rid, {"content": [{"type": "text", "text": "ok"}]})
    elif MODE == "silent":
        continue
    else:
        error(rid, -32601, "Method not found")
