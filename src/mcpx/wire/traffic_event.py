"""One event of the traffic log, and the words that describe events (directions, channels, kinds).

Everything that reads traffic (views, recordings, checks, the proxy) speaks in these; the log that
appends and pairs them is `mcpx.wire.traffic`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from mcpx.wire.jsonrpc import ErrorResponse, JsonId, Message, Notification, Request, Response

Direction = Literal["in", "out", "info"]
#: where an event came from: a frame's transport, the server's stderr, a process or protocol fact
Channel = Literal["stdio", "stderr", "http", "sse", "process", "protocol", "memory"]
#: what an event is (`TrafficEvent.kind`)
EventKind = Literal["request", "notification", "response", "error", "malformed", "stderr", "info"]
#: the same words as values, for checks and messages (derived: the Literals above are the one spelling)
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
CHANNELS: tuple[Channel, ...] = get_args(Channel)
EVENT_KINDS: tuple[EventKind, ...] = get_args(EventKind)
#: how a request of ours ended without an answer (recorded by the peer as a `request-ended` info event)
RequestOutcome = Literal["cancelled", "timed out", "no answer"]
REQUEST_OUTCOMES: tuple[RequestOutcome, ...] = get_args(RequestOutcome)
#: the `facts["event"]` of the info event that ends a request without an answer
REQUEST_ENDED = "request-ended"
#: the `array` typecode of sequence numbers kept in bulk (indexes, a view's rows): 4 bytes, 2**31 events
SEQ_TYPECODE = "i"


@dataclass(slots=True, eq=False)
class TrafficEvent:
    """One thing that happened on the connection.

    `raw` is the text exactly as it crossed the wire (for `info` events: a sentence). `message` is the
    decoded JSON-RPC message, or None for transport facts and stderr lines. `facts` holds what the
    transport knew (HTTP status, SSE event id, pid, exit code, …); `flags` what was odd about the frame.
    A frame that was not valid UTF-8 is `raw` with replacement characters, and its exact bytes are in
    `facts["wire_base64"]`.
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
    def kind(self) -> EventKind:
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
#: takes the events of one `frames()` call together (a recorder writing them with one write)
BatchListener = Callable[[list[TrafficEvent]], None]
FlagListener = Callable[[TrafficEvent, str], None]
