"""Pairing answers with requests: the traffic log's index by JSON-RPC id.

A response travels the other way from its request, so a request is open under (its direction, its id)
until an answer comes the other way. A second answer, or one to an id never asked, is flagged on the
event, not dropped. Kept apart from the log's storage (`mcpx.wire.traffic`) so each reads on its own;
it sees the log only through the two callables it is given.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from mcpx.wire.jsonrpc import ErrorResponse, JsonId, Malformed, Message, Notification, Request, Response
from mcpx.wire.traffic_event import Direction, TrafficEvent

#: how many answered request ids are remembered to recognise duplicates
ANSWERED_MEMORY = 10_000

Key = tuple[Direction, JsonId]


class RequestPairing:
    """The requests still open and those answered lately; fills in the pairing fields of events.

    `lookup(seq)` reads an event back by seq (a duplicate answer names its first request's method);
    `spilled_answer(request_seq, event_seq)` is told when the request answered is no longer held as an
    object (it spilled to disk), so the copy on disk learns its answer.
    """

    __slots__ = ("_answered", "_lookup", "_spilled_answer", "first_held", "open")

    def __init__(
        self,
        lookup: Callable[[int], TrafficEvent],
        spilled_answer: Callable[[int, int], None],
    ) -> None:
        self._answered: OrderedDict[Key, int] = OrderedDict()
        self._lookup = lookup
        self._spilled_answer = spilled_answer
        #: (direction, id) -> the request event still waiting for its answer
        self.open: dict[Key, TrafficEvent] = {}
        #: the seq of the oldest event held as an object (the log moves it as events spill)
        self.first_held = 0

    def link(self, event: TrafficEvent, message: Message | None, direction: Direction) -> None:
        """Open a request, or pair an answer with its request (flagging what does not pair)."""
        if type(message) is Response:  # the most common frame first: an answer to a request of ours
            answer_key: Key = ("out" if direction == "in" else "in", message.id)
            request = self.open.pop(answer_key, None)
            if request is not None:
                self._answer(event, request, answer_key)
                return
        if isinstance(message, Request):
            event.method = message.method
            key: Key = (direction, message.id)
            if key in self.open:
                event.flags.append(f"request id {message.id!r} reused while still in flight")
            self.open[key] = event
        elif isinstance(message, Notification):
            event.method = message.method
        elif isinstance(message, (Response, ErrorResponse, Malformed)) and message.id is not None:
            # a response travels the other way from its request
            key = ("out" if direction == "in" else "in", message.id)
            request = self.open.pop(key, None)
            if request is not None:
                self._answer(event, request, key)
            elif not isinstance(message, Malformed):
                first = self._answered.get(key)
                if first is not None:
                    request = self._lookup(first)
                    event.request_seq = first
                    event.method = request.method
                    event.flags.append(
                        f"duplicate answer to {request.method} (id {message.id!r}), "
                        "which was answered already"
                    )
                else:
                    event.flags.append(f"response to id {message.id!r}, which has no request in flight")

    def _answer(self, event: TrafficEvent, request: TrafficEvent, key: Key) -> None:
        """Pair an answer with the request it answers (taken out of the open ones)."""
        event.request_seq = request.seq
        event.method = request.method
        event.latency = event.mono - request.mono
        request.response_seq = event.seq
        if request.seq < self.first_held:
            self._spilled_answer(request.seq, event.seq)  # a long request, answered after it spilled
        answered = self._answered
        answered[key] = request.seq
        if len(answered) > ANSWERED_MEMORY:
            answered.popitem(last=False)
