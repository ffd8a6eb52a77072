"""The lists a server advertises (tools, resources, resource templates, prompts), walked page by page with
every exchange kept, and what was wrong with the walk (a page that is not an object, a cursor that loops)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpx.check.model import ExchangeRef
from mcpx.check.session import Reply
from mcpx.protocol.names import LISTS, ListName

if TYPE_CHECKING:
    from mcpx.check.context import CheckContext

MAX_PAGES = 1000


@dataclass(slots=True)
class ListWalk:
    """One list walked page by page on the main connection (the client's own cached lists are
    `mcpx.protocol.catalogue.Catalogue`; this keeps every page and what was wrong with each)."""

    name: ListName
    method: str
    advertised: bool
    items: list[Any] = field(default_factory=list)
    pages: list[Reply] = field(default_factory=list)
    #: what was wrong with the walk: (sentence, the page that shows it)
    problems: list[tuple[str, ExchangeRef]] = field(default_factory=list)
    #: the page request that failed, if one did
    failed: Reply | None = None

    @property
    def ref(self) -> ExchangeRef | None:
        if not self.pages:
            return None
        seqs = tuple(s for page in self.pages for s in page.ref.seqs)
        return ExchangeRef(self.pages[0].session.label, seqs)

    @property
    def keys(self) -> list[str]:
        key = LISTS[self.name].item_key
        return [str(item.get(key)) if isinstance(item, dict) else repr(item) for item in self.items]


async def walk(ctx: CheckContext, name: ListName) -> ListWalk:
    """Walk one list page by page on the main connection, keeping each exchange and what was wrong."""
    method, capability = LISTS[name].method, LISTS[name].capability
    key = name  # a list's items are under its own name
    catalogue = ListWalk(name, method, ctx.advertised(capability))
    if not catalogue.advertised:
        return catalogue
    session = await ctx.main_session()
    cursor: Any = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await session.ask(method, {"cursor": cursor} if cursor is not None else None)
        catalogue.pages.append(page)
        if not page.ok:
            catalogue.failed = page
            return catalogue
        result = page.result
        if not isinstance(result, dict):
            catalogue.problems.append((f"{method} answered {type(result).__name__}, not an object", page.ref))
            return catalogue
        items = result.get(key)
        if not isinstance(items, list):
            catalogue.problems.append((f"{method} result has no {key!r} array", page.ref))
        else:
            catalogue.items.extend(items)
        cursor = result.get("nextCursor")
        if cursor is None:
            return catalogue
        if not isinstance(cursor, str):
            catalogue.problems.append((f"nextCursor is {type(cursor).__name__}, not a string", page.ref))
            return catalogue
        if cursor in seen:
            catalogue.problems.append((f"nextCursor {cursor!r} came back again: the pages loop", page.ref))
            return catalogue
        seen.add(cursor)
    catalogue.problems.append(
        (f"{method} still had a nextCursor after {MAX_PAGES} pages", catalogue.pages[-1].ref)
    )
    return catalogue
