"""What a recorded session was, read off its traffic: the client's requests and what answered them.

The replayer, the mock server and `mcpx diff` all start here. An `Exchange` is one request the client
made with the response that finally settled it; in the modern era that may take several round trips
(an `input_required` result, then the same request again with `inputResponses`), which stay one
exchange. `Answer`s are what the recorded client said when the server asked (elicitation, sampling,
roots): server→client requests in the legacy era, `inputResponses` in the modern one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcpx.record.reader import Recording
from mcpx.wire.jsonrpc import ErrorResponse, Notification, Request, Response
from mcpx.wire.traffic import TrafficEvent

OPENING = ("initialize", "server/discover")
#: client requests that are part of the connection itself, not the session's work
PLUMBING = (*OPENING, "subscriptions/listen")
META_PREFIX = "io.modelcontextprotocol/"
CONTINUATION_KEYS = ("inputResponses", "requestState")
LIST_KEYS: dict[str, str] = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}


@dataclass(slots=True)
class Outcome:
    """How a request ended: a result, or an error object (`{"code", "message", "data"?}`)."""

    result: Any = None
    error: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"error": self.error} if self.error is not None else {"result": self.result}

    @classmethod
    def of(cls, event: TrafficEvent | None) -> Outcome | None:
        message = event.message if event is not None else None
        if isinstance(message, Response):
            return cls(result=message.result)
        if isinstance(message, ErrorResponse):
            error: dict[str, Any] = {"code": message.code, "message": message.message}
            if message.data is not None:
                error["data"] = message.data
            return cls(error=error)
        return None


@dataclass(slots=True)
class Answer:
    """What the recorded client answered when the server asked."""

    method: str
    params: Any
    outcome: Outcome
    #: asked while the client request it belongs to was in flight (False: asked between requests, e.g.
    #: `roots/list` after `notifications/initialized`, and given to the request before it)
    within: bool = True


@dataclass(slots=True)
class Exchange:
    request: TrafficEvent
    method: str
    params: Any
    #: the response that settled it (None: the recording ends before it came)
    response: TrafficEvent | None = None
    #: the modern era's re-sent requests (with inputResponses), in order
    rounds: list[TrafficEvent] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)

    @property
    def seq(self) -> int:
        return self.request.seq

    @property
    def outcome(self) -> Outcome | None:
        return Outcome.of(self.response)

    @property
    def label(self) -> str:
        return describe(self.method, self.params)


def describe(method: str, params: Any) -> str:
    """`tools/call echo`, `resources/read file:///x`: a request as a person names it."""
    if isinstance(params, dict):
        for key in ("name", "uri"):
            value = params.get(key)
            if isinstance(value, str) and method in ("tools/call", "prompts/get", "resources/read"):
                return f"{method} {value}"
        ref = params.get("ref")
        if method == "completion/complete" and isinstance(ref, dict):
            return f"{method} {ref.get('name') or ref.get('uri') or ''}".rstrip()
    return method


def plain_params(params: Any) -> Any:
    """The request's own params: the era's `_meta` envelope and continuation keys taken away."""
    if not isinstance(params, dict):
        return params
    out = {k: v for k, v in params.items() if k not in CONTINUATION_KEYS}
    meta = out.get("_meta")
    if isinstance(meta, dict):
        kept = {
            k: v
            for k, v in meta.items()
            if k != "progressToken" and not (k.startswith(META_PREFIX) and not k.endswith("/logLevel"))
        }
        if kept:
            out["_meta"] = kept
        else:
            del out["_meta"]
    return out


def client_requests(recording: Recording) -> list[Exchange]:
    """The client's requests in order, each with the response that settled it and the answers given."""
    log = recording.log
    exchanges: list[Exchange] = []
    waiting: dict[str, Exchange] = {}  # method → exchange whose last result asked for input
    for event in log:
        message = event.message
        if event.direction != "out" or not isinstance(message, Request):
            continue
        params = message.params
        if isinstance(params, dict) and any(k in params for k in CONTINUATION_KEYS):
            exchange = waiting.pop(message.method, None)
            if exchange is not None:
                _continue(exchange, event, log)
                continue
        exchange = Exchange(event, message.method, params)
        exchange.response = log.find_response(event)
        exchanges.append(exchange)
        if _asks_for_input(exchange.response):
            waiting[message.method] = exchange
    _legacy_answers(recording, exchanges)
    return exchanges


