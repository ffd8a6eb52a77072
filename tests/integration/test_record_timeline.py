"""`Timeline`: the session as of a moment, on a recording of a real paginated server (tests/servers/
paginated.py: seven tools served three per page)."""

from __future__ import annotations

from pathlib import Path

import pytest

import mcpx
from mcpx.record import reader as reader_module
from mcpx.record.reader import open_recording, read_recording
from mcpx.record.timeline import Timeline
from mcpx.record.writer import start_recording
from mcpx.transports.spec import resolve_target
from mcpx.wire.traffic import TrafficLog

SERVER = Path(__file__).parent.parent / "servers" / "paginated.py"


async def test_listings_count_from_their_last_page_and_moments_find_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "pages.mcpx.jsonl"
    spec = resolve_target(str(SERVER), [])
    log = TrafficLog()
    recorder = start_recording(path, log, spec, era="legacy")
    try:
        async with mcpx.connect(spec, traffic=log, protocol_era="legacy") as client:
            await client.list_tools()
            await client.list_tools(refresh=True)
            await client.ping()
    finally:
        recorder.close()

    recording = read_recording(path)
    timeline = Timeline(recording.log)
    assert timeline.scan() == len(recording.log) and timeline.scan() == 0
    log = recording.log
    pages = [e.seq for e in log if e.direction == "in" and e.method == "tools/list"]
    assert len(pages) == 6  # 7 tools, 3 a page, listed twice

    assert timeline.opening_at(0) is None and timeline.listing_at("tools", pages[0]) is None
    opened = timeline.opening_at(pages[0])
    assert opened is not None and opened.method == "initialize"
    assert timeline.listing_at("tools", pages[1]) is None  # two pages in: not a listing yet
    first = timeline.listing_at("tools", pages[2])
    assert first is not None and first.seq == pages[2]
    assert [t["name"] for t in first.items] == [f"tool-{i}" for i in range(7)]
    assert timeline.listing_at("tools", pages[4]) is first  # the second listing is not complete yet
    second = timeline.listing_at("tools", len(log) - 1)
    assert second is not None and second.seq == pages[5] and second is not first
    assert timeline.listing_at("prompts", len(log) - 1) is None  # never listed: unknown, not empty

    [ping] = [e.seq for e in log if e.direction == "out" and e.method == "ping"]
    assert list(timeline.calls) == [ping] and list(timeline.calls_until(ping - 1)) == []
    end = len(log) - 1
    exited = timeline.exit_at(end)
    assert exited is not None and exited.facts.get("expected") is True
    assert timeline.exit_at(ping) is None

    # following the log as a recording is read (a few events at a time, all but the newest spilled to the
    # file at once) indexes the same as scanning it whole
    monkeypatch.setattr(reader_module, "KEEP_EVENTS", 2)
    loader = open_recording(path)
    loader.load(3)
    followed = Timeline(loader.recording.log)
    followed.follow()
    while loader.load(2):
        assert followed.scanned == len(loader.recording.log)
    assert loader.recording.log.spilled >= len(log) - 2
    assert followed.scanned == len(log) and followed.scan() == 0
    assert list(followed.calls) == list(timeline.calls) and followed.openings == timeline.openings
    assert followed.exits == timeline.exits
    assert [x.seq for x in followed.listings["tools"]] == [x.seq for x in timeline.listings["tools"]]
