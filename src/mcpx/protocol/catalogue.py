"""`Catalogue`: the `Client`'s lists — pages and cursors, the four cached lists (`list_tools()`, …) kept
until `list_changed` (or the server's `ttlMs` hint) says they are stale, refreshed in the background when a
cached list changes, and listeners told when it did.

Composed from narrow callables, not the whole client: the log (where problems are flagged), a way to send
a request (dressed by the era), a way to hear notifications, and an optional filter for listed tools (the
handshake-free era over HTTP leaves out tools it cannot call). The `Client` holds one and forwards its
list methods to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from mcpx.errors import McpxError, ProtocolError
from mcpx.protocol.names import LISTS, ListName
from mcpx.protocol.peer import answered_event
from mcpx.wire import Notification, TrafficEvent, TrafficLog

if TYPE_CHECKING:
    from mcpx.protocol.peer import NotificationHandler
    from mcpx.protocol.types import McpModel, Prompt, Resource, ResourceTemplate, Tool

Timeout = float | None | Literal["default"]


def _model(name: str) -> type[McpModel]:
    from mcpx.protocol import types

    models: dict[str, type[McpModel]] = {
        "tools": types.Tool,
        "resources": types.Resource,
        "resourceTemplates": types.ResourceTemplate,
        "prompts": types.Prompt,
    }
    return models[name]


MAX_PAGES = 10_000


class Catalogue:
    """Paginated and cached lists of one connection (a `Client` holds one as `catalogue`)."""

    def __init__(
        self,
        traffic: TrafficLog,
        request: Callable[..., Awaitable[Any]],
        on_notification: Callable[[str, NotificationHandler], Any],
    ) -> None:
        self.traffic = traffic
        self._request = request
        #: applied to every `tools/list` page before it is kept (None: every tool is kept)
        self.filter_tools: Callable[[list[Any]], list[Any]] | None = None
        self._cache: dict[str, list[Any]] = {}
        self._dirty: set[str] = set()
        self._expires: dict[str, float] = {}
        self._refreshing: dict[str, asyncio.Task[Any]] = {}
        self._list_listeners: list[Callable[[ListName], Any]] = []
        for name, spec in LISTS.items():
            on_notification(spec.changed, self._make_dirtier(name))

    def forget(self) -> None:
        """Every cached list is stale (a new session or a new server may list other things)."""
        self._dirty.update(self._cache)

    def stop(self) -> None:
        """Stop the background refreshes (the connection is closing)."""
        for task in self._refreshing.values():
            task.cancel()

    # -- lists ---------------------------------------------------------------------------------------
    async def list_page(self, method: str, cursor: str | None = None, *, timeout: Timeout = "default") -> Any:
        return await self._request(
            method, {"cursor": cursor} if cursor is not None else None, timeout=timeout
        )

    async def list_all(self, method: str, key: str, *, timeout: Timeout = "default") -> dict[str, Any]:
        """Follow `nextCursor` and merge every page's items into one result (the last page's other fields)."""
        items: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        merged: dict[str, Any] = {}
        for _ in range(MAX_PAGES):
            page = await self.list_page(method, cursor, timeout=timeout)
            if not isinstance(page, dict):
                raise ProtocolError(f"the server answered {method} with {type(page).__name__}, not an object")
            page_items = page.get(key)
            if isinstance(page_items, list):
                if method == "tools/list" and self.filter_tools is not None:
                    page_items = self.filter_tools(page_items)
                items.extend(page_items)
            merged = {k: v for k, v in page.items() if k != "nextCursor"}
            next_cursor = page.get("nextCursor")
            if next_cursor is None:
                break
            if not isinstance(next_cursor, str) or next_cursor in seen:
                # a cursor that repeats would loop forever: stop and say so, on the page that repeated it
                answer = answered_event()
                if answer is not None:
                    self.traffic.flag(answer, f"{method}: nextCursor {next_cursor!r} repeats; stopped")
                break
            seen.add(next_cursor)
            cursor = next_cursor
        merged[key] = items
        return merged

    async def _list(self, name: ListName, refresh: bool) -> list[Any]:
        if not refresh and name in self._cache and name not in self._dirty and self._fresh(name):
            return self._cache[name]
        method, key = LISTS[name].method, name
        self._dirty.discard(name)  # before fetching: a change announced meanwhile dirties it again
        try:
            raw = await self.list_all(method, key)
        except BaseException:
            self._dirty.add(name)
            raise
        ttl = raw.get("ttlMs")
        if isinstance(ttl, int) and not isinstance(ttl, bool):
            # the server's cache hint: fresh until then (negative means 0); without one, until list_changed
            self._expires[name] = time.monotonic() + max(ttl, 0) / 1000
        else:
            self._expires.pop(name, None)
        from mcpx.protocol.types import parse_list

        views, problems = parse_list(_model(name), raw.get(key), f"{method} result.{key}")
        answer = answered_event()  # the last page's answer: where the items were read
        if problems and answer is not None:
            for problem in problems:
                self.traffic.flag(answer, problem)
        self._cache[name] = views
        return views

    async def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        return await self._list("tools", refresh)

    async def list_resources(self, *, refresh: bool = False) -> list[Resource]:
        return await self._list("resources", refresh)

    async def list_resource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        return await self._list("resourceTemplates", refresh)

    async def list_prompts(self, *, refresh: bool = False) -> list[Prompt]:
        return await self._list("prompts", refresh)

    def _fresh(self, name: str) -> bool:
        expires = self._expires.get(name)
        return expires is None or time.monotonic() < expires

    def cached(self, name: str) -> list[Any] | None:
        return self._cache.get(name)

    def on_list_changed(self, listener: Callable[[ListName], Any]) -> None:
        """Call `listener(name)` after a cached list ("tools", …) was refreshed because it changed."""
        self._list_listeners.append(listener)

    def _make_dirtier(self, name: ListName) -> NotificationHandler:
        def dirty(message: Notification, event: TrafficEvent) -> None:
            self._dirty.add(name)
            if name in self._cache and name not in self._refreshing:
                task = asyncio.ensure_future(self._refresh(name))
                self._refreshing[name] = task
                task.add_done_callback(lambda _: self._refreshing.pop(name, None))

        return dirty

    async def _refresh(self, name: ListName) -> None:
        # a change announced while a refresh is in flight marks the list dirty again: fetch once more
        with contextlib.suppress(McpxError):
            while name in self._dirty:
                await self._list(name, refresh=True)
            for listener in list(self._list_listeners):
                listener(name)
