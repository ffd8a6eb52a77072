"""The read side of a line-delimited pipe (a stdio server's stdout), as an asyncio protocol.

Why a protocol and not asyncio's subprocess streams: a stream costs two extra event-loop iterations per
frame (the subprocess transport defers every chunk by a `call_soon`, then a reader task wakes from
`readuntil`). Here the loop's read callback splits the chunk into lines, appends each to the traffic log
and hands the event to a sink (the peer's dispatch) in the same callback, so a call costs two loop
iterations: the read that resolves the caller's future, and the caller's wake-up.

Without a sink, events queue for the transport's async iterator (tests and tools that iterate a transport
directly); reading pauses while that queue is long.

A relay (`mcpx proxy`) sets `tap`: each chunk read goes to it whole, before it is framed and logged, so
the bytes reach the other side exactly as they came (line endings, blank lines, a frame too long to
log) and as early as they can; `exact` then keeps a frame's `\\r` in the log too.
A read of many frames (a peer that pipelines) is then logged in one batch (`TrafficLog.frames`: one
pass, one recording write), each frame as it would have been alone.

Framing is exact: a frame is the bytes between two newlines (a trailing `\\r` dropped unless `exact`),
handed to the log untouched — invalid UTF-8 is the decoder's business (a flagged frame), not an
exception here. A line that arrives in many chunks is kept as a list of chunks and joined once (a 50 MB
frame costs one copy, not a quadratic series). A line longer than `limit` is skipped to its end and
reported, and the session goes on.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from mcpx.wire import TrafficEvent, TrafficLog
from mcpx.wire.traffic import Channel

Sink = Callable[[TrafficEvent], None]
#: takes each chunk read, whole, before it is framed (a relay's forwarding)
Tap = Callable[[bytes], None]
#: queued events (no sink) above which reading pauses until the iterator catches up
QUEUE_HIGH = 256


class LineReader(asyncio.Protocol):
    def __init__(self, traffic: TrafficLog, channel: Channel, limit: int, sink: Sink | None = None) -> None:
        self._traffic = traffic
        self._received = traffic.received
        self._channel: Channel = channel
        self._limit = limit
        self.sink = sink
        #: a relay's: every chunk, whole, before framing (see the module's docstring)
        self.tap: Tap | None = None
        #: keep a frame's trailing `\r` in the log (a relay records frames byte for byte)
        self.exact = False
        self.queue: deque[TrafficEvent] = deque()
        self._partial: list[bytes] = []
        self._partial_len = 0
        #: bytes skipped so far of a line over the limit (0: not skipping)
        self._skipped = 0
        self._transport: asyncio.ReadTransport | None = None
        self._paused = False
        #: reading stopped by `hold()` (a consumer's back-pressure), apart from the queue's own pause
        self._held = False
        self._waiter: asyncio.Future[None] | None = None
        self._eof_waiter: asyncio.Future[None] | None = None
        #: the pipe reached its end (or was closed)
        self.eof = False
        #: why reading stopped early: an OSError from the pipe, or the sink's own exception
        self.error: BaseException | None = None

    # -- asyncio.Protocol ----------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's pipe transports do not derive from asyncio.ReadTransport; they have its methods
        self._transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.tap is not None:
            try:
                self.tap(data)
            except Exception as exc:
                self._fail(exc)
                return
        end = data.find(b"\n")
        sink = self.sink
        if end == len(data) - 1 and sink is not None and not self._partial and not self._skipped and end > 1:
            # the usual read: exactly one whole frame; straight to the log and the sink
            line = data[:-2] if data[-2] == 13 and not self.exact else data[:-1]  # 13: a CRLF's \r
            try:
                sink(self._received(line, self._channel))
            except Exception as exc:
                self._fail(exc)
            return
        if end < 0:
            self._keep(data)
            return
        start = 0
        if self._partial or self._skipped:
            self._line(self._take(data[:end]))
            start = end + 1
            end = data.find(b"\n", start)
        if self.tap is not None and sink is not None:
            # a relay's read of many frames (a pipelining peer): logged in one batch, the bytes gone on
            lines = []
            exact = self.exact
            while end >= 0:
                line = data[start:end]
                start = end + 1
                end = data.find(b"\n", start)
                if line[-1:] == b"\r":
                    if len(line) == 1:  # a blank CRLF line is no frame
                        continue
                    if not exact:
                        line = line[:-1]
                if line:
                    lines.append(line)
            if lines:
                self._batch(lines, sink)
        while end >= 0:
            self._line(data[start:end])
            start = end + 1
            end = data.find(b"\n", start)
        if start < len(data):
            self._keep(data[start:] if start else data)

    def eof_received(self) -> bool | None:
        return None  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        if self._partial or self._skipped:
            rest = self._take(b"")
            if rest.strip():
                rest = rest if self.exact else rest.rstrip(b"\r")
                self._deliver(self._received(rest, self._channel, {"unterminated": True}))
        if exc is not None and self.error is None:
            self.error = exc
        self.eof = True
        self._wake()
        if self._eof_waiter is not None and not self._eof_waiter.done():
            self._eof_waiter.set_result(None)

    # -- framing -------------------------------------------------------------------------------------
    def _keep(self, chunk: bytes) -> None:
        """Hold the start (or middle) of a line that has not ended yet."""
        if self._skipped:
            self._skipped += len(chunk)
            return
        self._partial.append(chunk)
        self._partial_len += len(chunk)
        if self._partial_len > self._limit:
            self._skipped = self._partial_len
            self._partial.clear()
            self._partial_len = 0

    def _take(self, tail: bytes) -> bytes:
        """The held chunks plus `tail`: the whole line (b"" when it was over the limit and skipped)."""
        if self._skipped:
            skipped, self._skipped = self._skipped + len(tail), 0
            self._traffic.info(f"a line of over {skipped} bytes was dropped", self._channel)
            return b""
        self._partial.append(tail)
        line = b"".join(self._partial)
        self._partial.clear()
        self._partial_len = 0
        return line

    def _line(self, line: bytes) -> None:
        if line[-1:] == b"\r":
            if len(line) == 1:  # a blank CRLF line is no frame
                return
            if not self.exact:
                line = line[:-1]
        if line:
            self._deliver(self._received(line, self._channel))

    def _batch(self, lines: list[bytes], sink: Sink) -> None:
        try:
            for event in self._traffic.frames("in", self._channel, lines):
                sink(event)
        except Exception as exc:
            self._fail(exc)

    def _deliver(self, event: TrafficEvent) -> None:
        sink = self.sink
        if sink is None:
            self.queue.append(event)
            self._wake()
            if len(self.queue) > QUEUE_HIGH and not self._paused and self._transport is not None:
                self._paused = True
                self._transport.pause_reading()
            return
        try:
            sink(event)
        except Exception as exc:
            self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        """The consumer broke: stop reading, let the iterator raise its error."""
        self.error = exc
        self.sink = None
        if self._transport is not None:
            self._transport.close()
        self._wake()

    # -- the iterator's side -------------------------------------------------------------------------
    def use_sink(self, sink: Sink | None) -> None:
        """Hand events to `sink` from now on, those already queued first (in order)."""
        while self.queue and sink is not None:
            sink(self.queue.popleft())
        self.sink = sink
        self._resume()

    def popleft(self) -> TrafficEvent:
        event = self.queue.popleft()
        if self._paused and len(self.queue) < QUEUE_HIGH // 2:
            self._resume()
        return event

    async def wait(self) -> None:
        """Until an event is queued or reading has ended."""
        if self.queue or self.eof:
            return
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None

    async def wait_eof(self) -> None:
        """Until the pipe has ended (whether or not the queue has been read)."""
        if not self.eof:
            if self._eof_waiter is None:
                self._eof_waiter = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._eof_waiter)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def hold(self, held: bool) -> None:
        """Stop reading (or go on) for a consumer that cannot keep up: a proxy whose host is not reading
        what it relays. The pipe then fills and the server's writes wait, as they would on the host."""
        if held == self._held:
            return
        self._held = held
        if self._transport is None:
            return
        if held:
            self._transport.pause_reading()
        elif not self._paused:
            self._transport.resume_reading()

    def _resume(self) -> None:
        if self._paused and self._transport is not None:
            self._paused = False
            if not self._held:
                self._transport.resume_reading()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
