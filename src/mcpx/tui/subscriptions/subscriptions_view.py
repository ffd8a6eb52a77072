"""`SubscriptionsView`: one place for the resource subscriptions of the session — each subscribed URI,
how many `notifications/resources/updated` came for it and when the last one did (and updates for URIs
no longer subscribed, or never: a server may announce them anyway).

It reads the client's `watching` (protocol/subscriptions.py) and redraws when the traffic log shows a
subscription change or an update; nothing polls. **u** unsubscribes the highlighted URI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from mcpx.errors import McpxError
from mcpx.tui.context import InspectContext
from mcpx.tui.session_state import SessionState
from mcpx.tui.widgets.event_list_view import printable
from mcpx.tui.widgets.formats import format_latency
from mcpx.wire.traffic import TrafficEvent

#: traffic that may change what this view shows
WATCHED = ("notifications/resources/updated", "resources/subscribe", "resources/unsubscribe",
           "subscriptions/listen", "notifications/subscriptions/acknowledged")  # fmt: skip


class SubscriptionsView(Vertical):
    """Subscribed URIs with their update counts and the time since the last update."""

    HELP: ClassVar[str] = """\
The resources this session subscribed to (from a resource's panel), each with the number of
`notifications/resources/updated` received and how long ago the last one came. Updates for URIs that are
not subscribed are listed too, marked. **u** unsubscribes the highlighted URI.
"""
    BINDING_GROUP_TITLE = "Subscriptions"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "unsubscribe", "Unsubscribe", id="subscriptions-unsubscribe",
                tooltip="Unsubscribe from the highlighted resource"),
    ]  # fmt: skip
    DEFAULT_CSS = """
    SubscriptionsView { height: 1fr; }
    SubscriptionsView > #subscriptions-summary { height: auto; color: $text-muted; }
    SubscriptionsView > #subscription-list { height: 1fr; border: none; }
    """

    session: reactive[SessionState | None] = reactive(None, init=False)
    """The session (bound from the app): a new connection has subscriptions of its own."""

    def __init__(self, context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.context = context
        self._order: list[str] = []
        self._stop: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        yield Static("No subscriptions.", id="subscriptions-summary")
        yield OptionList(id="subscription-list")

    def on_mount(self) -> None:
        self._stop = self.context.traffic.subscribe(self._heard)
        self.refresh_rows()

    def on_unmount(self) -> None:
        if self._stop is not None:
            self._stop()

    def watch_session(self, session: SessionState | None) -> None:
        self.refresh_rows()

    def _heard(self, event: TrafficEvent) -> None:
        if event.method in WATCHED:
            self.call_after_refresh(self.refresh_rows)

    def refresh_rows(self) -> None:
        if not self.is_attached or not self.query("#subscription-list"):
            return
        client = self.context.client
        uris = sorted(client.watching.uris) if client is not None else []
        updates = dict(client.watching.updates) if client is not None else {}
        self._order = [*uris, *sorted(u for u in updates if u not in uris)]
        listing = self.query_one("#subscription-list", OptionList)
        keep = listing.highlighted
        listing.clear_options()
        now = self.context.clock()
        for uri in self._order:
            row = Text(printable(uri), style="bold" if uri in uris else "dim")
            count, last = updates.get(uri, (0, None))
            row.append(f"  {count} update{'s' if count != 1 else ''}", style="dim")
            if last is not None:
                row.append(f", last {format_latency(max(0.0, now - last.mono))} ago", style="dim")
            if uri not in uris:
                row.append("  (not subscribed)", style="italic dim")
            listing.add_option(Option(row, id=uri))
        if self._order:
            listing.highlighted = keep if keep is not None and keep < len(self._order) else 0
        summary = f"{len(uris)} subscribed, {sum(c for c, _ in updates.values())} update(s) received"
        self.query_one("#subscriptions-summary", Static).update(
            summary if self._order else "No subscriptions."
        )

    def action_unsubscribe(self) -> None:
        index = self.query_one("#subscription-list", OptionList).highlighted
        client = self.context.client_for(self, "Not unsubscribed")
        if index is None or index >= len(self._order) or client is None:
            return
        uri = self._order[index]

        async def unsubscribe() -> None:
            try:
                await client.unsubscribe_resource(uri)
            except McpxError as exc:
                self.notify(exc.message, severity="error")
            self.refresh_rows()

        self.run_worker(unsubscribe(), group="requests", exit_on_error=False)
