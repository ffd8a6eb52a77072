"""`ResourcePanel`: read a resource (text syntax-highlighted by MIME type, blobs with size, type and
Save…), subscribe to it and unsubscribe, and watch `notifications/resources/updated` arrive.

Subscriptions outlive the panel (it is rebuilt on every selection): `ResourceUpdates` keeps, per client,
what is subscribed and every update received. Legacy era: `resources/subscribe`; modern era: the
client's `subscriptions/listen` request names the URI (`Client.subscribe_resource` does either).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from mcpx.tui.context import InspectContext
from mcpx.tui.results.content_view import ReadResultView
from mcpx.tui.widgets.dom import child
from mcpx.tui.widgets.event_list_view import printable, session_start
from mcpx.wire import TrafficEvent

UPDATED = "notifications/resources/updated"


@dataclass
class ResourceUpdates:
    """What one client is subscribed to, and the updates it received (uri → their traffic events)."""

    subscribed: set[str] = field(default_factory=set)
    received: dict[str, list[TrafficEvent]] = field(default_factory=dict)
    listeners: list[Callable[[str], None]] = field(default_factory=list)

    _of: ClassVar[weakref.WeakKeyDictionary[Any, ResourceUpdates]] = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, client: Any) -> ResourceUpdates:
        """The record of `client` (created, and hooked to its notifications, on first use)."""
        updates = cls._of.get(client)
        if updates is None:
            updates = cls._of[client] = cls()

            def arrived(message: Any, event: Any) -> None:
                params = message.params if isinstance(message.params, dict) else {}
                uri = params.get("uri")
                if isinstance(uri, str):
                    updates.received.setdefault(uri, []).append(event)
                    for listener in list(updates.listeners):
                        listener(uri)

            client.on_notification(UPDATED, arrived)
        return updates


class ResourcePanel(Vertical):
    """Read, subscribe and unsubscribe for one resource; what was read shows below."""

    HELP: ClassVar[str] = """\
**Read** sends resources/read and shows each item: text highlighted by its MIME type, blobs by size and
type (Save… writes them to a file). **Subscribe** asks the server to tell when the resource changes
(legacy: resources/subscribe; modern: through subscriptions/listen); updates are counted here as they
arrive, and Read fetches the new content.
"""

    DEFAULT_CSS = """
    ResourcePanel { height: auto; margin-top: 1; }
    ResourcePanel > .panel-buttons { height: auto; }
    ResourcePanel > .panel-buttons > Button { margin-right: 1; }
    ResourcePanel > #resource-updates { color: $text-warning; margin-top: 1; }
    ResourcePanel > #resource-updates.-quiet { color: $text-muted; }
    """

    def __init__(self, uri: str, context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="call-panel")
        self.context = context
        self.uri = uri
        self._updates: ResourceUpdates | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="panel-buttons"):
            yield Button("Read", id="resource-read", variant="primary", compact=True)
            yield Button("Subscribe", id="resource-subscribe", compact=True)
        yield Static("", id="resource-updates")
        yield Vertical(id="resource-result", classes="panel-result")

    def on_mount(self) -> None:
        client = self.context.client
        if client is not None:
            self._updates = ResourceUpdates.of(client)
            self._updates.listeners.append(self._arrived)
        capabilities = client.server_capabilities if client is not None else {}
        resources = capabilities.get("resources") if isinstance(capabilities, dict) else None
        button = child(self, "#resource-subscribe", Button)
        if button is not None and not (isinstance(resources, dict) and resources.get("subscribe")):
            button.disabled = True
            button.tooltip = "The server did not declare resources.subscribe."
        self._show_updates()

    def on_unmount(self) -> None:
        if self._updates is not None and self._arrived in self._updates.listeners:
            self._updates.listeners.remove(self._arrived)

    @property
    def subscribed(self) -> bool:
        return self._updates is not None and self.uri in self._updates.subscribed

    def _arrived(self, uri: str) -> None:
        if uri == self.uri:
            self._show_updates()

    def _show_updates(self) -> None:
        button = child(self, "#resource-subscribe", Button)
        line = child(self, "#resource-updates", Static)
        if button is None or line is None:
            return
        button.label = "Unsubscribe" if self.subscribed else "Subscribe"
        events = self._updates.received.get(self.uri, []) if self._updates else []
        line.set_class(not events, "-quiet")
        if events:
            last, count = events[-1], len(events)
            at = f" at +{last.mono - session_start(self.context.traffic):.3f}s"
            line.update(
                Text(
                    f"⟳ {UPDATED}: {count} update{'s' if count != 1 else ''}, "
                    f"the last one event #{last.seq}{at} — Read again"
                )
            )
        else:
            line.update("subscribed: no update yet" if self.subscribed else "")

    @on(Button.Pressed, "#resource-read")
    def read(self) -> None:
        client = self._client()
        if client is not None:
            self.run_worker(self._read(client), name="resources/read", group="requests", exit_on_error=False)

    async def _read(self, client: Any) -> None:
        clock = self.context.clock
        started = clock()
        result = await client.read_resource(self.uri)
        box = child(self, "#resource-result", Vertical)
        if box is None:
            return
        await box.remove_children()
        view = ReadResultView(result.raw, latency=clock() - started)
        await box.mount(view)
        view.scroll_visible(animate=False, top=True)

    @on(Button.Pressed, "#resource-subscribe")
    def toggle_subscription(self) -> None:
        client = self._client()
        if client is not None:
            self.run_worker(self._toggle(client), name="subscribe", group="requests", exit_on_error=False)

    async def _toggle(self, client: Any) -> None:
        updates = ResourceUpdates.of(client)
        if self.uri in updates.subscribed:
            await client.unsubscribe_resource(self.uri)
            updates.subscribed.discard(self.uri)
            self.notify(f"Unsubscribed from {printable(self.uri)}")
        else:
            await client.subscribe_resource(self.uri)
            updates.subscribed.add(self.uri)
            self.notify(f"Subscribed to {printable(self.uri)}")
        self._show_updates()

    def _client(self) -> Any:
        return self.context.client_for(self)
