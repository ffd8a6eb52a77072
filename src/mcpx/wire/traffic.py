"""The traffic log: every frame read or written and every transport fact, in order.

The log is the truth of a session. Transports append to it before anything else looks at a frame; the
CLI's `--traffic`, the TUI and recordings are views or copies of it. It is append-only and indexed by
JSON-RPC id so a response finds its request (and so its method and latency).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpx.wire.jsonrpc import (
    Decoded,
    ErrorResponse,
    JsonId,
    Malformed,
    Message,
    Notification,
    Request,
    Response,
    decode,
)

Direction = Literal["in", "out", "info"]
#: how many answered request ids the log remembers to recognise duplicates
ANSWERED_MEMORY = 10_000
Channel = Literal["stdio", "stderr", "http", "sse", "process", "protocol", "memory"]


@dataclass(slots=True, eq=False)
class TrafficEvent:
    """One thing that happened on the connection.

    `raw` is the text exactly as it crossed the wire (for `info` events: a sentence). `message` is the
    decoded JSON-RPC message, or None for transport facts and stderr lines. `facts` holds what the
    transport knew (HTTP status, SSE event id, pid, exit code, …); `flags` what was odd about the frame.
    """

    seq: int
    mono: float
    wall: float
    direction: Direction
    channel: Channel
    raw: str
    message: Message | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    # Filled in by the log when a response meets its request.
    request_seq: int | None = None
    response_seq: int | None = None
    latency: float | None = None
    method: str | None = None

    @property
    def kind(self) -> str:
        """request / notification / response / error / malformed / stderr / info."""
        msg = self.message
        if msg is None:
            return "stderr" if self.channel == "stderr" else "info"
        if isinstance(msg, Request):
            return "request"
        if isinstance(msg, Notification):
            return "notification"
        if isinstance(msg, Response):
            return "response"
        if isinstance(msg, ErrorResponse):
            return "error"
        return "malformed"

    @property
    def rpc_id(self) -> JsonId | None:
        msg = self.message
        if msg is None or isinstance(msg, Notification):
            return None
        return msg.id


Listener = Callable[[TrafficEvent], None]
FlagListener = Callable[[TrafficEvent, str], None]


class TrafficLog:
    """Append-only, index-addressable store of `TrafficEvent`s with listeners.

    Listeners run synchronously on append, in the order they subscribed; one that raises is removed and
    the error kept in `listener_errors` (a broken view must not break the connection).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time):
        self._events: list[TrafficEvent] = []
        self._listeners: list[Listener] = []
        self._flag_listeners: list[FlagListener] = []
        #: recently answered requests, so a second answer is called a duplicate
        self._answered: OrderedDict[tuple[str, JsonId], int] = OrderedDict()
        self._open: dict[tuple[str, JsonId], TrafficEvent] = {}
        self._clock = clock
        self._wall = wall
        self.started_mono = clock()
        self.started_wall = wall()
        self.listener_errors: list[BaseException] = []

    # -- reading -------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._events)

    def __getitem__(self, index: int) -> TrafficEvent:
        return self._events[index]

    def __iter__(self) -> Iterator[TrafficEvent]:
        return iter(self._events)

    def since(self, seq: int) -> list[TrafficEvent]:
        return self._events[seq:]

    def find_request(self, event: TrafficEvent) -> TrafficEvent | None:
        return None if event.request_seq is None else self._events[event.request_seq]

    def find_response(self, event: TrafficEvent) -> TrafficEvent | None:
        return None if event.response_seq is None else self._events[event.response_seq]

    # -- listening -----------------------------------------------------------------------------------
    def subscribe(self, listener: Listener, *, replay: bool = False) -> Callable[[], None]:
        """Call `listener` for every new event (and, with replay, for those already here)."""
        if replay:
            for event in list(self._events):
                listener(event)
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    # -- appending -----------------------------------------------------------------------------------
    def received(self, raw: bytes, channel: Channel, facts: dict[str, Any] | None = None) -> TrafficEvent:
        """Decode a frame that came in and append it. Returns the event (its `.message` is the decode)."""
        decoded = decode(raw)
        return self._append_decoded("in", channel, decoded, facts)

    def received_decoded(
        self, decoded: Decoded, channel: Channel, facts: dict[str, Any] | None = None
    ) -> TrafficEvent:
        return self._append_decoded("in", channel, decoded, facts)

    def sent(
        self, text: str, message: Message, channel: Channel, facts: dict[str, Any] | None = None
    ) -> TrafficEvent:
        """Append a frame we wrote (`text` is exactly what went on the wire)."""
        return self._append_decoded("out", channel, Decoded(text, message), facts)

    def info(self, text: str, channel: Channel, /, **facts: Any) -> TrafficEvent:
        """Append a transport or protocol fact (process spawned, stream opened, era chosen, …)."""
        return self._append("info", channel, text, None, facts, [])

    def stderr(self, line: str, flags: list[str] | None = None) -> TrafficEvent:
        return self._append("in", "stderr", line, None, {}, flags or [])

    def flag(self, event: TrafficEvent, problem: str) -> None:
        """Attach a diagnostic to an event already in the log (a protocol problem found later)."""
        event.flags.append(problem)
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
        self, direction: Direction, channel: Channel, decoded: Decoded, facts: dict[str, Any] | None
    ) -> TrafficEvent:
        message = decoded.message
        flags = decoded.flags
        if isinstance(message, Malformed):
            flags = [f"not a JSON-RPC message: {message.reason}", *flags]
        event = self._append(direction, channel, decoded.text, message, facts or {}, flags, notify=False)
        self._link(event, message, direction)
        self._notify(event)
        return event

    def _append(
        self,
        direction: Direction,
        channel: Channel,
        raw: str,
        message: Message | None,
        facts: dict[str, Any],
        flags: list[str],
        notify: bool = True,
    ) -> TrafficEvent:
        event = TrafficEvent(
            len(self._events), self._clock(), self._wall(), direction, channel, raw, message, facts, flags
        )
        self._events.append(event)
        if notify:
            self._notify(event)
        return event

    def _link(self, event: TrafficEvent, message: Message | None, direction: Direction) -> None:
        if isinstance(message, Request):
            event.method = message.method
            key = (direction, message.id)
            if key in self._open:
                event.flags.append(f"request id {message.id!r} reused while still in flight")
            self._open[key] = event
        elif isinstance(message, Notification):
            event.method = message.method
        elif isinstance(message, (Response, ErrorResponse, Malformed)) and message.id is not None:
            # a response travels the other way from its request
            origin: Direction = "out" if direction == "in" else "in"
            key = (origin, message.id)
            request = self._open.pop(key, None)
            if request is not None:
                event.request_seq = request.seq
                event.method = request.method
                event.latency = event.mono - request.mono
                request.response_seq = event.seq
                self._answered[key] = request.seq
                if len(self._answered) > ANSWERED_MEMORY:
                    self._answered.popitem(last=False)
            elif not isinstance(message, Malformed):
                first = self._answered.get(key)
                if first is not None:
                    request = self._events[first]
                    event.request_seq = first
                    event.method = request.method
                    event.flags.append(
                        f"duplicate answer to {request.method} (id {message.id!r}), "
                        "which was answered already"
                    )
                else:
                    event.flags.append(f"response to id {message.id!r}, which has no request in flight")

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
