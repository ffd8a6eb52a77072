"""The traffic log's filter syntax, parsed into one fast predicate (no Textual here).

    tools/call                 free text: a case-insensitive substring of the raw frame
    "two words"                quoted free text
    method:tools/call          the method (of a request or notification, or of the request a response
                               answers); a substring, or a glob with * and ?
    dir:in  dir:out  dir:info  direction (also ← → •)
    status:error  status:ok  status:malformed  status:pending  status:-32601
    id:7                       JSON-RPC id (a request and its response share it)
    dur:>500ms  dur:<=2s       latency of a response, or of the response to a request (ms, s, us)
    kind:notification          request, notification, response, error, malformed, stderr, info
    channel:stderr             stdio, stderr, http, sse, process, protocol
    is:flagged                 events with a protocol problem attached
    -method:ping               a leading - negates any term
    method:tools/list,prompts/list   a comma means "any of"

Terms combine with AND. Unknown `key:` prefixes are free text (so `memo://x` searches for itself).
"""

from __future__ import annotations

import fnmatch
import operator
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from mcpx.wire.jsonrpc import ErrorResponse, Malformed, Notification, Request, Response
from mcpx.wire.traffic import TrafficEvent, TrafficLog

Predicate = Callable[[TrafficEvent], bool]

KEYS = ("method", "dir", "status", "id", "dur", "kind", "channel", "is")
_DIRS = {"in": "in", "<": "in", "←": "in", "out": "out", ">": "out", "→": "out", "info": "info", "•": "info"}
_KINDS = ("request", "notification", "response", "error", "malformed", "stderr", "info")
_CHANNELS = ("stdio", "stderr", "http", "sse", "process", "protocol", "memory")
_STATUS_WORDS = ("ok", "error", "malformed", "pending")
_DUR = re.compile(r"^(>=|<=|>|<|=)?\s*(\d+(?:\.\d*)?|\.\d+)\s*(us|µs|ms|s|m)?$")
_UNITS = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, None: 1e-3}
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
    "=": lambda a, b: abs(a - b) < 5e-4,
}


class FilterError(ValueError):
    """The filter text cannot be understood; the message says which term and why."""


