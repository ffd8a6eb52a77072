"""The traffic log: every frame read or written and every transport fact, in order.

The log is the truth of a session. Transports append to it before anything else looks at a frame; the
CLI's `--traffic`, the TUI and recordings are views or copies of it. It is append-only and indexed by
JSON-RPC id so a response finds its request (and so its method and latency).

It holds its newest events as objects and lets the older ones spill to an on-disk log in the recording
format (`mcpx.wire.spill`), read back by seq when asked for: a day-long session stays within a bounded
memory and nothing is dropped. Readers see one sequence either way (`log[seq]`, iteration, `since`).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

from mcpx.wire.jsonrpc import Decoded, JsonId, Malformed, Message, decode, decode_clean, long_numbers
from mcpx.wire.pairing import RequestPairing
from mcpx.wire.secret_policy import SecretPolicy
from mcpx.wire.traffic_event import (
    CHANNELS,
    DIRECTIONS,
    EVENT_KINDS,
    REQUEST_ENDED,
    REQUEST_OUTCOMES,
    SEQ_TYPECODE,
    BatchListener,
    Channel,
    Direction,
    EventKind,
    FlagListener,
    Listener,
    RequestOutcome,
    TrafficEvent,
)

if TYPE_CHECKING:
    from mcpx.wire.spill import ColdEvents

__all__ = [
    "CHANNELS",
    "DIRECTIONS",
    "EVENT_KINDS",
    "REQUEST_ENDED",
    "REQUEST_OUTCOMES",
    "SEQ_TYPECODE",
    "BatchListener",
    "Channel",
    "Direction",
    "EventKind",
    "FlagListener",
    "Listener",
    "RequestOutcome",
    "TrafficEvent",
    "TrafficLog",
]

#: events held as objects before the oldest spill to disk, and the raw text they may hold
KEEP_EVENTS = 5_000
KEEP_BYTES = 8 << 20


class TrafficLog:
    """Append-only, index-addressable store of `TrafficEvent`s with listeners.

    Listeners run synchronously on append, in the order they subscribed; one that raises is removed and
    the error kept in `listener_errors` (a broken view must not break the connection).

    Once more than `keep` events (or `keep_bytes` of raw text) are held, the oldest quarter spill to
    `cold` (a temporary file unless given; `keep=None` never spills). A spilled event read back is a new
    object each time it leaves the read cache: hold seqs, not events, across a long session.

    `secrets` is the session's secret policy: the log keeps exact bytes, and every view or file that shows
    them masks through it (transports teach it the secret values they are given or see).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        *,
        secrets: SecretPolicy | None = None,
        keep: int | None = KEEP_EVENTS,
        keep_bytes: int = KEEP_BYTES,
        cold: ColdEvents | None = None,
    ):
        # the events held as objects are seq `base` on; readers take `_window` in one read, so a spill
        # in the loop's thread never shows another thread a half-moved log
        self._hot: list[TrafficEvent] = []
        self._window: tuple[int, list[TrafficEvent]] = (0, self._hot)
        self._hot_bytes = 0
        self._keep = keep
        self._keep_bytes = keep_bytes
        self._cold = cold
        self._listeners: list[Listener] = []
        #: a listener's way of taking a batch of events at once, where it has one
        self._batch: dict[Listener, BatchListener] = {}
        self._flag_listeners: list[FlagListener] = []
        #: which requests are open, which answered lately (so a second answer is called a duplicate)
        self._pairing = RequestPairing(self.__getitem__, self._spilled_answer)
        self._link = self._pairing.link
        #: requests that ended without an answer: request seq -> the `request-ended` event's seq, and back
        self._endings: dict[int, int] = {}
        self._ended_requests: dict[int, int] = {}
        self._clock = clock
        self._wall = wall
        self.started_mono = clock()
        self.started_wall = wall()
        self.listener_errors: list[BaseException] = []
        self.secrets = secrets if secrets is not None else SecretPolicy()

    # -- reading -------------------------------------------------------------------------------------
    def __len__(self) -> int:
        base, hot = self._window
        return base + len(hot)

    def __getitem__(self, index: int) -> TrafficEvent:
        base, hot = self._window
        if index < 0:
            index += base + len(hot)
        if index >= base:
            return hot[index - base]
        if index < 0 or self._cold is None:
            raise IndexError(index)
        return self._cold.get(index)

    def __iter__(self) -> Iterator[TrafficEvent]:
        base, hot = self._window
        if base and self._cold is not None:
            yield from self._cold.many(0, base)
        yield from hot[:]  # a copy: events appended meanwhile are not part of this pass

    def since(self, seq: int) -> list[TrafficEvent]:
        base, hot = self._window
        if seq >= base:
            return hot[seq - base :]
        older = list(self._cold.many(max(0, seq), base)) if self._cold is not None else []
        return older + hot[:]

    def between(self, start: int, stop: int) -> list[TrafficEvent]:
        """Events start … stop-1 (those on disk read in large pieces, as `since` reads them)."""
        base, hot = self._window
        stop = min(stop, base + len(hot))
        start = max(0, start)
        if start >= base:
            return hot[start - base : stop - base]
        older = list(self._cold.many(start, min(stop, base))) if self._cold is not None else []
        return older + (hot[: stop - base] if stop > base else [])

    def iter_between(self, start: int, stop: int) -> Iterator[TrafficEvent]:
        """`between` one event at a time: those on disk are decoded as they are reached, not held together."""
        base, hot = self._window
        stop = min(stop, base + len(hot))
        start = max(0, start)
        if start < base and self._cold is not None:
            yield from self._cold.many(start, min(stop, base))
        if stop > base:
            yield from hot[max(start, base) - base : stop - base]

    @property
    def spilled(self) -> int:
        """How many of the oldest events live on disk rather than in memory."""
        return self._window[0]

    def find_request(self, event: TrafficEvent) -> TrafficEvent | None:
        return None if event.request_seq is None else self[event.request_seq]

    def find_response(self, event: TrafficEvent) -> TrafficEvent | None:
        return None if event.response_seq is None else self[event.response_seq]

    def ending_of(self, request_seq: int) -> TrafficEvent | None:
        """The `request-ended` event of a request that ended without an answer, or None."""
        ending = self._endings.get(request_seq)
        return None if ending is None else self[ending]

    def ended_request(self, event: TrafficEvent) -> int | None:
        """The seq of the request that a `request-ended` event ends (None for any other event)."""
        return self._ended_requests.get(event.seq)

    # -- listening -----------------------------------------------------------------------------------
    def subscribe(
        self, listener: Listener, *, replay: bool = False, batch: BatchListener | None = None
    ) -> Callable[[], None]:
        """Call `listener` for every new event (and, with replay, for those already here); `batch`, if
        given, takes the events of a `frames()` call in one call instead (in order, as `listener` would)."""
        if replay:
            for event in self:
                listener(event)
        self._listeners.append(listener)
        if batch is not None:
            self._batch[listener] = batch

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
                self._batch.pop(listener, None)

        return unsubscribe

    # -- appending -----------------------------------------------------------------------------------
    def received(self, raw: bytes, channel: Channel, facts: dict[str, Any] | None = None) -> TrafficEvent:
        """Decode a frame that came in and append it. Returns the event (its `.message` is the decode)."""
        # the usual frame (valid UTF-8, a well-formed message) in one step, without a `Decoded`; anything
        # odd is decoded again by `decode()`, which says what is odd about it
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return self._append_decoded("in", channel, decode(raw), facts)
        message = decode_clean(raw, text)
        if message is None:
            return self._append_decoded("in", channel, decode(raw), facts)
        return self._append("in", channel, text, message, facts, [])

    def received_decoded(
        self,
        decoded: Decoded,
        channel: Channel,
        facts: dict[str, Any] | None = None,
        *,
        malformed_is_problem: bool = True,
    ) -> TrafficEvent:
        """Append a received frame decoded already. `malformed_is_problem=False` logs a body that is not
        JSON-RPC without blaming the server for it (an HTTP refusal mcpx's own transport probe expects)."""
        return self._append_decoded("in", channel, decoded, facts, malformed_is_problem)

    def sent(
        self, text: str, message: Message, channel: Channel, facts: dict[str, Any] | None = None
    ) -> TrafficEvent:
        """Append a frame we wrote (`text` is exactly what went on the wire)."""
        return self._append("out", channel, text, message, facts, [])

    def sent_raw(self, raw: bytes, channel: Channel, facts: dict[str, Any] | None = None) -> TrafficEvent:
        """Decode a frame going out as the bytes it is (a proxy relaying someone else's frame) and append
        it; like `received`, invalid UTF-8 keeps its exact bytes in the facts."""
        return self._append_decoded("out", channel, decode(raw), facts)

    def frames(
        self, direction: Literal["in", "out"], channel: Channel, lines: list[bytes]
    ) -> list[TrafficEvent]:
        """Decode and append the frames of one read at once (a relay's chunk of pipelined frames), each as
        `received` or `sent_raw` would, with the read's one time; listeners hear of them after the last,
        a batch listener in one call. Returns the events."""
        hot, base = self._hot, self._window[0]
        mono, wall = self._clock(), self._wall()
        link, size = self._link, 0
        start = len(hot)
        short = not long_numbers(b"\n".join(lines))
        for line in lines:
            try:
                text = line.decode("utf-8")
                message = decode_clean(line, text, short)
            except UnicodeDecodeError:
                message = None
            flags: list[str] = []
            facts: dict[str, Any] = {}
            if message is None:  # anything odd is said by the whole decode (flags, exact bytes)
                decoded = decode(line)
                text, message = decoded.text, decoded.message
                flags, facts = _odd(decoded, None)
            event = TrafficEvent(base + len(hot), mono, wall, direction, channel, text, message, facts, flags)
            hot.append(event)
            size += len(text)
            link(event, message, direction)
        self._hot_bytes += size
        events = hot[start:]
        keep = self._keep
        if keep is not None and (len(hot) > keep or self._hot_bytes > self._keep_bytes):
            self._spill_if_full()
        for listener in tuple(self._listeners):
            batch = self._batch.get(listener)
            try:
                if batch is not None:
                    batch(events)
                else:
                    for event in events:
                        listener(event)
            except Exception as exc:
                self.listener_errors.append(exc)
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return events

    def info(self, text: str, channel: Channel, /, **facts: Any) -> TrafficEvent:
        """Append a transport or protocol fact (process spawned, stream opened, era chosen, …)."""
        if facts.get("event") != REQUEST_ENDED:
            return self._append("info", channel, text, None, facts, [])
        event = self._append("info", channel, text, None, facts, [], notify=False)
        rid = facts.get("id")  # from a recording, anything at all
        request = self._pairing.open.get(("out", rid)) if isinstance(rid, (int, str)) else None
        if request is not None and request.seq not in self._endings and request.response_seq is None:
            self._endings[request.seq] = event.seq
            self._ended_requests[event.seq] = request.seq
        self._spill_if_full()
        self._notify(event)
        return event

    def unanswered(self, request_id: JsonId, outcome: RequestOutcome, reason: str) -> TrafficEvent | None:
        """Record that our request `request_id` ends with no answer: `outcome` and why, as an info event.

        The request stays open, so a late answer still finds it (and is flagged as late by the peer);
        its row keeps the outcome. Nothing is recorded for a request already answered or ended.
        """
        request = self._pairing.open.get(("out", request_id))
        if request is None or request.response_seq is not None or request.seq in self._endings:
            return None
        text = f"{request.method} (id {request_id!r}) {outcome}: {reason}"
        return self.info(text, "protocol", event=REQUEST_ENDED, outcome=outcome, id=request_id)

    def stderr(self, line: str, flags: list[str] | None = None) -> TrafficEvent:
        return self._append("in", "stderr", line, None, {}, flags or [])

    def flag(self, event: TrafficEvent, problem: str) -> None:
        """Attach a diagnostic to an event already in the log (a protocol problem found later)."""
        event.flags.append(problem)
        if event.seq < self._window[0] and self._cold is not None:
            self._cold.flagged(event.seq, problem)
        for listener in tuple(self._flag_listeners):
            try:
                listener(event, problem)
            except Exception as exc:
                self.listener_errors.append(exc)
                self._flag_listeners.remove(listener)

    def subscribe_flags(self, listener: FlagListener) -> Callable[[], None]:
        """Call `listener(event, problem)` when a problem is attached to an event after it was appended."""
        self._flag_listeners.append(listener)
        return lambda: self._flag_listeners.remove(listener) if listener in self._flag_listeners else None

    def _append_decoded(
        self,
        direction: Direction,
        channel: Channel,
        decoded: Decoded,
        facts: dict[str, Any] | None,
        malformed_is_problem: bool = True,
    ) -> TrafficEvent:
        flags, facts = _odd(decoded, facts, malformed_is_problem)
        return self._append(direction, channel, decoded.text, decoded.message, facts, flags)

    def _append(
        self,
        direction: Direction,
        channel: Channel,
        raw: str,
        message: Message | None,
        facts: dict[str, Any] | None,
        flags: list[str],
        notify: bool = True,
    ) -> TrafficEvent:
        # every frame of every call comes through here: the spill check and the listeners cost nothing
        # when there is nothing to do, and only a frame has a request to pair
        hot = self._hot
        event = TrafficEvent(
            self._window[0] + len(hot),
            self._clock(),
            self._wall(),
            direction,
            channel,
            raw,
            message,
            facts or {},
            flags,
        )
        hot.append(event)
        self._hot_bytes += len(raw)
        if message is not None:
            self._link(event, message, direction)
        if notify:
            keep = self._keep
            if keep is not None and (len(hot) > keep or self._hot_bytes > self._keep_bytes):
                self._spill_if_full()
            if self._listeners:
                self._notify(event)
        return event

    def _spill_if_full(self) -> None:
        keep = self._keep
        if keep is None or (len(self._hot) <= keep and self._hot_bytes <= self._keep_bytes):
            return
        # down to three quarters of both bounds, in one write; the newest event always stays
        hot, size = self._hot, self._hot_bytes
        count, bytes_left = 0, size
        while count < len(hot) - 1 and (
            len(hot) - count > keep * 3 // 4 or bytes_left > self._keep_bytes * 3 // 4
        ):
            bytes_left -= len(hot[count].raw)
            count += 1
        if self._cold is None:
            from mcpx.wire.spill import ColdEvents  # only a long session pays for the import

            self._cold = ColdEvents(self.started_mono)
        self._cold.put(hot[:count])
        rest = hot[count:]
        self._hot, self._hot_bytes = rest, bytes_left
        self._window = (self._window[0] + count, rest)
        self._pairing.first_held = self._window[0]

    def _spilled_answer(self, request_seq: int, event_seq: int) -> None:
        if self._cold is not None:
            self._cold.answered(request_seq, event_seq)

    def _notify(self, event: TrafficEvent) -> None:
        for listener in tuple(self._listeners):
            try:
                listener(event)
            except Exception as exc:
                self.listener_errors.append(exc)
                if listener in self._listeners:
                    self._listeners.remove(listener)

    def elapsed(self, event: TrafficEvent) -> float:
        return event.mono - self.started_mono


def _odd(
    decoded: Decoded, facts: dict[str, Any] | None, malformed_is_problem: bool = True
) -> tuple[list[str], dict[str, Any]]:
    """The flags and facts of a frame the whole decode was needed for: why it is malformed, its exact
    bytes when `raw` is not them (invalid UTF-8)."""
    flags = decoded.flags
    message = decoded.message
    if isinstance(message, Malformed) and malformed_is_problem:
        flags = [f"not a JSON-RPC message: {message.reason}", *flags]
    if decoded.wire is not None:  # `raw` is not the wire's bytes: keep those too, exactly
        facts = {**(facts or {}), "wire_base64": base64.b64encode(decoded.wire).decode("ascii")}
    return flags, facts or {}
