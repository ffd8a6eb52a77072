"""What `mcpx watch` prints for each event, in text and JSON (the integration test reads the JSON of a
real run; this holds the text to the same facts without a server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpx.cli.watch import Printer
from mcpx.collection.expect import Difference
from mcpx.collection.model import TestCase
from mcpx.collection.runner import TestResult
from mcpx.record.catalog import Snapshot, compare
from mcpx.watch.changes import ChangeBatch
from mcpx.watch.loop import FilesChanged, ServerFailed, ServerStarted, TestsFinished, WatchPlan

ADD = {"name": "add", "inputSchema": {"type": "object", "properties": {"b": {"type": "integer"}}}}


def events(tmp_path: Path) -> list[object]:
    before = Snapshot("s", catalogues={"tools": [ADD], "prompts": []})
    wider = {**ADD, "inputSchema": {"type": "object", "properties": {"b": {"type": "number"}}}}
    after = Snapshot("s", catalogues={"tools": [wider, {"name": "mul"}], "prompts": []})
    failing = TestResult(
        TestCase("adds", "tools/call", line=4), "failed", [Difference("text", "5", "5.0")], elapsed_ms=3.14
    )
    return [
        ServerStarted(0, before, None, 0.0, 0.5, 0.01, at=1.0),
        FilesChanged(ChangeBatch((str(tmp_path / "server.py"),)), at=2.0),
        ServerStarted(1, after, compare(before, after), 0.2, 0.5, 0.01, at=2.75),
        TestsFinished(1, [failing, TestResult(TestCase("lists", "tools/list"), "passed")], 0.02),
        ServerFailed(2, "the server exited with code 1; last stderr lines:\nboom", 1, ("boom",), False),
    ]


def test_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printer = Printer("text", WatchPlan((tmp_path,), tests=tmp_path / "server.mcpx.yaml"))
    for event in events(tmp_path):
        printer.event(event)
    lines = [line.split("] ", 1)[-1] for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        "started in 0.50 s: 1 tool",
        "changed: server.py → restarting",
        "restarted 0.75 s after the change (stop 0.20 s, start 0.50 s, list 0.01 s): tools: +1 ~1",
        "  tools: 1 added, 1 changed",
        "    + mul",
        "    ~ add",
        '        $.inputSchema.properties.b.type: "integer" → "number"',
        "tests: 1 failed, 1 passed (0.02 s)",
        "  ✗ adds  3.1 ms",
        '      text: expected "5", got "5.0"',
        "      (line 4)",
        "the server did not start: the server exited with code 1 — waiting for the next change",
        "  | boom",
    ]


def test_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printer = Printer("json", WatchPlan((tmp_path,)))
    for event in events(tmp_path):
        printer.event(event)
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["event"] for e in out] == ["started", "changed", "started", "tests", "failed"]
    assert out[2]["since_change_seconds"] == 0.75 and out[2]["summary"] == "tools: +1 ~1"
    assert out[2]["catalogue"] == {"tools": 2, "prompts": 0}
    assert (out[3]["passed"], out[3]["failed"]) == (1, 1)
    assert out[4] == {"event": "failed", "cycle": 2, "message": "the server exited with code 1; last stderr "
                      "lines:\nboom", "returncode": 1, "stderr": ["boom"], "started": False}  # fmt: skip
