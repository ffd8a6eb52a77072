"""The official schemas shipped with mcpx, and frames judged against them (also live, as traffic-log flags)."""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources

import pytest

from mcpx.check.wire_schema import REVISIONS, SchemaFlagger, judge_frame, schema
from mcpx.wire import TrafficLog, decode


def test_the_schema_files_are_the_spec_repositorys_byte_for_byte() -> None:
    """Their checksums are the ones the README records from the spec repository's commit."""
    folder = resources.files("mcpx.check").joinpath("schemas")
    readme = folder.joinpath("README.md").read_text("utf-8")
    recorded = dict(re.findall(r"^\| (\S+\.json) \| ([0-9a-f]{64}) \|$", readme, re.MULTILINE))
    assert set(recorded) == {f"{r}.json" for r in REVISIONS}
    for name, digest in recorded.items():
        assert hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("revision", REVISIONS)
def test_each_revision_is_indexed_by_method_and_side(revision: str) -> None:
    found = schema(revision)
    assert found.methods["tools/list"] == "ListToolsRequest"
    assert found.result_of("tools/call") == "CallToolResult"
    assert "ListToolsRequest" in found.sends["client"]
    if revision != "2026-07-28":  # the modern era has no server→client requests
        assert "CreateMessageRequest" in found.sends["server"]


def _log_frame(log: TrafficLog, direction: str, obj: object) -> None:
    text = json.dumps(obj)
    if direction == "out":
        log.sent(text, decode(text.encode()).message, "stdio")  # type: ignore[arg-type]
    else:
        log.received(text.encode(), "stdio")


def test_frames_are_judged_by_what_they_are_and_who_sent_them() -> None:
    log = TrafficLog()
    _log_frame(log, "out", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}})
    _log_frame(log, "in", {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text"}]}})
    _log_frame(log, "in", {"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
    request, answer, backwards = list(log)
    assert judge_frame("2025-11-25", request) == []
    assert judge_frame("2025-11-25", answer, request) == ["result/content/0: 'text' is a required property"]
    assert (
        judge_frame("2025-11-25", backwards)[0]
        == "tools/list is not something the server sends in 2025-11-25"
    )
    # a revision before structured content knew no isError-free text blocks either way: judged by its own schema
    assert judge_frame("2024-11-05", answer, request) == ["result/content/0: 'text' is a required property"]


def test_the_flagger_flags_frames_live_as_the_log_grows() -> None:
    """What the TUI's Problems view shows: flags set on the events, told to flag listeners."""
    log = TrafficLog()
    seen: list[str] = []
    log.subscribe_flags(lambda event, problem: seen.append(f"#{event.seq} {problem}"))
    flagger = SchemaFlagger()
    flagger.attach(log)
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    _log_frame(log, "out", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    result = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s"}}
    _log_frame(log, "in", {"jsonrpc": "2.0", "id": 1, "result": result})
    assert flagger.revision == "2025-06-18"
    assert seen == ["#1 schema 2025-06-18: result/serverInfo: 'version' is a required property"]
    assert log[1].flags == ["schema 2025-06-18: result/serverInfo: 'version' is a required property"]
