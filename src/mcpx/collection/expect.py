"""Expectations: what a test says its answer must be, checked field by field, with no I/O.

`evaluate(expect, answer)` yields a `Difference` per field that is not as expected (none: the test
passes). The keys of an `expect` mapping (docs/testing.md has the table):

    isError: false              tools/call: the result's isError (absent counts as false)
    text: "5"                   the answer's text, exactly (a tool's text blocks joined by newlines)
    contains: "5" | ["a", "b"]  the text holds each of these
    matches: "^\\d+$"           a regular expression found in the text (re.search)
    json: {"$.tools[*].name": {contains: add}}   JSONPath (RFC 9535) on the result: a value (equality)
                                or one operator — equals, contains, matches, exists
    structuredContent: {sum: 5} the result's structuredContent: a value (equality) or one operator
    outputSchema: true          structuredContent conforms to the tool's declared outputSchema
    error: -32602 | {code: -32602, message: {contains: "unknown"}}   the request fails with this error
    maxMs: 500                  answered within this many milliseconds

A JSONPath that selects one node is compared as that node's value; one with wildcards or filters as the
list of every node it selects. Equality failures list each differing field (`$.sum: 5 → 6`), by the same
structural diff `mcpx diff` uses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcpx.collection.paths import compiled, select, singular

#: the keys `expect` may have
EXPECT_KEYS: tuple[str, ...] = ("isError", "text", "contains", "matches", "json", "structuredContent")
EXPECT_KEYS += ("outputSchema", "error", "maxMs")
#: a one-key mapping with one of these keys is an operator, not a value to compare to
OPERATORS = ("equals", "contains", "matches", "exists")
#: the answer had no outputSchema to check against (the runner looks it up only when a test asks)
NO_SCHEMA: Any = object()


@dataclass(frozen=True, slots=True)
class ErrorAnswer:
    """A JSON-RPC error the server answered with."""

    code: int
    message: str
    data: Any = None


@dataclass(slots=True)
class Answer:
    """What one test's request got: a result or an error, and how long it took."""

    method: str
    result: Any = None
    error: ErrorAnswer | None = None
    elapsed_ms: float = 0.0
    #: tools/call: the tool's declared outputSchema (None: it declares none; NO_SCHEMA: not looked up)
    output_schema: Any = field(default=NO_SCHEMA)

    @property
    def text(self) -> str:
        return answer_text(self.method, self.result)


@dataclass(frozen=True, slots=True)
class Difference:
    """One field not as expected: `where` names it (`text`, `json $.tools[*].name`, `maxMs`)."""

    where: str
    expected: Any
    actual: Any
    note: str = ""

    def describe(self, limit: int = 200) -> str:
        from mcpx.record.jsondiff import short

        if self.note == "added":  # a field the expectation does not have
            return f"{self.where}: not expected, got {short(self.actual, limit)}"
        if self.note == "removed":
            return f"{self.where}: expected {short(self.expected, limit)}, missing"
        text = f"{self.where}: expected {short(self.expected, limit)}, got {short(self.actual, limit)}"
        return f"{text} ({self.note})" if self.note else text

    def to_json(self) -> dict[str, Any]:
        out = {"where": self.where, "expected": self.expected, "actual": self.actual}
        return {**out, "note": self.note} if self.note else out