def _asks_for_input(event: TrafficEvent | None) -> bool:
    message = event.message if event is not None else None
    return (
        isinstance(message, Response)
        and isinstance(message.result, dict)
        and message.result.get("resultType") == "input_required"
    )


def _continue(exchange: Exchange, event: TrafficEvent, log: Any) -> None:
    asked = exchange.response.message.result if exchange.response is not None else None  # type: ignore[union-attr]
    requests = asked.get("inputRequests") if isinstance(asked, dict) else None
    given = event.message.params.get("inputResponses") if isinstance(event.message, Request) else None
    if isinstance(requests, dict) and isinstance(given, dict):
        for key, request in requests.items():
            if isinstance(request, dict) and isinstance(request.get("method"), str) and key in given:
                exchange.answers.append(
                    Answer(request["method"], request.get("params"), Outcome(result=given[key]))
                )
    exchange.rounds.append(event)
    exchange.response = log.find_response(event)


def _legacy_answers(recording: Recording, exchanges: list[Exchange]) -> None:
    """Server→client requests, each given to the client request in flight when it came."""
    log = recording.log
    open_exchanges = sorted(exchanges, key=lambda x: x.seq)
    for event in log:
        if event.direction != "in" or not isinstance(event.message, Request):
            continue
        outcome = Outcome.of(log.find_response(event))
        if outcome is None:
            continue
        answer = Answer(event.message.method, event.message.params, outcome)
        owner = None
        for exchange in open_exchanges:
            end = exchange.response.seq if exchange.response is not None else len(log)
            if exchange.seq < event.seq < end:
                owner = exchange
        if owner is not None:
            owner.answers.append(answer)
        else:
            before = [x for x in open_exchanges if x.seq < event.seq] or open_exchanges
            if before:
                answer.within = False
                before[-1].answers.append(answer)


def all_answers(exchanges: list[Exchange]) -> list[Answer]:
    return [answer for exchange in exchanges for answer in exchange.answers]


def client_notifications(recording: Recording) -> list[TrafficEvent]:
    """Notifications the client sent that are worth sending again (not `initialized`, not `cancelled`)."""
    skip = {"notifications/initialized", "notifications/cancelled", "notifications/progress"}
    return [
        e
        for e in recording.log
        if e.direction == "out" and isinstance(e.message, Notification) and e.message.method not in skip
    ]


def client_identity(recording: Recording) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """(clientInfo, client capabilities) the recorded client announced."""
    for event in recording.log:
        message = event.message
        if event.direction != "out" or not isinstance(message, Request):
            continue
        if not isinstance(message.params, dict):
            continue
        if message.method == "initialize":
            info, caps = message.params.get("clientInfo"), message.params.get("capabilities")
        else:
            meta = message.params.get("_meta")
            if not isinstance(meta, dict) or META_PREFIX + "clientInfo" not in meta:
                continue
            info, caps = meta.get(META_PREFIX + "clientInfo"), meta.get(META_PREFIX + "clientCapabilities")
        return (info if isinstance(info, dict) else None), (caps if isinstance(caps, dict) else {})
    return None, {}


def listings(exchanges: list[Exchange]) -> dict[str, list[Any]]:
    """The last complete listing of each catalogue (pages followed through `nextCursor`)."""
    done: dict[str, list[Any]] = {}
    current: dict[str, list[Any]] = {}
    for exchange in exchanges:
        key = LIST_KEYS.get(exchange.method)
        outcome = exchange.outcome
        if key is None or outcome is None or not isinstance(outcome.result, dict):
            continue
        cursor = exchange.params.get("cursor") if isinstance(exchange.params, dict) else None
        if cursor is None:
            current[key] = []
        items = outcome.result.get(key)
        current.setdefault(key, []).extend(items if isinstance(items, list) else [])
        if outcome.result.get("nextCursor") is None:
            done[key] = current.pop(key)
    return done
