"""`mcpx export`: a recording as HAR 1.2 and as OTLP/JSON traces, from a real recorded session
(tests/tui/recordings/record_server.mcpx.jsonl) and from a proxied session with a malformed frame."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from mcpx.record.export import exchanges, to_har, to_otlp
from mcpx.record.reader import parse_recording, read_recording
from mcpx.wire.jsonrpc import Notification, Request

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "tui" / "recordings" / "record_server.mcpx.jsonl"


def test_har_has_one_entry_per_exchange_with_the_recorded_frames() -> None:
    recording = read_recording(RECORDED)
    sent = [e for e in recording.log if isinstance(e.message, (Request, Notification))]
    har = to_har(recording)["log"]
    assert har["version"] == "1.2" and har["creator"]["name"] == "mcpx"
    entries = har["entries"]
    assert len(entries) == len(sent)
    for entry, event in zip(entries, sent, strict=True):
        assert entry["request"]["postData"]["text"] == event.raw
        assert entry["_mcpMethod"] == event.method
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", entry["startedDateTime"])
        for key in (
            "method",
            "url",
            "httpVersion",
            "cookies",
            "headers",
            "queryString",
            "headersSize",
            "bodySize",
        ):
            assert key in entry["request"]
        for key in ("status", "statusText", "content", "redirectURL", "headersSize", "bodySize"):
            assert key in entry["response"]
        if isinstance(event.message, Request):
            answer = recording.log.find_response(event)
            assert answer is not None and entry["response"]["content"]["text"] == answer.raw
            assert entry["response"]["status"] == 200 and entry["time"] == entry["timings"]["wait"] >= 0
        else:
            assert entry["_notification"] is True and entry["response"]["status"] == 0
    assert entries[0]["request"]["url"] == "stdio:python record_server.py"
    assert entries[0]["_mcpMethod"] == "initialize" and entries[0]["_direction"] == "client→server"


def test_otlp_is_one_trace_of_spans_with_error_status_and_malformed_frames() -> None:
    lines = [
        '{"mcpx_recording":1,"mcpx_version":"0.1.0","started_wall":100.0,"target":{"label":"s"},"era":"auto"}',
        '{"seq":0,"t":0.1,"wall":100.1,"direction":"out","channel":"stdio","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"tools/call\\",\\"params\\":{}}"}',
        '{"seq":1,"t":0.3,"wall":100.3,"direction":"in","channel":"stdio","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"error\\":{\\"code\\":-32602,\\"message\\":\\"bad\\"}}"}',
        '{"seq":2,"t":0.4,"wall":100.4,"direction":"in","channel":"stdio","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":7,\\"method\\":\\"roots/list\\"}"}',
        '{"seq":3,"t":0.5,"wall":100.5,"direction":"out","channel":"stdio","raw":"not json"}',
    ]
    recording = parse_recording(("\n".join(lines) + "\n").encode())
    assert len(list(exchanges(recording))) == 3
    (resource,) = to_otlp(recording)["resourceSpans"]
    spans = resource["scopeSpans"][0]["spans"]
    call, roots, junk = spans
    assert len({span["traceId"] for span in spans}) == 1 and re.fullmatch(r"[0-9a-f]{32}", call["traceId"])
    assert len({span["spanId"] for span in spans}) == 3 and re.fullmatch(r"[0-9a-f]{16}", call["spanId"])
    assert (
        call["name"] == "tools/call" and call["kind"] == 3 and call["status"] == {"code": 2, "message": "bad"}
    )
    assert int(call["endTimeUnixNano"]) - int(call["startTimeUnixNano"]) == 200_000_000
    assert {"key": "rpc.jsonrpc.error_code", "value": {"intValue": "-32602"}} in call["attributes"]
    assert roots["kind"] == 2 and roots["status"] == {"code": 0}  # the server's request, never answered
    assert junk["name"] == "malformed frame" and junk["status"]["code"] == 2


def test_the_cli_writes_a_private_file(tmp_path: Path) -> None:
    out = tmp_path / "session.har"
    subprocess.run(
        [sys.executable, "-m", "mcpx", "export", str(RECORDED), "--format", "har", "-o", str(out)],
        check=True,
        timeout=30,
        env={**os.environ, "MCPX_DATA_DIR": str(tmp_path)},
    )
    assert json.loads(out.read_text())["log"]["entries"] and oct(out.stat().st_mode & 0o777) == "0o600"
    bad = subprocess.run(
        [sys.executable, "-m", "mcpx", "export", "nosuch", "--format", "xml"],
        capture_output=True, text=True, timeout=30, env={**os.environ, "MCPX_DATA_DIR": str(tmp_path)},
    )  # fmt: skip
    assert bad.returncode == 1 and "--format must be one of har, otlp-json" in bad.stderr