@dataclass(frozen=True, slots=True)
class Term:
    key: str  # one of KEYS, or "text"
    values: tuple[str, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class TrafficFilter:
    """A parsed filter. `compile(log)` gives the predicate; an empty filter matches everything."""

    text: str = ""
    terms: tuple[Term, ...] = field(default_factory=tuple)

    @classmethod
    def parse(cls, text: str) -> TrafficFilter:
        try:
            words = shlex.split(text)
        except ValueError:  # an unbalanced quote while typing: take the words as they are
            words = text.replace('"', " ").replace("'", " ").split()
        terms: list[Term] = []
        for word in words:
            negated = word.startswith("-") and len(word) > 1 and not _looks_numeric(word)
            body = word[1:] if negated else word
            key, sep, value = body.partition(":")
            if sep and key.lower() in KEYS:
                key = key.lower()
                values = tuple(v for v in value.split(",") if v)
                if not values:
                    raise FilterError(f"{word!r}: {key}: needs a value")
                for v in values:
                    _check(key, v, word)
                terms.append(Term(key, values, negated))
            else:
                terms.append(Term("text", (body,), negated))
        return cls(text, tuple(terms))

    @property
    def is_empty(self) -> bool:
        return not self.terms

    @property
    def depends_on_response(self) -> bool:
        """True when a request's match can change once its response arrives (status, dur)."""
        return any(t.key in ("status", "dur") for t in self.terms)

    def compile(self, log: TrafficLog) -> Predicate:
        preds = [_negate(_term(t, log)) if t.negated else _term(t, log) for t in self.terms]
        if not preds:
            return lambda e: True
        if len(preds) == 1:
            return preds[0]
        if len(preds) == 2:
            a, b = preds
            return lambda e: a(e) and b(e)
        return lambda e: all(p(e) for p in preds)


def _looks_numeric(word: str) -> bool:
    return word[1:2].isdigit()


def _check(key: str, value: str, word: str) -> None:
    low = value.lower()
    if key == "dir" and low not in _DIRS:
        raise FilterError(f"{word!r}: dir: is in, out or info")
    if key == "kind" and low not in _KINDS:
        raise FilterError(f"{word!r}: kind: is one of {', '.join(_KINDS)}")
    if key == "channel" and low not in _CHANNELS:
        raise FilterError(f"{word!r}: channel: is one of {', '.join(_CHANNELS)}")
    if key == "status" and low not in _STATUS_WORDS:
        try:
            int(value)
        except ValueError:
            raise FilterError(
                f"{word!r}: status: is ok, error, malformed, pending or an error code"
            ) from None
    if key == "dur" and _DUR.match(low) is None:
        raise FilterError(f"{word!r}: dur: looks like >500ms, <2s or >=100")
    if key == "is" and low not in ("flagged", "problem"):
        raise FilterError(f"{word!r}: is: takes flagged")


def _negate(pred: Predicate) -> Predicate:
    return lambda e: not pred(e)


def _any(preds: list[Predicate]) -> Predicate:
    if len(preds) == 1:
        return preds[0]
    return lambda e: any(p(e) for p in preds)


def status_of(event: TrafficEvent, log: TrafficLog) -> str:
    """ok / <error code> / malformed / pending / "" — a request reads its response's status."""
    msg = event.message
    if isinstance(msg, Request):
        if event.response_seq is None:
            return "pending"
        return status_of(log[event.response_seq], log)
    if isinstance(msg, Response):
        return "ok"
    if isinstance(msg, ErrorResponse):
        return str(msg.code)
    if isinstance(msg, Malformed):
        return "malformed"
    return ""


def latency_of(event: TrafficEvent, log: TrafficLog) -> float | None:
    if event.latency is not None:
        return event.latency
    if event.response_seq is not None:
        return log[event.response_seq].latency
    return None


def _term(term: Term, log: TrafficLog) -> Predicate:
    key = term.key
    if key == "text":
        return _text(term.values[0])
    if key == "method":
        preds: list[Predicate] = []
        for v in term.values:
            low = v.lower()
            if any(c in v for c in "*?["):
                rx = re.compile(fnmatch.translate(low), re.IGNORECASE).match
                preds.append(_glob(rx))
            else:
                preds.append(_contains(low))
        return _any(preds)
    if key == "dir":
        wanted = {_DIRS[v.lower()] for v in term.values}
        return lambda e: e.direction in wanted
    if key == "kind":
        return _kind({v.lower() for v in term.values})
    if key == "channel":
        channels = {v.lower() for v in term.values}
        return lambda e: e.channel in channels
    if key == "id":
        ids = set(term.values)
        return lambda e: e.message is not None and str(getattr(e.message, "id", None)) in ids
    if key == "is":
        return lambda e: bool(e.flags)
    if key == "status":
        return _any([_status(v.lower(), log) for v in term.values])
    if key == "dur":
        return _any([_dur(v.lower(), log) for v in term.values])
    raise FilterError(f"unknown filter key {key!r}")  # pragma: no cover - parse() only builds known keys


#: message class → kind, so a kind term is one dict lookup (TrafficEvent.kind walks isinstance checks)
_KIND_OF_TYPE: dict[type, str] = {
    Request: "request",
    Notification: "notification",
    Response: "response",
    ErrorResponse: "error",
    Malformed: "malformed",
}
#: frames above this size are searched with a regular expression rather than lower-cased whole
_LOWER_LIMIT = 1 << 20


def _text(needle: str) -> Predicate:
    """Case-insensitive substring. `needle in raw.lower()` is about 3x faster than re.IGNORECASE here."""
    low = needle.lower()
    if low == needle.upper():  # no letters: case does not matter
        return lambda e: needle in e.raw
    search = re.compile(re.escape(needle), re.IGNORECASE).search

    def contains(e: TrafficEvent) -> bool:
        raw = e.raw
        if len(raw) > _LOWER_LIMIT:
            return search(raw) is not None
        return low in raw.lower()

    return contains


def _kind(kinds: set[str]) -> Predicate:
    types = {t for t, name in _KIND_OF_TYPE.items() if name in kinds}
    stderr, info = "stderr" in kinds, "info" in kinds

    def check(e: TrafficEvent) -> bool:
        message = e.message
        if message is None:
            return stderr if e.channel == "stderr" else info
        return type(message) in types

    return check


def _glob(match: Callable[[str], object]) -> Predicate:
    return lambda e: e.method is not None and match(e.method) is not None


def _contains(low: str) -> Predicate:
    return lambda e: e.method is not None and low in e.method.lower()


def _status(value: str, log: TrafficLog) -> Predicate:
    if value == "error":

        def is_error(e: TrafficEvent) -> bool:
            s = status_of(e, log)
            return s not in ("", "ok", "pending")

        return is_error
    return lambda e: status_of(e, log) == value


def _dur(value: str, log: TrafficLog) -> Predicate:
    match = _DUR.match(value)
    assert match is not None
    op = _OPS[match.group(1) or ">="]
    limit = float(match.group(2)) * _UNITS[match.group(3)]

    def check(e: TrafficEvent) -> bool:
        latency = latency_of(e, log)
        return latency is not None and op(latency, limit)

    return check
