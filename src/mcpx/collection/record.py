"""Expectations written from a live answer: a new test's (Save as test), or a test's re-recorded ones
(`mcpx test --update`).

`expectation_from(answer)` pins what the answer says: a tool's isError and its structuredContent (or its
text when it has none), a resource's or a prompt's text, another method's whole result (`json: {$: …}`),
or the error code. `updated(expect, answer)` keeps the form of what the user wrote — value keys are
refreshed from the answer, patterns (contains, matches, operators), maxMs and outputSchema are kept as
written — and returns None when nothing would change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpx.collection.expect import Answer, operator
from mcpx.collection.paths import select, singular

#: keys whose value is a copy of the answer (refreshed by --update); the rest are assertions kept as written
VALUE_KEYS = ("isError", "text", "structuredContent", "error", "json")


def expectation_from(answer: Answer) -> dict[str, Any]:
    """The expectation a new test gets: what this answer says, to be edited."""
    if answer.error is not None:
        return {"error": answer.error.code}
    result = answer.result
    if answer.method == "tools/call" and isinstance(result, dict):
        expect: dict[str, Any] = {"isError": bool(result.get("isError"))}
        if "structuredContent" in result:
            expect["structuredContent"] = result["structuredContent"]
        else:
            expect["text"] = answer.text
        return expect
    if answer.method in ("resources/read", "prompts/get"):
        return {"text": answer.text}
    return {"json": {"$": result}}


def updated(expect: Mapping[str, Any] | None, answer: Answer) -> dict[str, Any] | None:
    """`expect` with its values taken from `answer` (None: it already says what the answer says)."""
    old = dict(expect or {})
    if not any(key in old for key in VALUE_KEYS):
        new = {**expectation_from(answer), **old}
    else:
        new = dict(old)
        if answer.error is not None:
            for key in ("isError", "text", "structuredContent", "json"):
                new.pop(key, None)
            new["error"] = _error_form(old.get("error"), answer)
        else:
            new.pop("error", None)
            fresh = expectation_from(answer)
            result = answer.result if isinstance(answer.result, dict) else {}
            if "isError" in old:
                new["isError"] = bool(result.get("isError"))
            if "text" in old and operator(old["text"]) is None:
                new["text"] = answer.text
            if "structuredContent" in old and operator(old["structuredContent"]) is None:
                if "structuredContent" in result:
                    new["structuredContent"] = result["structuredContent"]
                else:
                    del new["structuredContent"]  # the answer has none now: pinning a value it lacks fails
            if "error" in old and not any(k in old for k in ("isError", "text", "structuredContent", "json")):
                new = {**fresh, **{k: v for k, v in new.items() if k not in fresh}}
            if isinstance(old.get("json"), Mapping):
                new["json"] = _paths(old["json"], answer.result)
    return None if new == old else new


def _error_form(old: Any, answer: Answer) -> Any:
    assert answer.error is not None
    if isinstance(old, Mapping):
        return {**old, "code": answer.error.code}
    return answer.error.code


def _paths(paths: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """Each equality path's value as the result has it now (operators kept as written)."""
    out: dict[str, Any] = {}
    for path, matcher in paths.items():
        if operator(matcher) is not None and operator(matcher)[0] != "equals":  # type: ignore[index]
            out[path] = matcher
            continue
        nodes = select(str(path), result)
        if singular(str(path)):
            if not nodes:
                out[path] = matcher  # gone: left for the user to see fail
                continue
            value: Any = nodes[0]
        else:
            value = nodes
        out[path] = {"equals": value} if operator(matcher) is not None else value
    return out
