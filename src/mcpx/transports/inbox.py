"""`Inbox`: what a transport's readers received, in arrival order, for the peer to drain (or, with a sink,
handed on as it is put). Shared by the Streamable HTTP and the legacy SSE transports."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from mcpx.wire import TrafficEvent


@dataclass(slots=True)
class _End:
    error: BaseException | None


class Inbox:
    """Received events in arrival order, from every stream a transport reads, for the peer to drain.

    With a sink set (`PushReceiving`), each event goes to the sink as it is put, in the reading task
    itself, and only the end is queued: no reader task wakes per frame. A sink that raises ends the
    inbox with its error, which the iterator raises."""

    def __init__(self, sink: Callable[[TrafficEvent], None] | None = None) -> None:
        self._queue: asyncio.Queue[TrafficEvent | _End] = asyncio.Queue()
        self.ended = False
        self.sink = sink

    def put(self, event: TrafficEvent) -> None:
        if self.ended:
            return
        sink = self.sink
        if sink is None:
            self._queue.put_nowait(event)
            return
        try:
            sink(event)
        except Exception as exc:
            self.sink = None
            self.end(exc)

    def use_sink(self, sink: Callable[[TrafficEvent], None] | None) -> None:
        """Hand events to `sink` from now on, those already queued first (in order)."""
        held: list[TrafficEvent | _End] = []
        while not self._queue.empty():
            held.append(self._queue.get_nowait())
        self.sink = sink
        for item in held:
            if isinstance(item, _End) or self.sink is None:
                self._queue.put_nowait(item)
                continue
            try:
                self.sink(item)
            except Exception as exc:
                self.sink = None
                self._queue.put_nowait(_End(exc))  # (an end already queued after it is never reached)
                self.ended = True

    def end(self, error: BaseException | None = None) -> None:
        if not self.ended:
            self.ended = True
            self._queue.put_nowait(_End(error))

    async def events(self) -> AsyncIterator[TrafficEvent]:
        while True:
            item = await self._queue.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item