def answer_text(method: str, result: Any) -> str:
    """The text a person reads in an answer: a tool's (or a prompt's, a resource's) text blocks joined by
    newlines; for other results, their compact JSON."""
    if not isinstance(result, dict):
        return _json(result)
    blocks: list[Any] = []
    if isinstance(result.get("content"), list):  # tools/call
        blocks = result["content"]
    elif isinstance(result.get("contents"), list):  # resources/read
        blocks = result["contents"]
    elif isinstance(result.get("messages"), list):  # prompts/get
        blocks = [m.get("content") for m in result["messages"] if isinstance(m, dict)]
    else:
        return _json(result)
    texts = [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(texts)


def _json(value: Any) -> str:
    import orjson

    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError:
        return repr(value)


def check_expect(expect: Any) -> list[str]:
    """What is wrong with an `expect` mapping as written (one sentence each; empty when it is usable)."""
    if expect is None:
        return []
    if not isinstance(expect, Mapping):
        return [f"expect must be a mapping of expectations, not {_kind(expect)}"]
    problems = [f"expect has an unknown key {key!r}" for key in expect if key not in EXPECT_KEYS]
    for key in ("text", "matches"):
        if key in expect and not isinstance(expect[key], str):
            problems.append(f"expect.{key} must be a string, not {_kind(expect[key])} (quote it)")
    contains = expect.get("contains")
    if "contains" in expect and not (
        isinstance(contains, str)
        or (isinstance(contains, list) and all(isinstance(c, str) for c in contains))
    ):
        problems.append("expect.contains must be a string or a list of strings (quote numbers)")
    for key in ("isError", "outputSchema"):
        if key in expect and not isinstance(expect[key], bool):
            problems.append(f"expect.{key} must be true or false, not {_kind(expect[key])}")
    max_ms = expect.get("maxMs")
    if "maxMs" in expect and (isinstance(max_ms, bool) or not isinstance(max_ms, (int, float)) or max_ms < 0):
        problems.append(f"expect.maxMs must be a number of milliseconds, not {max_ms!r}")
    if "error" in expect:
        error = expect["error"]
        code = error.get("code") if isinstance(error, Mapping) else error
        if isinstance(code, bool) or not isinstance(code, int):
            problems.append("expect.error must be a JSON-RPC error code, or {code: N, message: …}")
    if "json" in expect:
        paths = expect["json"]
        if not isinstance(paths, Mapping):
            problems.append('expect.json must map JSONPaths to values, e.g. {"$.tools[*].name": …}')
        else:
            for path, matcher in paths.items():
                problems.extend(_check_path(str(path)))
                problems.extend(_check_matcher(matcher, f"expect.json[{path!r}]"))
    if "structuredContent" in expect:
        problems.extend(_check_matcher(expect["structuredContent"], "expect.structuredContent"))
    if "error" in expect and any(k in expect for k in ("isError", "text", "structuredContent")):
        problems.append("expect.error says the request fails: it cannot also expect a result")
    return problems


def _check_path(path: str) -> list[str]:
    from jsonpath import JSONPathError

    try:
        compiled(path)
    except JSONPathError as exc:
        first = str(exc).splitlines()[0]
        return [f"expect.json: {path!r} is not a JSONPath ({first})"]
    return []


def _check_matcher(matcher: Any, where: str) -> list[str]:
    op = operator(matcher)
    if op is None:
        return []
    name, value = op
    if name == "matches":
        if not isinstance(value, str):
            return [f"{where}: matches takes a regular expression (a string)"]
        try:
            re.compile(value)
        except re.error as exc:
            return [f"{where}: {value!r} is not a regular expression ({exc})"]
    if name == "exists" and not isinstance(value, bool):
        return [f"{where}: exists takes true or false"]
    return []


def operator(matcher: Any) -> tuple[str, Any] | None:
    """`(name, operand)` when `matcher` is a one-key mapping naming an operator; None for a plain value."""
    if isinstance(matcher, Mapping) and len(matcher) == 1:
        ((name, value),) = matcher.items()
        if name in OPERATORS:
            return str(name), value
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    names: dict[type, str] = {dict: "a mapping", list: "a list", str: "a string"}
    return names.get(type(value), repr(value))


def evaluate(expect: Mapping[str, Any] | None, answer: Answer) -> Iterator[Difference]:
    """Every field of `answer` that is not as `expect` says (nothing: the test passes)."""
    expect = expect or {}
    yield from _error(expect, answer)
    if answer.error is not None:
        if "maxMs" in expect:
            yield from _time(expect["maxMs"], answer)
        return
    result = answer.result
    if "isError" in expect:
        actual = bool(result.get("isError")) if isinstance(result, dict) else False
        if actual != expect["isError"]:
            yield Difference("isError", expect["isError"], actual, _error_text(answer) if actual else "")
    text = answer.text
    if "text" in expect and text != expect["text"]:
        yield Difference("text", expect["text"], text)
    if "contains" in expect:
        wanted = expect["contains"]
        for piece in [wanted] if isinstance(wanted, str) else wanted:
            if piece not in text:
                yield Difference("contains", piece, text, "not in the text")
    if "matches" in expect and re.search(expect["matches"], text) is None:
        yield Difference("matches", expect["matches"], text, "no match in the text")
    structured = result.get("structuredContent") if isinstance(result, dict) else None
    present = isinstance(result, dict) and "structuredContent" in result
    if "structuredContent" in expect:
        yield from _match("structuredContent", expect["structuredContent"], [structured] if present else [])
    for path, matcher in (expect.get("json") or {}).items():
        yield from _match(f"json {path}", matcher, select(str(path), result), many=not singular(str(path)))
    if expect.get("outputSchema") is True:
        yield from _schema(answer, structured, present)
    if "maxMs" in expect:
        yield from _time(expect["maxMs"], answer)


def _error(expect: Mapping[str, Any], answer: Answer) -> Iterator[Difference]:
    wanted = expect.get("error")
    got = answer.error
    if wanted is None:
        if got is not None:
            yield Difference("error", None, {"code": got.code, "message": got.message}, "the request failed")
        return
    code = wanted.get("code") if isinstance(wanted, Mapping) else wanted
    if got is None:
        yield Difference("error", wanted, _short_result(answer), "the request succeeded")
        return
    if got.code != code:
        yield Difference("error.code", code, got.code, got.message)
    if isinstance(wanted, Mapping) and "message" in wanted:
        yield from _match("error.message", wanted["message"], [got.message])


def _short_result(answer: Answer) -> Any:
    """What answered instead of an error: a tool's text (say, its isError message), or a short result."""
    if answer.method == "tools/call" or len(_json(answer.result)) > 200:
        return answer.text[:200]
    return answer.result


def _error_text(answer: Answer) -> str:
    return answer.text[:200]


def _time(limit: float, answer: Answer) -> Iterator[Difference]:
    if answer.elapsed_ms > limit:
        yield Difference("maxMs", limit, round(answer.elapsed_ms, 1), "too slow")


def _schema(answer: Answer, structured: Any, present: bool) -> Iterator[Difference]:
    schema = answer.output_schema
    if schema is NO_SCHEMA or schema is None:
        yield Difference("outputSchema", "a declared outputSchema", None, "the tool declares none")
        return
    from mcpx.schema.output import output_mismatches

    is_error = isinstance(answer.result, dict) and answer.result.get("isError") is True
    for where, message in output_mismatches(schema, structured, present=present, is_error=is_error):
        yield Difference(f"outputSchema {where}", "conforms", message)


def _match(where: str, matcher: Any, nodes: list[Any], *, many: bool = False) -> Iterator[Difference]:
    """`matcher` against the nodes a path selected (a single path: its one node, or none)."""
    op = operator(matcher)
    name, wanted = op if op is not None else ("equals", matcher)
    found = bool(nodes) or many
    if name == "exists":
        if found != bool(wanted):
            yield Difference(where, "present" if wanted else "absent", nodes[0] if nodes else None)
        return
    if not found:
        yield Difference(where, wanted, None, "nothing there")
        return
    actual = nodes if many else nodes[0]
    if name == "equals":
        yield from _equal(where, wanted, actual)
    elif name == "contains":
        if not contains(actual, wanted):
            yield Difference(where, {"contains": wanted}, actual, "not contained")
    elif name == "matches":
        text = actual if isinstance(actual, str) else _json(actual)
        if re.search(str(wanted), text) is None:
            yield Difference(where, {"matches": wanted}, actual, "no match")


def _equal(where: str, wanted: Any, actual: Any) -> Iterator[Difference]:
    if _same(wanted, actual):
        return
    from mcpx.record.jsondiff import diff, format_path

    changes = diff(wanted, actual, parse_strings=False)
    if not changes or (len(changes) == 1 and not changes[0].path):
        yield Difference(where, wanted, actual)
        return
    for change in changes:
        inner = format_path(change.path)[1:]  # `.sum`, `[0].name`, appended to the field's own name
        yield Difference(
            f"{where}{inner}", change.before, change.after, "" if change.kind == "changed" else change.kind
        )


def _same(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and (type(a) is type(b) or (_number(a) and _number(b)))


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def contains(actual: Any, wanted: Any) -> bool:
    """Containment: a substring of a string, an element (or each of a list of elements) of a list, a
    sub-mapping of a mapping (recursively: nested mappings and lists need only hold what is named)."""
    if isinstance(actual, str) and isinstance(wanted, str):
        return wanted in actual
    if isinstance(actual, list):
        items = wanted if isinstance(wanted, list) else [wanted]
        return all(any(_subsumes(a, item) for a in actual) for item in items)
    return _subsumes(actual, wanted)


def _subsumes(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        return isinstance(actual, Mapping) and all(
            k in actual and _subsumes(actual[k], v) for k, v in wanted.items()
        )
    if isinstance(wanted, list):
        return isinstance(actual, list) and all(any(_subsumes(a, w) for a in actual) for w in wanted)
    return _same(actual, wanted)
