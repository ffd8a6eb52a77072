"""JSONPath (RFC 9535, by python-jsonpath) for the `json:` expectations, with a fast path for the simple
ones: `select(path, value)` is the list of nodes a path selects, `singular(path)` says whether it can
select more than one (a singular query's node is compared as itself, others as the list of nodes).

Paths made only of names and indexes (`$.structuredContent.rows[0].id`, most of what tests say) are
walked directly: the engine builds a match object and a normalized path per node, which made checking
cost more than the call itself (docs/performance.md). Compiled queries are kept (a collection repeats its
paths).
"""

from __future__ import annotations

import functools
import re
from typing import Any


def singular(path: str) -> bool:
    """An RFC 9535 singular query: it selects at most one node (`$.a.b`, `$.a[0]`)."""
    if steps(path) is not None:
        return True
    query = compiled(path)
    # a union of paths (`$.a | $.b`, python-jsonpath's extension) is never singular
    return bool(getattr(query, "singular_query", lambda: False)())


@functools.lru_cache(maxsize=1024)
def compiled(path: str) -> Any:
    """A path compiled once: a collection's tests repeat their paths (and compiling is most of a check)."""
    from jsonpath import compile

    return compile(path)


#: one step of a path made only of names and indexes: `.name` or `[3]` / `[-1]`
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(-?\d+)\]")


@functools.lru_cache(maxsize=1024)
def steps(path: str) -> tuple[str | int, ...] | None:
    """The names and indexes of a simple path (`$.structuredContent.rows[0].id`), or None for any other."""
    if not path.startswith("$"):
        return None
    found: list[str | int] = []
    position = 1
    while position < len(path):
        step = _STEP.match(path, position)
        if step is None:
            return None
        name, index = step.groups()
        found.append(name if name is not None else int(index))
        position = step.end()
    return tuple(found)


def select(path: str, value: Any) -> list[Any]:
    """The nodes `path` selects in `value`, in document order."""
    walk = steps(path)
    if walk is None:
        return list(compiled(path).findall(value))
    for step in walk:
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                return []
        elif not isinstance(value, dict) or step not in value:
            return []
        value = value[step]
    return [value]
