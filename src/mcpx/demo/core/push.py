"""Notifications the server pushes unasked: list changes and resource updates, in both eras.

Legacy: list changes go to the client once it has initialized; resource updates only for URIs it
`resources/subscribe`d. Modern: nothing is pushed except on a `subscriptions/listen` request — the
server first sends `notifications/subscriptions/acknowledged` with the subset it honours, then each
notification the listener opted in to, tagged with `_meta["io.modelcontextprotocol/subscriptionId"]`
(the listen request's id). The listen request stays open until the client cancels it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mcpx.protocol.peer import IncomingRequest

META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
Notify = Callable[[str, "dict[str, Any] | None"], Awaitable[None]]
#: which listen flag opts in to which list's notification
LIST_FLAGS = {
    "tools": "toolsListChanged",
    "prompts": "promptsListChanged",
    "resources": "resourcesListChanged",
}


@dataclass(slots=True)
class Listener:
    subscription_id: Any
    flags: set[str] = field(default_factory=set)
    uris: set[str] = field(default_factory=set)


class Push:
    def __init__(self, notify: Notify) -> None:
        self._notify = notify
        #: legacy: the client finished `initialize` (list changes may flow)
        self.legacy_open = False
        self.legacy_uris: set[str] = set()
        self.listeners: dict[Any, Listener] = {}

    @property
    def watched_uris(self) -> set[str]:
        uris = set(self.legacy_uris)
        for listener in self.listeners.values():
            uris |= listener.uris
        return uris

    # -- legacy --------------------------------------------------------------------------------------
    def subscribe(self, uri: str) -> None:
        self.legacy_uris.add(uri)

    def unsubscribe(self, uri: str) -> None:
        self.legacy_uris.discard(uri)

    # -- modern --------------------------------------------------------------------------------------
    async def listen(self, request: IncomingRequest, honoured: dict[str, Any]) -> None:
        """Acknowledge, then serve the listener until the client cancels the request (never returns)."""
        listener = Listener(
            request.id,
            {flag for flag, on in honoured.items() if on is True},
            set(honoured.get("resourceSubscriptions") or ()),
        )
        await self._notify(
            "notifications/subscriptions/acknowledged",
            {"_meta": {META_SUBSCRIPTION: request.id}, "notifications": honoured},
        )
        self.listeners[request.id] = listener
        try:
            await asyncio.Event().wait()  # ended by notifications/cancelled, which cancels this task
        finally:
            self.listeners.pop(request.id, None)

    # -- pushing -------------------------------------------------------------------------------------
    async def list_changed(self, kind: str) -> None:
        method = f"notifications/{kind}/list_changed"
        if self.legacy_open:
            await self._notify(method, None)
        flag = LIST_FLAGS[kind]
        for listener in list(self.listeners.values()):
            if flag in listener.flags:
                await self._notify(method, {"_meta": {META_SUBSCRIPTION: listener.subscription_id}})

    async def resource_updated(self, uri: str) -> None:
        if uri in self.legacy_uris:
            await self._notify("notifications/resources/updated", {"uri": uri})
        for listener in list(self.listeners.values()):
            if uri in listener.uris:
                await self._notify(
                    "notifications/resources/updated",
                    {"uri": uri, "_meta": {META_SUBSCRIPTION: listener.subscription_id}},
                )
