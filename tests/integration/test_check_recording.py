"""`mcpx check --recording FILE`: a recorded session judged without a server.

A session recorded through mcpx against tests/servers/record_server.py (both eras) keeps every rule; a
recording with known slips — one per rule, written through mcpx's own recorder — is caught rule by rule,
each finding pointing at the recording's events.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpx.record.writer import start_recording
from mcpx.transports.spec import ServerSpec
from mcpx.wire import TrafficLog, decode

SERVERS = Path(__file__).resolve().parents[1] / "servers"
sys.path.insert(0, str(SERVERS))


def judge(path: Path) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "check", "--recording", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_session_recorded_through_mcpx_keeps_every_rule(tmp_path: Path, era: str) -> None:
    from record_session import record_full_session

    path = tmp_path / f"{era}.mcpx.jsonl"
    asyncio.run(record_full_session(path, era=era))
    code, report = judge(path)
    assert {c["id"]: (c["status"], c["detail"]) for c in report["checks"] if c["status"] != "pass"} == {}
    assert code == 0
    schema = next(c for c in report["checks"] if c["id"] == "recording.schema")
    revision = "2025-11-25" if era == "legacy" else "2026-07-28"
    assert schema["detail"].endswith(f"frames are valid against the {revision} schema")
    assert schema["cite"] == f"MCP {revision} schema"


def _write_slips(path: Path) -> None:
    """A legacy session with one slip per rule, written as mcpx writes every recording."""
    log = TrafficLog()
    recorder = start_recording(path, log, ServerSpec(command=["slips"]), era="legacy")

    def out(obj: dict[str, Any]) -> None:
        text = json.dumps(obj, separators=(",", ":"))
        log.sent(text, decode(text.encode()).message, "stdio")  # type: ignore[arg-type]

    def into(obj: dict[str, Any]) -> None:
        log.received(json.dumps(obj, separators=(",", ":")).encode(), "stdio")

    rpc = {"jsonrpc": "2.0"}
    # lifecycle: a request before initialize
    out({**rpc, "id": 1, "method": "tools/list"})
    into({**rpc, "id": 1, "error": {"code": -32600, "message": "not initialized"}})
    out(
        {
            **rpc,
            "id": 2,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "slips", "version": "1"},
            },
        }
    )
    into(
        {
            **rpc,
            "id": 2,
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "slips", "version": "1"},
            },
        }
    )
    out({**rpc, "method": "notifications/initialized"})
    # notification-replies: the server answers the notification
    into({**rpc, "id": None, "error": {"code": -32601, "message": "Method not found"}})
    # schema: an inputSchema without type "object"
    out({**rpc, "id": 5, "method": "tools/list"})
    into({**rpc, "id": 5, "result": {"tools": [{"name": "add", "inputSchema": {"properties": {}}}]}})
    # ids and pairing: "42" comes back as 42
    out({**rpc, "id": "42", "method": "ping"})
    into({**rpc, "id": 42, "result": {}})
    # capabilities: sampling asked of a client that did not declare it
    sample = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}
    into({**rpc, "id": 7, "method": "sampling/createMessage", "params": sample})
    out({**rpc, "id": 7, "error": {"code": -32601, "message": "Method not found"}})
    # pairing: ping answered twice
    out({**rpc, "id": 3, "method": "ping"})
    into({**rpc, "id": 3, "result": {}})
    into({**rpc, "id": 3, "result": {}})
    # still in flight when the recording ends: cut off, not judged
    out({**rpc, "id": 4, "method": "ping"})
    recorder.close()


def test_a_recording_with_known_slips_is_caught_rule_by_rule(tmp_path: Path) -> None:
    path = tmp_path / "slips.mcpx.jsonl"
    _write_slips(path)
    code, report = judge(path)
    assert code == 6
    results = {c["id"]: c for c in report["checks"]}
    assert {i: c["status"] for i, c in results.items()} == {
        "recording.schema": "fail",
        "recording.pairing": "fail",
        "recording.ids": "fail",
        "recording.lifecycle": "fail",
        "recording.notification-replies": "fail",
        "recording.capabilities": "fail",
    }
    detail = {i: c["detail"] for i, c in results.items()}
    schema = detail["recording.schema"]
    assert "#7 (server, tools/list) result/tools/0/inputSchema: 'type' is a required property" in schema
    assert "#5 (server, answer) id: None is not of type 'string', 'integer'" in schema
    pairing = detail["recording.pairing"]
    assert '#8: client\'s ping (id "42") got no answer' in pairing
    assert "#9: server answered id 42, which no request carried" in pairing
    assert "#14: server answered id 3 a second time" in pairing
    assert "(id 4)" not in pairing  # cut off by the end of the recording
    assert detail["recording.ids"] == '1 problem(s): #9: server answered id "42" as 42'
    assert "#0: the client's first request is tools/list, not initialize" in detail["recording.lifecycle"]
    assert detail["recording.notification-replies"] == "#5: the server answered notifications/initialized"
    assert detail["recording.capabilities"] == (
        "1 problem(s): #10: the server used sampling/createMessage; the client did not declare sampling"
    )
    # every finding points into the recording, with the rule's revision and section
    assert results["recording.ids"]["exchange"] == [{"log": "recording", "seq": [8, 9]}]
    assert results["recording.lifecycle"]["cite"] == "MCP 2025-11-25 basic/lifecycle § initialization"
    assert results["recording.ids"]["frames"][1]["raw"].startswith('{"jsonrpc":"2.0","id":42')
