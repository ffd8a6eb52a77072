"""A structural JSON diff with paths, and `--ignore` patterns in a small JSONPath dialect.

`diff(a, b)` lists where two JSON values differ: a value `changed`, a key or element `added` or
`removed`. Paths read as JSONPath: `$.result.content[0].text`. Two refinements make diffs of MCP results
readable:

- arrays whose elements are objects with a unique `name` (tools, prompts, arguments), `uri` (resources)
  or `uriTemplate` (templates) are matched by that key, not by position, and the path says which:
  `$.result.tools[name=echo].inputSchema`; reordering such an array is no change;
- a string that holds JSON (an object or an array) on both sides is parsed and compared as JSON (tools
  often return JSON as text), so the path goes on inside it: `$.result.content[0].text.count`.

Ignore patterns (`--ignore`, repeatable) match a path or any of its ancestors: `$.result.meta` ignores
everything below it. They may use `[*]` or `.*` for any key or element, `..` for any depth
(`$..timestamp`), `[n]`, `['odd key']` and `[name=echo]`. The `$` is optional.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

KEY_FIELDS = ("name", "uri", "uriTemplate")


@dataclass(slots=True, frozen=True)
class Keyed:
    """An array element found by its key field (`[name=echo]`) rather than its position."""

    field: str
    value: str

    def __str__(self) -> str:
        return f"[{self.field}={self.value}]"


Part = str | int | Keyed
Path = tuple[Part, ...]
Kind = Literal["changed", "added", "removed"]


@dataclass(slots=True, frozen=True)
class Change:
    path: Path
    kind: Kind
    before: Any = None
    after: Any = None

    @property
    def where(self) -> str:
        return format_path(self.path)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.where, "kind": self.kind}
        if self.kind != "added":
            out["before"] = self.before
        if self.kind != "removed":
            out["after"] = self.after
        return out

    def describe(self, limit: int = 120) -> str:
        if self.kind == "added":
            return f"{self.where}: added {short(self.after, limit)}"
        if self.kind == "removed":
            return f"{self.where}: removed (was {short(self.before, limit)})"
        return f"{self.where}: {short(self.before, limit)} → {short(self.after, limit)}"


_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


def format_path(path: Sequence[Part]) -> str:
    out = ["$"]
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif isinstance(part, Keyed):
            out.append(str(part))
        elif _IDENT.match(part):
            out.append(f".{part}")
        else:
            out.append("[" + orjson.dumps(part).decode("utf-8") + "]")
    return "".join(out)


def short(value: Any, limit: int = 120) -> str:
    try:
        text = orjson.dumps(value).decode("utf-8")
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def diff(a: Any, b: Any, *, parse_strings: bool = True, path: Path = ()) -> list[Change]:
    """Every difference between `a` (recorded, before) and `b` (live, after)."""
    changes: list[Change] = []
    _diff(a, b, path, changes, parse_strings)
    return changes


def _same_type(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return True
    return type(a) is type(b)


def _diff(a: Any, b: Any, path: Path, out: list[Change], parse_strings: bool) -> None:
    if not _same_type(a, b):
        out.append(Change(path, "changed", a, b))
        return
    if isinstance(a, dict):
        for key in a:
            if key not in b:
                out.append(Change((*path, key), "removed", a[key], None))
            else:
                _diff(a[key], b[key], (*path, key), out, parse_strings)
        for key in b:
            if key not in a:
                out.append(Change((*path, key), "added", None, b[key]))
        return
    if isinstance(a, list):
        field = _key_field(a, b)
        if field is not None:
            _diff_keyed(a, b, field, path, out, parse_strings)
            return
        for index in range(max(len(a), len(b))):
            if index >= len(b):
                out.append(Change((*path, index), "removed", a[index], None))
            elif index >= len(a):
                out.append(Change((*path, index), "added", None, b[index]))
            else:
                _diff(a[index], b[index], (*path, index), out, parse_strings)
        return
    if a == b:
        return
    if parse_strings and isinstance(a, str):
        inner_a, inner_b = _json_in(a), _json_in(b)
        if inner_a is not None and inner_b is not None:
            _diff(inner_a[0], inner_b[0], path, out, parse_strings)
            return
    out.append(Change(path, "changed", a, b))


def _json_in(text: str) -> tuple[Any] | None:
    stripped = text.lstrip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        return (orjson.loads(stripped),)
    except orjson.JSONDecodeError:
        return None


def _key_field(a: list[Any], b: list[Any]) -> str | None:
    """The key both arrays' elements can be matched by, when there is one."""
    if not a or not b:
        return None
    for field in KEY_FIELDS:
        ok = True
        for items in (a, b):
            seen: set[str] = set()
            for item in items:
                value = item.get(field) if isinstance(item, dict) else None
                if not isinstance(value, str) or value in seen:
                    ok = False
                    break
                seen.add(value)
            if not ok:
                break
        if ok:
            return field
    return None


