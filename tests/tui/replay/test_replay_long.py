"""A long recording in `mcpx replay`: the event lists listen while the rest of the file is read, so none of
them reads the file back (each would decode every event again), and each shows what it should.

The recording is written by the real recorder from a traffic log (a spawned process, the handshake, tool
calls and a stderr line every 50 calls), long enough that most of it stays on disk while it is replayed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scripted import wait_for
from textual._compositor import Compositor

from mcpx.record.writer import start_recording
from mcpx.transports.spec import ServerSpec
from mcpx.tui.replay.replay_app import make_replay_app
from mcpx.tui.settings import InspectSettings
from mcpx.wire import Notification, Request, Response
from mcpx.wire.jsonrpc import encode
from mcpx.wire.spill import ColdEvents
from mcpx.wire.traffic import TrafficLog

CALLS = 3_000


@pytest.fixture(scope="module")
def long_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("long") / "long.mcpx.jsonl"
    log = TrafficLog()
    recorder = start_recording(path, log, ServerSpec(command=["python", "server.py"]), era="legacy")
    log.info("spawned python server.py (pid 1)", "process", event="spawned", pid=1)

    def exchange(rid: int, method: str, params: object, result: object) -> None:
        request = Request(rid, method, params)
        log.sent(encode(request.to_obj()), request, "stdio")
        log.received(encode(Response(rid, result).to_obj()).encode(), "stdio")

    info = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "s", "version": "1"},
    }
    exchange(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}, info)
    initialized = Notification("notifications/initialized", None)
    log.sent(encode(initialized.to_obj()), initialized, "stdio")
    exchange(1, "tools/list", None, {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})
    for rid in range(2, CALLS + 2):
        exchange(rid, "tools/call", {"name": "echo", "arguments": {"text": f"hello {rid}"}}, {"content": []})
        if rid % 50 == 0:
            log.stderr(f"handled {rid} calls")
    recorder.close()
    return path


async def test_event_lists_listen_while_a_long_recording_is_read(
    long_recording: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_back: list[int] = []
    many = ColdEvents.many

    def counted(self: ColdEvents, start: int, stop: int):  # type: ignore[no-untyped-def]
        for event in many(self, start, stop):
            read_back.append(event.seq)
            yield event

    decoded: list[int] = []  # events read back from the file one by one (not found in the read cache)
    decode = ColdEvents._decode

    def counted_decode(self: ColdEvents, seq: int, line: bytes) -> Any:
        decoded.append(seq)
        return decode(self, seq, line)

    monkeypatch.setattr(ColdEvents, "many", counted)
    monkeypatch.setattr(ColdEvents, "_decode", counted_decode)
    app = make_replay_app(long_recording, settings=InspectSettings())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: not app.loading and bool(app.query("#problems")), 60.0)
        total = len(app.traffic)
        views = app.panel.views()
        assert len(views) == 5
        await wait_for(pilot, lambda: all(view._scanned == total for view in views), 60.0)
        assert app.traffic.spilled > total // 2  # most of it was on disk while it was shown
        assert read_back == []  # no view read the file back
        # nor did the timeline: it indexed each event as it was read (a scan per batch read most of each
        # batch back: ~2,900 decoded here, 16 now); what was read back is what was shown (rows, the opening)
        assert len(decoded) < 200
        by_id = {view.id: view for view in views}
        assert list(by_id["traffic"].rows) == list(range(total))
        assert len(by_id["stderr"].rows) == CALLS // 50 + 1  # every stderr line, and the spawn
        assert len(by_id["notifications"].rows) == 1  # notifications/initialized
        # the first event, long gone to disk, is read back when the scrubber goes there
        await pilot.press("less_than_sign")
        await wait_for(pilot, lambda: app.moment == 0)
        event = app.panel.traffic_view.event_at_cursor()
        assert event is not None and event.seq == 0 and event.raw.startswith("spawned python server.py")
        # a step repaints what shows the moment, not the whole screen (the app's reactive did)
        await pilot.pause()
        full: list[int] = []
        render_full_update = Compositor.render_full_update

        def counted_full(self: Compositor, *args: Any, **kwargs: Any) -> Any:
            full.append(1)
            return render_full_update(self, *args, **kwargs)

        monkeypatch.setattr(Compositor, "render_full_update", counted_full)
        await pilot.press("full_stop")
        await wait_for(pilot, lambda: app.moment == 1 and "event #1 " in str(app.scrubber.render()))
        await pilot.pause()
        assert getattr(app.panel.traffic_view.event_at_cursor(), "seq", None) == 1
        assert full == []
