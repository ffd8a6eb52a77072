"""The proxy's traffic log lets its oldest events go instead of spilling them to a second file.

A live session's log spills its old events to a temporary file so that nothing is lost (`wire.spill`).
A proxied session has nothing to lose there: every event is already in its recording, written as it
happened, and nothing in the proxy reads old events back (`mcpx inspect --attach` reads the recording).
Spilling cost the relay about a sixth of its time per frame (each event serialised a second time and
written again). So the proxy's log keeps its newest events and its links, and an old event asked for
(only the duplicate-answer check does) comes back as a stub that says where the event is.
"""

from __future__ import annotations

from collections.abc import Iterator

from mcpx.wire.spill import ColdEvents
from mcpx.wire.traffic import TrafficEvent


class ForgottenEvents(ColdEvents):
    def __init__(self, started_mono: float) -> None:
        super().__init__(started_mono)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def put(self, events: list[TrafficEvent]) -> None:
        self._count += len(events)

    def answered(self, seq: int, response_seq: int) -> None:
        pass

    def flagged(self, seq: int, problem: str) -> None:
        pass

    def get(self, seq: int) -> TrafficEvent:
        if not 0 <= seq < self._count:
            raise IndexError(seq)
        return TrafficEvent(seq, 0.0, 0.0, "info", "protocol", "(an older event: it is in the recording)")

    def many(self, start: int, stop: int) -> Iterator[TrafficEvent]:
        for seq in range(start, min(stop, self._count)):
            yield self.get(seq)
