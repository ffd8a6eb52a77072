"""`mcpx inspect`: the Textual app, its factory `make_app()` and the CLI's entry point `run_inspect()`.

The app holds a `TrafficLog` (the truth, kept across reconnects) and, while connected, a `Client`; it
never touches a transport. One long-lived `connection` worker owns the client's async context — opened
and closed in the same task — and waits until the server goes away or the app asks it to stop. Short
workers in the `requests` group list the catalogue, ping, set the log level and send raw frames.

State flows down through reactives (`session`, `catalog`, `server_info`, `in_flight`) that widgets bind
to; widgets talk back with messages (`ItemBrowser.ItemSelected`, `EventListView.EventOpened`, …).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.lazy import Lazy
from textual.reactive import reactive
from textual.widgets import Footer, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from mcpx.errors import ConnectError, McpxError, RpcError, ServerExitedError
from mcpx.protocol.client import Client
from mcpx.tui.commands import InspectCommands
from mcpx.tui.death_banner import DeathBanner
from mcpx.tui.event_list_view import EventListView
from mcpx.tui.header_bar import HeaderBar
from mcpx.tui.info_view import InfoView
from mcpx.tui.item_browser import ItemBrowser
from mcpx.tui.item_detail import ItemDetail
from mcpx.tui.session_state import CAPABILITY, KINDS, Catalog, ItemKind, ServerInfo, SessionState, State
from mcpx.tui.settings import InspectSettings
from mcpx.tui.traffic_panel import TrafficPanel
from mcpx.tui.traffic_view import SEPARATOR_EVENT, format_latency
from mcpx.wire.traffic import TrafficLog

if TYPE_CHECKING:
    from mcpx import ServerSpec

Clock = Callable[[], float]
#: builds a connected client over the given log; the app enters and leaves it in its connection worker
Connector = Callable[[TrafficLog], AbstractAsyncContextManager[Client]]
LISTERS = {
    "tools": "list_tools",
    "resources": "list_resources",
    "templates": "list_resource_templates",
    "prompts": "list_prompts",
}
STOP_TIMEOUT = 10.0
#: events between two gc.freeze() calls (see _tick)
FREEZE_EVERY = 5_000


def spec_connector(spec: ServerSpec, settings: InspectSettings) -> Connector:
    """The connector for a real server: `mcpx.connect()` with the settings' timeouts and era."""

    @asynccontextmanager
    async def open_client(traffic: TrafficLog) -> AsyncIterator[Client]:
        from mcpx.protocol.connect import connect

        async with connect(
            spec,
            traffic=traffic,
            timeout=settings.timeout,
            connect_timeout=settings.connect_timeout,
            protocol_era=settings.protocol_era,
            protocol_version=settings.protocol_version,
            probe_timeout=settings.probe_timeout,
        ) as client:
            yield client

    return open_client


