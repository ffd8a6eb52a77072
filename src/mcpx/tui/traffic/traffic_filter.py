"""The traffic log's filter syntax, compiled into one generated list comprehension (no Textual here).

    tools/call                 free text: a case-insensitive substring of the raw frame
    "two words"                quoted free text
    method:tools/call          the method (of a request or notification, or of the request a response
                               answers); a substring, or a glob with * and ?
    dir:in  dir:out  dir:info  direction (also ← → •)
    status:error  status:ok  status:malformed  status:pending  status:-32601
                               (error: a JSON-RPC error, a malformed answer or a tool's isError result)
    status:cancelled  status:timeout  status:no-answer   requests that ended without an answer
                               (status:unanswered: any of the three)
    id:7                       JSON-RPC id (a request and its response share it)
    dur:>500ms  dur:<=2s       latency of a response, or of the response to a request (ms, s, us)
    kind:notification          request, notification, response, error, malformed, stderr, info
    channel:stderr             stdio, stderr, http, sse, process, protocol
    is:flagged                 events with a protocol problem attached
    -method:ping               a leading - negates any term
    method:tools/list,prompts/list   a comma means "any of"

Terms combine with AND. Unknown `key:` prefixes are free text (so `memo://x` searches for itself).

Speed: a filter over 100 000 events must answer in well under 100 ms. Closures per term cost a Python
call per event and term; instead each term becomes an expression and the whole filter one comprehension
(`[e.seq for e in events if …]`), compiled once per filter. What the user typed is never code: values
reach the generated function as named constants.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mcpx.tui.widgets.glyphs import ARROWS
from mcpx.wire.jsonrpc import ErrorResponse, Malformed, Notification, Request, Response
from mcpx.wire.traffic import (
    CHANNELS,
    DIRECTIONS,
    EVENT_KINDS,
    REQUEST_OUTCOMES,
    Direction,
    RequestOutcome,
    TrafficEvent,
    TrafficLog,
)

Predicate = Callable[[TrafficEvent], bool]

KEYS = ("method", "dir", "status", "id", "dur", "kind", "channel", "is")
#: what `dir:` accepts: the word, its arrow (as the log draws it), and < > for the arrows one can type
_DIRS: dict[str, Direction] = {
    **{d: d for d in DIRECTIONS},
    **{glyph: d for d, glyph in ARROWS.items()},
    "<": "in",
    ">": "out",
}
#: what `status:` accepts for requests that ended unanswered, and the outcomes each word means
_OUTCOME_WORDS: dict[str, frozenset[str]] = {
    "cancelled": frozenset({"cancelled"}),
    "timeout": frozenset({"timed out"}),
    "timed-out": frozenset({"timed out"}),
    "no-answer": frozenset({"no answer"}),
    "unanswered": frozenset(REQUEST_OUTCOMES),
}
_STATUS_WORDS = ("ok", "error", "malformed", "pending", *_OUTCOME_WORDS)
#: a tools/call result that says the tool failed
TOOL_ERROR = "isError"
_DUR = re.compile(r"^(>=|<=|>|<|=)?\s*(\d+(?:\.\d*)?|\.\d+)\s*(us|µs|ms|s|m)?$")
_UNITS = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, None: 1e-3}
#: message class → kind (TrafficEvent.kind walks isinstance checks; a type lookup is cheaper)
_KIND_OF_TYPE: dict[type, str] = {
    Request: "request",
    Notification: "notification",
    Response: "response",
    ErrorResponse: "error",
    Malformed: "malformed",
}
#: frames above this size are searched with a regular expression rather than lower-cased whole
_LOWER_LIMIT = 1 << 20
#: a request's latency is its response's
_LATENCY = (
    "(e.latency if e.latency is not None"
    " else (_log[e.response_seq].latency if e.response_seq is not None else None))"
)


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

    def compile(self, log: TrafficLog) -> Matcher:
        """The filter as code over `log` (a request's status and latency are its response's)."""
        builder = _Builder(log)
        return Matcher(" and ".join(builder.term(term) for term in self.terms) or "True", builder.namespace)


class Matcher:
    """A compiled filter: `scan(events)` gives the sequence numbers of those that match; calling the
    matcher on one event says whether it does."""

    def __init__(self, condition: str, namespace: dict[str, Any]) -> None:
        self.condition = condition
        source = f"def scan(events):\n    return [e.seq for e in events if {condition}]\n"
        exec(compile(source, "<traffic filter>", "exec"), namespace)
        self.scan: Callable[[Iterable[TrafficEvent]], list[int]] = namespace["scan"]

    def __call__(self, event: TrafficEvent) -> bool:
        return bool(self.scan((event,)))


class _Builder:
    """Terms → Python expressions over `e` (a TrafficEvent); values become named constants."""

    def __init__(self, log: TrafficLog) -> None:
        self.namespace: dict[str, Any] = {
            "_log": log,
            "_status_of": status_of,
            "_tool_error": is_tool_error,
            "_outcome": outcome_of,
            "_len": len,
            "_str": str,
            "_type": type,
            "_getattr": getattr,
            "_LIMIT": _LOWER_LIMIT,
            "_ERRORS": frozenset((ErrorResponse, Malformed)),
            "_Request": Request,
            "_Response": Response,
            "_Malformed": Malformed,
        }

    def const(self, value: Any) -> str:
        name = f"v{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def term(self, term: Term) -> str:
        expression: str = getattr(self, f"term_{term.key}")(term.values)
        return f"not ({expression})" if term.negated else f"({expression})"

    @staticmethod
    def either(expressions: list[str]) -> str:
        return expressions[0] if len(expressions) == 1 else " or ".join(f"({x})" for x in expressions)

    def term_text(self, values: tuple[str, ...]) -> str:
        needle = values[0]
        low = needle.lower()
        if low == needle.upper():  # no letters: case does not matter
            return f"{self.const(needle)} in e.raw"
        # `in raw.lower()` is about 3x faster than re.IGNORECASE here; a huge frame is searched instead
        search = self.const(re.compile(re.escape(needle), re.IGNORECASE).search)
        return f"{self.const(low)} in e.raw.lower() if _len(e.raw) <= _LIMIT else {search}(e.raw) is not None"

    def term_method(self, values: tuple[str, ...]) -> str:
        parts = []
        for value in values:
            low = value.lower()
            if any(c in value for c in "*?["):
                match = self.const(re.compile(fnmatch.translate(low), re.IGNORECASE).match)
                parts.append(f"e.method is not None and {match}(e.method) is not None")
            else:
                parts.append(f"e.method is not None and {self.const(low)} in e.method.lower()")
        return self.either(parts)

    def term_dir(self, values: tuple[str, ...]) -> str:
        return f"e.direction in {self.const(frozenset(_DIRS[v.lower()] for v in values))}"

    def term_kind(self, values: tuple[str, ...]) -> str:
        kinds = {v.lower() for v in values}
        types = self.const(frozenset(t for t, name in _KIND_OF_TYPE.items() if name in kinds))
        stderr, info = "stderr" in kinds, "info" in kinds
        other = f"({stderr} if e.channel == 'stderr' else {info})"
        return f"_type(e.message) in {types} if e.message is not None else {other}"

    def term_channel(self, values: tuple[str, ...]) -> str:
        return f"e.channel in {self.const(frozenset(v.lower() for v in values))}"

    def term_id(self, values: tuple[str, ...]) -> str:
        # "id:7" matches the integer id 7 and the string id "7", as the id column shows both alike
        ids: set[object] = set(values)
        ids.update(int(v) for v in values if v.lstrip("-").isdigit())
        return f"_getattr(e.message, 'id', None) in {self.const(frozenset(ids))}"

    def term_is(self, values: tuple[str, ...]) -> str:
        return "_len(e.flags) > 0"

    def term_status(self, values: tuple[str, ...]) -> str:
        # by message type, without a call per event; a request reads its response's type (unless it had
        # ended unanswered before a late answer came: then its outcome is its status)
        answered = "(e.response_seq is not None and _log.ending_of(e.seq) is None and {test})"
        answer = "_log[e.response_seq].message"
        by_type = {
            "error": "(_type({m}) in _ERRORS or (_type({m}) is _Response and _tool_error({m})))",
            "ok": "(_type({m}) is _Response and not _tool_error({m}))",
            "malformed": "_type({m}) is _Malformed",
        }
        parts = []
        for value in values:
            low = value.lower()
            if low in by_type:
                test = by_type[low]
                parts.append(
                    f"{test.format(m='e.message')} or "
                    f"(_type(e.message) is _Request and {answered.format(test=test.format(m=answer))})"
                )
            elif low == "pending":
                parts.append(
                    "_type(e.message) is _Request and e.response_seq is None"
                    " and _log.ending_of(e.seq) is None"
                )
            elif low in _OUTCOME_WORDS:
                outcomes = self.const(_OUTCOME_WORDS[low])
                parts.append(f"_type(e.message) is _Request and _outcome(e, _log) in {outcomes}")
            else:
                parts.append(f"_status_of(e, _log) == {self.const(low)}")
        return self.either(parts)

    def term_dur(self, values: tuple[str, ...]) -> str:
        parts = []
        for value in values:
            match = _DUR.match(value.lower())
            assert match is not None  # parse() checked it
            op = match.group(1) or ">="
            limit = self.const(float(match.group(2)) * _UNITS[match.group(3)])
            test = f"abs(L - {limit}) < 5e-4" if op == "=" else f"L {op} {limit}"
            parts.append(f"(L := {_LATENCY}) is not None and {test}")
        return self.either(parts)


def _looks_numeric(word: str) -> bool:
    return word[1:2].isdigit()


def _check(key: str, value: str, word: str) -> None:
    low = value.lower()
    if key == "dir" and low not in _DIRS:
        raise FilterError(f"{word!r}: dir: is in, out or info")
    if key == "kind" and low not in EVENT_KINDS:
        raise FilterError(f"{word!r}: kind: is one of {', '.join(EVENT_KINDS)}")
    if key == "channel" and low not in CHANNELS:
        raise FilterError(f"{word!r}: channel: is one of {', '.join(CHANNELS)}")
    if key == "status" and low not in _STATUS_WORDS:
        try:
            int(value)
        except ValueError:
            raise FilterError(
                f"{word!r}: status: is ok, error, malformed, pending, cancelled, timeout, no-answer, "
                "unanswered or an error code"
            ) from None
    if key == "dur" and _DUR.match(low) is None:
        raise FilterError(f"{word!r}: dur: looks like >500ms, <2s or >=100")
    if key == "is" and low not in ("flagged", "problem"):
        raise FilterError(f"{word!r}: is: takes flagged")


def is_tool_error(message: object) -> bool:
    """A result whose `isError` is true: the tool ran and failed (tools/call's own error channel)."""
    if type(message) is not Response:
        return False
    result = message.result
    return type(result) is dict and result.get("isError") is True


def outcome_of(event: TrafficEvent, log: TrafficLog) -> RequestOutcome | None:
    """How a request ended without an answer (cancelled, timed out, no answer), or None."""
    ending = log.ending_of(event.seq)
    if ending is None:
        return None
    outcome = ending.facts.get("outcome")
    return outcome if outcome in REQUEST_OUTCOMES else "no answer"


def status_of(event: TrafficEvent, log: TrafficLog) -> str:
    """ok / isError / <error code> / malformed / pending / cancelled / timed out / no answer / "" — a
    request reads its response's status, or how it ended unanswered."""
    msg = event.message
    if isinstance(msg, Request):
        outcome = outcome_of(event, log)
        if outcome is not None:
            return outcome
        if event.response_seq is None:
            return "pending"
        return status_of(log[event.response_seq], log)
    if isinstance(msg, Response):
        return TOOL_ERROR if is_tool_error(msg) else "ok"
    if isinstance(msg, ErrorResponse):
        return str(msg.code)
    if isinstance(msg, Malformed):
        return "malformed"
    return ""


def label_of(event: TrafficEvent, log: TrafficLog) -> str | None:
    """The method with what it names: `tools/call echo`, `prompts/get greet`, `resources/read file:///x`
    (a response is labelled as its request)."""
    method = event.method
    if method not in _NAMED_BY:
        return method
    request = event if event.request_seq is None else log[event.request_seq]
    params = getattr(request.message, "params", None)
    name = params.get(_NAMED_BY[method]) if isinstance(params, dict) else None
    return f"{method} {name}" if isinstance(name, str) and name else method


#: methods whose row names their subject, and the parameter that holds it
_NAMED_BY = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "resources/subscribe": "uri",
}


def latency_of(event: TrafficEvent, log: TrafficLog) -> float | None:
    if event.latency is not None:
        return event.latency
    if event.response_seq is not None:
        return log[event.response_seq].latency
    return None