def _diff_keyed(
    a: list[Any], b: list[Any], field: str, path: Path, out: list[Change], parse_strings: bool
) -> None:
    after = {item[field]: item for item in b}
    before = {item[field]: item for item in a}
    for key, item in before.items():
        part = Keyed(field, key)
        if key not in after:
            out.append(Change((*path, part), "removed", item, None))
        else:
            _diff(item, after[key], (*path, part), out, parse_strings)
    for key, item in after.items():
        if key not in before:
            out.append(Change((*path, Keyed(field, key)), "added", None, item))


# -- ignore patterns -----------------------------------------------------------------------------------
_ANY = object()
_DEEP = object()
_TOKEN = re.compile(
    r"""\.\.(?=[A-Za-z_$*\[])|\.(\*|[^.\[\]]+)|\[\s*(\*|-?\d+|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\]=]+=[^\]]*)\s*\]"""
)


_NAME = re.compile(r"\*|[^.\[\]]+")


class PatternError(ValueError):
    pass


@dataclass(slots=True, frozen=True)
class Pattern:
    text: str
    parts: tuple[Any, ...]

    def matches(self, path: Path) -> bool:
        """True when the pattern matches `path` or one of its ancestors."""
        return _match(self.parts, 0, path, 0)


def compile_pattern(text: str) -> Pattern:
    source = text.strip()
    rest = source[1:] if source.startswith("$") else source
    if rest and rest[0] not in ".[":
        rest = "." + rest
    parts: list[Any] = []
    pos = 0
    while pos < len(rest):
        match = _TOKEN.match(rest, pos)
        if match is None:
            raise PatternError(f"--ignore {text!r} is not a path this mcpx understands (near {rest[pos:]!r})")
        token = match.group(0)
        if token == "..":
            parts.append(_DEEP)
            name = _NAME.match(rest, match.end())
            if name is not None:  # `$..name`: the name right after the dots
                parts.append(_ANY if name.group(0) == "*" else name.group(0))
                pos = name.end()
                continue
        elif match.group(1) is not None:
            parts.append(_ANY if match.group(1) == "*" else match.group(1))
        else:
            inner = match.group(2)
            if inner == "*":
                parts.append(_ANY)
            elif inner[0] in "'\"":
                parts.append(re.sub(r"\\(.)", r"\1", inner[1:-1]))
            elif "=" in inner:
                field, _, value = inner.partition("=")
                parts.append(Keyed(field.strip(), value.strip().strip("'\"")))
            else:
                parts.append(int(inner))
        pos = match.end()
    return Pattern(text, tuple(parts))


def _match(parts: tuple[Any, ...], i: int, path: Path, j: int) -> bool:
    if i == len(parts):
        return True  # the pattern names this node or an ancestor of the change
    part = parts[i]
    if part is _DEEP:
        return any(_match(parts, i + 1, path, k) for k in range(j, len(path) + 1))
    if j == len(path):
        return False
    here = path[j]
    if part is _ANY or part == here:
        return _match(parts, i + 1, path, j + 1)
    return False


def compile_patterns(texts: Iterable[str]) -> list[Pattern]:
    return [compile_pattern(text) for text in texts]


def split_ignored(changes: list[Change], patterns: Sequence[Pattern]) -> tuple[list[Change], list[Change]]:
    """(changes that count, changes an `--ignore` pattern covers)."""
    if not patterns:
        return changes, []
    kept: list[Change] = []
    ignored: list[Change] = []
    for change in changes:
        (ignored if any(p.matches(change.path) for p in patterns) else kept).append(change)
    return kept, ignored