class InspectApp(App[int]):
    """The inspector: header, browser and detail on top, the traffic panel below."""

    CSS_PATH = Path(__file__).parent / "app.tcss"
    TITLE = "mcpx inspect"
    COMMANDS = App.COMMANDS | {InspectCommands}
    BINDING_GROUP_TITLE = "mcpx"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="quit", tooltip="Stop the server and quit"),
        Binding(
            "question_mark,f1", "help", "Help", id="help", tooltip="Help for the focused pane, and its keys"
        ),
        Binding("t", "focus_traffic", "Traffic", id="focus-traffic", tooltip="Jump to the traffic log"),
        Binding("r", "reconnect", "Reconnect", id="reconnect", tooltip="Restart the server / connect again"),
        Binding("i", "show_info", "Info", id="show-info", tooltip="Instructions, capabilities, handshake"),
        Binding(
            "b", "focus_browser", "Browser", show=False, id="focus-browser", tooltip="Jump to the catalogue"
        ),
    ]

    session: reactive[SessionState] = reactive(SessionState, init=False)
    """The connection as the header and the death banner show it."""
    catalog: reactive[Catalog] = reactive(Catalog, init=False)
    """Tools, resources, templates and prompts the server listed."""
    server_info: reactive[ServerInfo | None] = reactive(None, init=False)
    """What the last connection established, for the Info view."""
    in_flight: reactive[int] = reactive(0, init=False)
    """Requests sent and not answered yet."""

    def __init__(
        self,
        *,
        settings: InspectSettings,
        connector: Connector | None,
        traffic: TrafficLog,
        clock: Clock,
        target: str = "",
    ) -> None:
        super().__init__()
        self.settings = settings
        self.connector = connector
        self.traffic = traffic
        self.clock = clock
        self.target = target
        self.client: Client | None = None
        self.connection: Worker[None] | None = None
        self._stop = asyncio.Event()
        self._problems_seen = 0
        self._frozen_at = 0
        self._quitting = False
        self.theme = settings.theme
        self.set_reactive(InspectApp.session, SessionState(target=target))

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header").data_bind(InspectApp.session, InspectApp.in_flight)
        yield DeathBanner(id="death-banner").data_bind(InspectApp.session)
        with Horizontal(id="top"):
            yield ItemBrowser(id="browser").data_bind(InspectApp.catalog)
            with TabbedContent(id="side"):
                with TabPane("Detail", id="detail-tab"):
                    yield ItemDetail(id="detail")
                with TabPane("Info", id="info-tab"):
                    yield Lazy(InfoView(id="info").data_bind(info=InspectApp.server_info))
        yield TrafficPanel(self.traffic, clock=self.clock, follow=self.settings.follow, id="traffic-panel")
        yield Footer()

    def on_load(self) -> None:
        # connect before the screen is built: the server starts up while the widgets compose
        if self.connector is not None:
            self.start_connection()

    def on_mount(self) -> None:
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        self.set_interval(0.1, self._tick, name="inspect-tick")
        self.query_one(ItemBrowser).focus_list()

    async def on_unmount(self) -> None:
        """However the app ends (q, ctrl+c, a test leaving), the server stops before the loop does."""
        await self.stop_connection()

    @property
    def panel(self) -> TrafficPanel:
        return self.query_one(TrafficPanel)

    # -- the connection worker -----------------------------------------------------------------------
    def start_connection(self) -> None:
        assert self.connector is not None
        self._stop = asyncio.Event()
        self.connection = self.run_worker(
            self._connection(self.connector, self._stop),
            name="connection",
            group="connection",
            exclusive=True,
            exit_on_error=False,
        )

    async def _connection(self, connector: Connector, stop: asyncio.Event) -> None:
        attempt = self.session.attempt + 1
        self.session = SessionState("connecting", target=self.target, attempt=attempt)
        self.catalog = Catalog()
        first_seq = len(self.traffic)
        started = self.clock()
        ended: McpxError | None = None
        connected = False
        try:
            async with connector(self.traffic) as client:
                connected = True
                self.client = client
                self._problems_seen = 0
                self._connected(client, attempt, self.clock() - started)
                closed = asyncio.ensure_future(client.peer.closed.wait())
                stopping = asyncio.ensure_future(stop.wait())
                try:
                    await asyncio.wait({closed, stopping}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    closed.cancel()
                    stopping.cancel()
                if not stop.is_set():
                    ended = client.peer.ended or ConnectError("the connection ended")
        except McpxError as exc:
            ended = exc
        finally:
            self.client = None
            self.in_flight = 0
        if stop.is_set() and ended is None:
            self.session = replace(self.session, state="closed")
        else:
            self.session = self._dead(ended or ConnectError("the connection ended"), connected, first_seq)

    def _connected(self, client: Client, attempt: int, seconds: float) -> None:
        opened = client.opened
        assert opened is not None
        info = opened.server_info
        self.session = SessionState(
            "connected",
            target=self.target,
            attempt=attempt,
            server_name=info.name,
            server_version=info.version,
            server_title=info.title,
            era=opened.era,
            protocol_version=opened.protocol_version,
            transport=getattr(client.transport, "name", None),
            connect_seconds=seconds,
        )
        exchange = tuple(
            (
                self.traffic[seq].direction,
                self.traffic[seq].method or self.traffic[seq].kind,
                self.traffic[seq].raw,
            )
            for seq in opened.exchange
            if 0 <= seq < len(self.traffic)
        )
        self.server_info = ServerInfo(
            instructions=opened.instructions,
            server_info=info.raw
            if isinstance(info.raw, dict)
            else info.model_dump(by_alias=True, exclude_none=True),
            server_capabilities=opened.capabilities,
            client_info=client.identity.info,
            client_capabilities=client.identity.capabilities,
            exchange=exchange,
            transport=dict(client.transport.describe()),
            notes=tuple(opened.notes),
        )
        unavailable = {
            kind: f"The server did not declare the “{CAPABILITY[kind]}” capability."
            for kind in KINDS
            if CAPABILITY[kind] not in opened.capabilities
        }
        self.catalog = Catalog(unavailable=unavailable)
        for kind in KINDS:
            if kind not in unavailable:
                self.run_worker(
                    self._load(client, kind), name=f"list-{kind}", group="requests", exit_on_error=False
                )
        client.on_list_changed(self._list_changed)
        if self.settings.log_level is not None:
            self.set_log_level(self.settings.log_level)

    def _dead(self, error: McpxError, connected: bool, first_seq: int) -> SessionState:
        returncode = error.returncode if isinstance(error, ServerExitedError) else None
        tail = tuple(error.stderr_tail) if isinstance(error, ServerExitedError) else ()
        if not tail:  # from the log: the same for every transport that reports stderr
            lines = [e.raw for e in self.traffic.since(first_seq) if e.channel == "stderr"]
            tail = tuple(lines)
        tail = tail[-self.settings.stderr_tail :] if self.settings.stderr_tail else ()
        if returncode is not None:
            state: State = "exited"
        elif not connected:
            state = "failed"
        else:
            state = "disconnected"
        return replace(
            self.session, state=state, returncode=returncode, error=error.message, stderr_tail=tail
        )

    async def _load(self, client: Client, kind: ItemKind) -> None:
        try:
            items = await getattr(client, LISTERS[kind])()
        except RpcError as exc:
            if client is self.client:
                reason = f"{exc.method} failed: {exc.error_message} ({exc.error_code})"
                self.catalog = replace(self.catalog, unavailable={**self.catalog.unavailable, kind: reason})
            return
        if client is self.client:
            self.catalog = self.catalog.with_items(kind, tuple(items))

    def _list_changed(self, name: str) -> None:
        client = self.client
        if client is None:
            return
        kinds: dict[str, ItemKind] = {"resourceTemplates": "templates"}
        kind = kinds.get(name, name)
        items = client.cached(name)
        if kind in KINDS and items is not None:
            self.catalog = self.catalog.with_items(kind, tuple(items))

    async def stop_connection(self) -> None:
        """End the connection worker (the client closes the server in that task) and wait for it."""
        worker = self.connection
        if worker is None or worker.is_finished:
            return
        self._stop.set()
        if self.session.state == "connecting":
            worker.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(worker.wait(), STOP_TIMEOUT)
        if not worker.is_finished:
            worker.cancel()

    def _tick(self) -> None:
        if len(self.traffic) - self._frozen_at >= FREEZE_EVERY:
            # The log only grows and its events live as long as the app. Python's full collections walk
            # every tracked object, so at 100 000 events each one stalls the UI for half a second; frozen
            # objects are skipped (refcounting still frees them, only cycles among them would stay).
            gc.freeze()
            self._frozen_at = len(self.traffic)
        client = self.client
        self.in_flight = client.peer.in_flight if client is not None else 0
        panels = self.query(TrafficPanel)
        if client is not None and panels and len(client.peer.problems) > self._problems_seen:
            problems = panels.first().problems
            if problems is not None:
                for event, _ in client.peer.problems[self._problems_seen :]:
                    problems.add(event)
                self._problems_seen = len(client.peer.problems)

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state == WorkerState.ERROR and worker.group != "connection":
            error = worker.error
            message = error.message if isinstance(error, McpxError) else f"{type(error).__name__}: {error}"
            self.notify(message, title=worker.name or "request failed", severity="error", timeout=8)

    # -- messages from the widgets -------------------------------------------------------------------
    @on(ItemBrowser.ItemSelected)
    def _item_selected(self, event: ItemBrowser.ItemSelected) -> None:
        for detail in self.query(ItemDetail):  # none while the app shuts down
            detail.selection = (event.kind, event.item)
            self.query_one("#side", TabbedContent).active = "detail-tab"

    @on(EventListView.EventOpened)
    def _event_opened(self, event: EventListView.EventOpened) -> None:
        view = event.view

        def reselect(seq: int | None) -> None:
            if seq is not None:
                view.select_seq(seq)

        from mcpx.tui.event_screen import EventScreen  # screens load when first opened: a faster start

        self.push_screen(EventScreen(self.traffic, event.event), reselect)

    @on(TrafficPanel.LevelChosen)
    def _level_chosen(self, event: TrafficPanel.LevelChosen) -> None:
        self.set_log_level(event.level)

    # -- actions -------------------------------------------------------------------------------------
    def action_quit(self) -> None:  # type: ignore[override]
        if self._quitting:  # a second q: leave now (the server's group is still killed at exit)
            self.exit(0)
            return
        self._quitting = True
        if self.connection is not None and not self.connection.is_finished:
            self.session = replace(self.session, state="closing")
        self.run_worker(self._quit(), name="quit", group="lifecycle", exit_on_error=False)

    async def _quit(self) -> None:
        await self.stop_connection()
        self.exit(0)

    def action_reconnect(self) -> None:
        if self.connector is None or self._quitting:
            return
        self.run_worker(
            self._reconnect(), name="reconnect", group="lifecycle", exclusive=True, exit_on_error=False
        )

    async def _reconnect(self) -> None:
        await self.stop_connection()
        if len(self.traffic):
            self.traffic.info(
                f"reconnect · connection {self.session.attempt + 1}", "protocol", event=SEPARATOR_EVENT
            )
        self.start_connection()

    def action_help(self) -> None:
        from mcpx.tui.help_screen import HelpScreen

        self.push_screen(HelpScreen(self.focused))

    def action_focus_traffic(self) -> None:
        self.panel.show_traffic()

    def action_focus_browser(self) -> None:
        self.query_one(ItemBrowser).focus_list()

    def action_show_info(self) -> None:
        self.query_one("#side", TabbedContent).active = "info-tab"

    def action_clear_log(self) -> None:
        self.panel.clear()

    def action_toggle_follow(self) -> None:
        view = self.panel.traffic_view
        view.following = not view.following

    def action_copy_event(self) -> None:
        view = self.focused if isinstance(self.focused, EventListView) else self.panel.traffic_view
        event = view.event_at_cursor() or (self.traffic[len(self.traffic) - 1] if len(self.traffic) else None)
        if event is None:
            self.notify("The log is empty: nothing to copy.", severity="warning")
            return
        self.copy_to_clipboard(event.raw)
        self.notify(f"Copied event #{event.seq} ({len(event.raw):,} characters).")

    def set_traffic_filter(self, text: str) -> None:
        panel = self.panel
        from textual.widgets import Input

        panel.query_one("#traffic-filter", Input).value = text
        panel.traffic_view.filter_text = text
        panel.show_traffic()

    def _require_client(self) -> Client | None:
        if self.client is None:
            self.notify("Not connected: press r to reconnect.", severity="warning")
        return self.client

    def action_ping(self) -> None:
        client = self._require_client()
        if client is not None:
            self.run_worker(self._ping(client), name="ping", group="requests", exit_on_error=False)

    async def _ping(self, client: Client) -> None:
        started = self.clock()
        await client.ping()
        self.notify(f"pong in {format_latency(self.clock() - started)}")

    def set_log_level(self, level: str) -> None:
        client = self._require_client()
        if client is not None:
            self.run_worker(
                self._set_level(client, level), name="logging/setLevel", group="requests", exit_on_error=False
            )

    async def _set_level(self, client: Client, level: str) -> None:
        for panel in self.query(TrafficPanel):
            panel.set_level(level)
        await client.set_logging_level(level)
        self.notify(f"Log level set to {level}.")

    def action_send_raw(self) -> None:
        def send(text: str | None) -> None:
            client = self._require_client()
            if text is not None and client is not None:
                self.run_worker(client.send_raw(text), name="send raw", group="requests", exit_on_error=False)
                self.panel.show_traffic()

        from mcpx.tui.raw_message_screen import RawMessageScreen

        self.push_screen(RawMessageScreen(), send)


def make_app(
    spec: ServerSpec | None = None,
    *,
    settings: InspectSettings | None = None,
    connector: Connector | None = None,
    traffic: TrafficLog | None = None,
    clock: Clock | None = None,
) -> InspectApp:
    """Build the app for `spec` (or for any `connector`, as tests do; neither: a log viewer)."""
    settings = settings if settings is not None else InspectSettings()
    clock = clock or time.monotonic
    if connector is None and spec is not None:
        connector = spec_connector(spec, settings)
    log = traffic if traffic is not None else TrafficLog(clock=clock)
    return InspectApp(
        settings=settings, connector=connector, traffic=log, clock=clock, target=spec.label if spec else ""
    )


def run_inspect(spec: ServerSpec, *, settings: InspectSettings | None = None, **_: Any) -> int:
    """Run the inspector on `spec` until the user quits; the exit code for the CLI (0: quit normally)."""
    app = make_app(spec, settings=settings if settings is not None else InspectSettings.load())
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)
