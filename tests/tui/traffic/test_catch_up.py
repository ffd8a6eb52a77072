"""A traffic view mounted over a long log (a big recording, most of it on disk) takes it in a piece at a
time — each pump a bounded piece, the next after what is queued (keys go between) — and in the end shows
every event, in order, none twice."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from scripted import wait_for
from textual.app import App, ComposeResult

from mcpx.tui.traffic.traffic_view import TrafficView
from mcpx.tui.widgets import event_list_view, log_feed
from mcpx.wire import Request, TrafficLog, encode
from mcpx.wire.traffic import TrafficEvent


class LogApp(App[None]):
    def __init__(self, log: TrafficLog) -> None:
        super().__init__()
        self.log_shown = log

    def compose(self) -> ComposeResult:
        yield TrafficView(self.log_shown, clock=time.monotonic, id="traffic")


async def test_a_long_log_is_taken_in_by_pieces_and_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    pieces: list[int] = []
    pump = event_list_view.EventListView.pump

    def counted(self: event_list_view.EventListView) -> None:
        before = self._scanned
        pump(self)
        pieces.append(self._scanned - before)

    monkeypatch.setattr(event_list_view.EventListView, "pump", counted)
    log = TrafficLog(keep=500, keep_bytes=1 << 30)  # most of it spills to disk, as a big recording's does
    for n in range(3_000):
        request = Request(n, "tools/call", {"name": "echo", "arguments": {"text": f"hello {n}"}})
        log.sent(encode(request.to_obj()), request, "stdio")
        log.received(f'{{"jsonrpc":"2.0","id":{n},"result":{{}}}}'.encode(), "stdio")
    assert log.spilled > 5_000 and len(log) > 2 * log_feed.CATCH_UP
    app = LogApp(log)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(TrafficView)
        await wait_for(pilot, lambda: view._scanned == len(log))
        assert list(view.rows) == list(range(len(log)))  # every event, in order, none twice
    taken = [n for n in pieces if n]
    assert max(taken) <= log_feed.CATCH_UP and len(taken) >= len(log) // log_feed.CATCH_UP


async def test_events_faster_than_the_pump_are_taken_as_they_come(monkeypatch: pytest.MonkeyPatch) -> None:
    """A recording read in batches (or a flood) appends far more events between two pumps than the view
    may hold: it takes them in as they come instead of holding them all, and reads none back from disk."""
    read_back: list[int] = []
    between = TrafficLog.between

    def counted(self: TrafficLog, start: int, stop: int) -> list[object]:
        events = between(self, start, stop)
        read_back.extend(e.seq for e in events if e.seq < self.spilled)
        return events

    monkeypatch.setattr(TrafficLog, "between", counted)
    log = TrafficLog(keep=500, keep_bytes=1 << 30)
    app = LogApp(log)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(TrafficView)
        held: list[int] = []
        for n in range(3 * log_feed.HELD_ARRIVALS):  # no pump can run in between
            request = Request(n, "tools/call", {"name": "echo", "arguments": {}})
            log.sent(encode(request.to_obj()), request, "stdio")
            held.append(view._feed.held)
        assert max(held) < log_feed.HELD_ARRIVALS
        assert len(view.rows) >= 2 * log_feed.HELD_ARRIVALS  # taken in already, painted at the pump
        await wait_for(pilot, lambda: view._scanned == len(log))
        assert list(view.rows) == list(range(len(log)))
        assert log.spilled > 0 and read_back == []


async def test_a_new_filter_over_a_long_log_is_applied_by_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows of a new filter are found a piece at a time (keys go between: the old rows stay on screen
    meanwhile); events that come meanwhile are taken with the new filter, and in the end every match is
    shown once, in order, the cursor still on its event."""
    log = TrafficLog(keep=500, keep_bytes=1 << 30)

    def exchange(n: int) -> None:
        name = "echo" if n % 3 else "add"
        request = Request(n, "tools/call", {"name": name, "arguments": {"text": f"hello {n}"}})
        log.sent(encode(request.to_obj()), request, "stdio")
        log.received(f'{{"jsonrpc":"2.0","id":{n},"result":{{}}}}'.encode(), "stdio")

    for n in range(3_000):
        exchange(n)
    waiting = Request(9_999, "tools/call", {"name": "add", "arguments": {}})  # answered at the end
    log.sent(encode(waiting.to_obj()), waiting, "stdio")
    app = LogApp(log)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(TrafficView)
        await wait_for(pilot, lambda: view._scanned == len(log))
        view.focus()
        await pilot.press("home", "down", "down")  # the cursor on event 2 (request 1, an echo)
        assert view.event_at_cursor() is log[2]
        pieces: list[tuple[int, int, int]] = []
        iter_between = TrafficLog.iter_between

        def counted(self: TrafficLog, start: int, stop: int) -> Iterator[TrafficEvent]:
            pieces.append((start, stop, len(view.rows)))
            if len(pieces) == 2:
                exchange(3_001)  # (an echo) arrives while the new filter is being applied
            return iter_between(self, start, stop)

        monkeypatch.setattr(TrafficLog, "iter_between", counted)
        shown = len(log)
        view.filter_text = "dir:out echo"
        assert view.catching_up
        await pilot.press("down")  # the cursor goes on to event 3 (in the old rows or the new)
        await wait_for(pilot, lambda: not view.catching_up)
        expected = [e.seq for e in log if e.direction == "out" and '"echo"' in e.raw]
        assert list(view.rows) == expected and expected[-1] == len(log) - 2
        assert len(pieces) > 2 and max(stop - start for start, stop, _ in pieces) <= log_feed.CATCH_UP
        # the old rows stayed on screen meanwhile (with the event that came, once the pump took it)
        assert pieces[0][2] == pieces[1][2] == shown and all(
            rows in (shown, shown + 1) for *_, rows in pieces
        )
        event = view.event_at_cursor()
        assert event is not None and event.seq == 4  # event 3 is not shown now: the next one (request 2)
        # a filter on the answer (status, dur) goes through each piece twice: the same rows, and a request
        # still waiting is shown once it is answered
        view.filter_text = "dir:out status:ok add"
        await wait_for(pilot, lambda: not view.catching_up)
        expected = [e.seq for e in log if e.direction == "out" and '"add"' in e.raw and e.response_seq]
        assert list(view.rows) == expected and len(expected) == 1_000
        log.received(b'{"jsonrpc":"2.0","id":9999,"result":{}}', "stdio")
        await wait_for(pilot, lambda: len(view.rows) == 1_001)
        assert sorted(view.rows) == sorted([*expected, 6_000])


def test_pieces_shrink_after_a_slow_one_and_grow_after_quick_ones() -> None:
    """A piece is sized to take about PIECE_SECONDS (a key waits for it): halved after a slow one, doubled
    after a quick one, within MIN_PIECE … CATCH_UP, left alone in between."""
    pieces = log_feed.Pieces()
    first = pieces.size
    pieces.took(1.0)
    assert pieces.size == first // 2
    for _ in range(20):
        pieces.took(1.0)
    assert pieces.size == log_feed.MIN_PIECE
    for _ in range(20):
        pieces.took(0.0)
    assert pieces.size == log_feed.CATCH_UP
    pieces.took(log_feed.PIECE_SECONDS / 2)
    assert pieces.size == log_feed.CATCH_UP
