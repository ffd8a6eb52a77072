"""`mcpx inspect`: the Textual app, its factory `make_app()` and the CLI's entry point `run_inspect()`.

The app holds a `TrafficLog` (the truth, kept across reconnects) and never touches a transport. Its
`Connection` runs the one long-lived `connection` worker that owns the client's async context; short
workers in the `requests` group list the catalogue, ping, set the log level and send raw frames; one
`Worker.StateChanged` handler reports their failures.

State flows down through reactives (`session`, `catalog`, `server_info`, `in_flight`) that widgets bind
to; widgets talk back with messages (`ItemBrowser.ItemSelected`, `EventListView.EventOpened`, …).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.filter import LineFilter
from textual.reactive import reactive
from textual.widgets import TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from mcpx.errors import McpxError
from mcpx.target import command_line
from mcpx.tui.asking.asking import Asking
from mcpx.tui.asking.roots_view import RootsView
from mcpx.tui.catalogue.item_browser import ItemBrowser
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.check.check_view import CheckView
from mcpx.tui.context import READ_ONLY_REASON, Clock, InspectContext
from mcpx.tui.forms.form_keys import letters_owned
from mcpx.tui.history.call_history import CallHistory
from mcpx.tui.session_state import ItemKind, Lists, ServerInfo, SessionState
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.commands import InspectCommands
from mcpx.tui.shell.connection import Connection, Connector, spec_connector
from mcpx.tui.shell.death_banner import DeathBanner
from mcpx.tui.shell.header_bar import HeaderBar
from mcpx.tui.shell.help_screen import GENERAL
from mcpx.tui.shell.info_view import InfoView
from mcpx.tui.shell.key_footer import KeyFooter
from mcpx.tui.shell.leaving import confirm_then
from mcpx.tui.shell.navigation import open_item_form, open_tool_call, show_check, show_event
from mcpx.tui.shell.safe_output import safe_driver
from mcpx.tui.shell.secret_filter import SecretFilter
from mcpx.tui.shell.signals import exit_on_signals
from mcpx.tui.skills.skills_view import SkillsView
from mcpx.tui.subscriptions.subscriptions_view import SubscriptionsView
from mcpx.tui.tasks.tasks_view import TasksView
from mcpx.tui.traffic.traffic_panel import TrafficPanel
from mcpx.tui.traffic.traffic_view import SEPARATOR_EVENT
from mcpx.tui.widgets.event_list_view import EventListView
from mcpx.tui.widgets.formats import format_latency
from mcpx.tui.widgets.lazy import Lazy
from mcpx.wire.traffic import TrafficEvent, TrafficLog

if TYPE_CHECKING:
    from mcpx import ServerSpec
    from mcpx.protocol.client import Client
    from mcpx.watch.loop import WatchPlan

#: the letter keys of the catalogue's tabs (the official inspector's TUI has them too)
CATALOGUE_KEYS = (
    ("T", "tools", "Tools"),
    ("R", "resources", "Resources"),
    ("M", "resourceTemplates", "Templates"),
    ("P", "prompts", "Prompts"),
)
#: actions that need the traffic panel (see check_action)
_PANEL_ACTIONS = {"focus_traffic", "clear_log", "toggle_follow", "copy_event"}
#: actions bound to a bare letter only: a form that owns its letters hides them (see check_action)
_LETTER_ACTIONS = {
    "ask_quit",
    "focus_traffic",
    "ask_reconnect",
    "show_info",
    "focus_browser",
    "show_check",
    "show_kind",
}
#: events between two gc.freeze() calls (see _tick)
FREEZE_EVERY = 5_000
#: events the TUI's traffic log holds as objects before the oldest spill to disk
TUI_KEEP_EVENTS = 100_000
TUI_KEEP_BYTES = 128 << 20
#: the header's figures (requests in flight, …) follow traffic at most this often
TICK = 0.1
__all__ = ["READ_ONLY_REASON", "Clock", "InspectApp", "make_app", "run_inspect"]


class InspectApp(App[int]):
    """The inspector: header, browser and detail on top, the traffic panel below."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [
        Path(__file__).parent / "app.tcss",
        Path(__file__).parent.parent / "asking" / "asking.tcss",
    ]
    TITLE = "mcpx inspect"
    #: `mcpx inspect --watch`: the files to watch and the collection to run again (None: no watching)
    watch_plan: WatchPlan | None = None
    #: `--tests FILE`: the collection "Save as test" writes to (None: the one beside the server's script)
    collection_file: Path | None = None
    GENERAL_HELP: ClassVar[str] = GENERAL
    """The help screen's first part (what this app is; `mcpx replay` has its own)."""
    COMMANDS = App.COMMANDS | {InspectCommands}
    BINDING_GROUP_TITLE = "mcpx"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "ask_quit", "Quit", id="quit", tooltip="Stop the server and quit"),
        Binding(
            "question_mark,f1", "help", "Help", id="help", tooltip="Help for the focused pane, and its keys"
        ),
        Binding("t", "focus_traffic", "Traffic", id="focus-traffic", tooltip="Jump to the traffic log"),
        Binding(
            "r", "ask_reconnect", "Reconnect", id="reconnect", tooltip="Restart the server / connect again"
        ),
        Binding("i", "show_info", "Info", id="show-info", tooltip="Instructions, capabilities, handshake"),
        Binding(
            "b", "focus_browser", "Browser", show=False, id="focus-browser", tooltip="Jump to the catalogue"
        ),
        Binding(
            "C", "show_check", "Check", show=False, id="show-check", tooltip="Run mcpx check on the server"
        ),
        Binding(
            "ctrl+r", "call_tool", "Call", show=False, id="call-selected-tool", tooltip="Call the tool shown"
        ),
        Binding(
            "ctrl+t",
            "save_as_test",
            "Save as test",
            show=False,
            id="save-as-test",
            tooltip="Call → collection",
        ),
        *(
            Binding(
                key,
                f"show_kind('{kind}')",
                title,
                show=False,
                id=f"show-{title.lower()}",
                tooltip=f"{title} tab",
            )
            for key, kind, title in CATALOGUE_KEYS
        ),
    ]

    session: reactive[SessionState] = reactive(SessionState, init=False)
    """The connection as the header and the death banner show it."""
    catalog: reactive[Lists] = reactive(Lists, init=False)
    """Tools, resources, templates and prompts the server listed."""
    server_info: reactive[ServerInfo | None] = reactive(None, init=False)
    """What the last connection established, for the Info view."""
    in_flight: reactive[int] = reactive(0, init=False)
    """Requests sent and not answered yet."""
    waiting: reactive[int] = reactive(0, init=False)
    """Questions from the server (elicitation, sampling) waiting for the user."""
    roots: reactive[tuple[dict[str, Any], ...]] = reactive(tuple, init=False)
    """The roots the client advertises (`Asking.set_roots` changes them)."""
    roots_asked: reactive[int] = reactive(0, init=False)
    """How many times the server asked for the roots in this connection."""
    read_only: reactive[bool] = reactive(False, init=False)
    """A recording is open (`mcpx replay`): nothing can be sent. Forms show but do not submit; anything
    that would send (reconnect, ping, raw JSON-RPC, calls) is refused with `READ_ONLY_REASON`."""

    def __init__(
        self,
        *,
        settings: InspectSettings,
        connector: Connector | None,
        traffic: TrafficLog,
        clock: Clock,
        target: str = "",
        read_only: bool = False,
        spec: ServerSpec | None = None,
        roots: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__()
        self.driver_class = safe_driver(self.driver_class)  # no C1 or bidi control reaches the terminal
        #: the server, when the app reaches one through a spec (what "Save recording…" writes in the header)
        self.spec = spec
        self.settings = settings
        self.asking = Asking(self, self, roots)
        self.set_reactive(InspectApp.roots, tuple(roots or ()))
        self.traffic = traffic
        self.clock = clock
        self.target = target
        self.connection = self.connect_with(connector) if connector is not None else None
        self._frozen_at = 0
        self._tick_due = False
        #: a resource was subscribed to (or announced updated) this session: the Subscriptions tab shows
        self._subscribed = False
        self._stop_ticks: Callable[[], None] = lambda: None
        self._quitting = False
        self.theme = settings.theme
        self.set_reactive(InspectApp.session, SessionState(target=target))
        self.set_reactive(InspectApp.read_only, read_only)
        # every drawn line passes the secret policy of the log shown (the workspace switches logs)
        self._secret_filter = SecretFilter(lambda: self.traffic.secrets)

    def get_line_filters(self) -> Sequence[LineFilter]:
        filters = super().get_line_filters()
        top = self.screen_stack[-1] if self.screen_stack else None
        if getattr(top, "reveals_secrets", False):  # the event screen after its reveal key
            return filters
        return [*filters, self._secret_filter]

    def connect_with(self, connector: Connector) -> Connection:
        """A `Connection` over the app's log, reporting to the app (its messages: `Connection.*`)."""
        return Connection(
            self,
            connector,
            traffic=self.traffic,
            clock=self.clock,
            settings=self.settings,
            target=self.target,
            session=lambda: self.session,
        )

    def context(self) -> InspectContext:
        """What the widgets composed now may use (the screen is composed again over another log when a
        workspace opens another server)."""
        return InspectContext(
            traffic=self.traffic,
            clock=self.clock,
            read_only=self.read_only,
            connected=lambda: self.client,
            target=self.target,
            spec=self.spec,
        )

    def compose(self) -> ComposeResult:
        context = self.context()
        yield HeaderBar(id="header").data_bind(
            InspectApp.session, InspectApp.in_flight, InspectApp.read_only, InspectApp.waiting
        )
        hint = command_line("doctor", self.spec) if self.spec is not None else None
        yield DeathBanner(hint, id="death-banner").data_bind(InspectApp.session, InspectApp.read_only)
        with Horizontal(id="top"):
            yield ItemBrowser(id="browser").data_bind(InspectApp.catalog)
            with TabbedContent(id="side"):
                with TabPane("Detail", id="detail-tab"):
                    yield ItemDetail(context, id="detail")
                with TabPane("History", id="history-tab"):
                    yield CallHistory(context, id="history").data_bind(InspectApp.session, InspectApp.catalog)
                with TabPane("Info", id="info-tab"):
                    yield Lazy(InfoView(id="info").data_bind(info=InspectApp.server_info))
                with TabPane("Roots", id="roots-tab"):
                    yield Lazy(
                        RootsView(id="roots").data_bind(InspectApp.roots, asked=InspectApp.roots_asked)
                    )
                with TabPane("Check", id="check-tab"):
                    yield Lazy(CheckView(context, id="check"))
                with TabPane("Tasks", id="tasks-tab"):
                    yield Lazy(TasksView(context, id="tasks").data_bind(InspectApp.session))
                with TabPane("Skills", id="skills-tab"):
                    yield Lazy(SkillsView(context, id="skills").data_bind(InspectApp.session))
                with TabPane("Subscriptions", id="subscriptions-tab"):
                    yield Lazy(SubscriptionsView(context, id="subscriptions").data_bind(InspectApp.session))
        # the traffic panel mounts right after the first paint: the tool list shows sooner (a cold start
        # spends ~0.2 s on the panel's tabs, inputs and views otherwise)
        yield Lazy(
            TrafficPanel(self.traffic, clock=self.clock, follow=self.settings.follow, id="traffic-panel")
        )
        yield KeyFooter()

    def on_load(self) -> None:
        # connect before the screen is built: the server starts up while the widgets compose
        if self.connection is not None:
            self.connection.start()

    def on_mount(self) -> None:
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        for side in self.query("#side").results(TabbedContent):
            side.hide_tab("tasks-tab")  # until tasks mean something here (_offer_tasks)
            side.hide_tab("skills-tab")  # until the server declares the Skills extension
            side.hide_tab("subscriptions-tab")  # until the session subscribes to a resource
        # woken by traffic, not by a clock: an idle session costs no CPU (everything _tick reads changes
        # only when a frame comes or goes)
        stop_ticks = self.traffic.subscribe(self._traffic_moved)
        stop_flags = self.traffic.subscribe_flags(lambda event, _: self._traffic_moved(event))

        def stop() -> None:
            stop_ticks()
            stop_flags()

        self._stop_ticks = stop
        self._tick()
        self.query_one(ItemBrowser).focus_list()
        if self.watch_plan is not None:  # `inspect --watch`: the bar above the footer restarts on edits
            from mcpx.tui.shell.watching import mount_watch

            mount_watch(self, self.watch_plan)

    async def on_unmount(self) -> None:
        """However the app ends (q, ctrl+c, a test leaving), the server stops before the loop does."""
        self._stop_ticks()
        if self.connection is not None:
            await self.connection.stop()

    @property
    def client(self) -> Client | None:
        """The connected client, or None (connecting, dead, or no server at all)."""
        return self.connection.client if self.connection is not None else None

    @property
    def panel(self) -> TrafficPanel:
        return self.query_one(TrafficPanel)

    def show_problem(self, event: TrafficEvent) -> None:
        """List an event flagged after it was appended (the Problems tab takes new events by itself)."""
        panels = self.query(TrafficPanel)
        problems = panels.first().problems if panels else None
        if problems is not None:
            problems.add(event)

    def _traffic_moved(self, event: TrafficEvent) -> None:
        subscribing = event.method in ("resources/subscribe", "notifications/resources/updated") or (
            event.method == "subscriptions/listen" and "resourceSubscriptions" in event.raw
        )
        if subscribing and not self._subscribed:
            self._subscribed = True  # from now on the Subscriptions tab has something to show
            for side in self.query("#side").results(TabbedContent):
                side.show_tab("subscriptions-tab")
        if not self._tick_due:
            self._tick_due = True
            self.set_timer(TICK, self._tick, name="inspect-tick")

    def _tick(self) -> None:
        self._tick_due = False
        if len(self.traffic) - self._frozen_at >= FREEZE_EVERY:
            # The log only grows and its events live as long as the app. Python's full collections walk
            # every tracked object, so at 100 000 events each one stalls the UI for half a second; frozen
            # objects are skipped (refcounting still frees them, only cycles among them would stay).
            gc.freeze()
            self._frozen_at = len(self.traffic)
        client = self.client
        self.in_flight = client.session.in_flight if client is not None else 0
        self.roots_asked = client.roots_asked if client is not None else self.roots_asked
        if self.asking.queue:
            self.asking.show_next()  # the user may have closed the screen that kept a question waiting
            if not self._tick_due:  # look again while a question waits (not an idle state)
                self._tick_due = True
                self.set_timer(TICK, self._tick, name="inspect-tick")

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if event.state == WorkerState.ERROR and worker.group != "connection":
            error = worker.error
            message = error.message if isinstance(error, McpxError) else f"{type(error).__name__}: {error}"
            self.notify(message, title=worker.name or "request failed", severity="error", timeout=8)

    # -- messages from the connection ----------------------------------------------------------------
    @on(Connection.SessionChanged)
    def _session_changed(self, message: Connection.SessionChanged) -> None:
        self.session = self.shown_session(message.session)

    def shown_session(self, session: SessionState) -> SessionState:
        """The session as the header shows it (a workspace puts in its own time to connect)."""
        return session

    @on(Connection.CatalogChanged)
    def _catalog_changed(self, message: Connection.CatalogChanged) -> None:
        self.catalog = message.catalog

    @on(Connection.Opened)
    def _opened(self, message: Connection.Opened) -> None:
        self.server_info = message.server_info
        self.asking.attach(message.client)
        self._offer_tasks(message.client)
        if self.settings.log_level is not None:
            self.set_log_level(self.settings.log_level)

    def _offer_tasks(self, client: Client) -> None:
        """The Tasks tab shows once tasks mean something here: the server declares them, or a task (one
        it asked of mcpx) appears. Until then it stays out of the way."""
        side = self.query("#side").results(TabbedContent)
        tabs = next(side, None)
        if tabs is None or not tabs.query("#tasks-tab"):
            return

        def show(*_: object) -> None:
            if tabs.is_attached:
                tabs.show_tab("tasks-tab")

        if client.server_capabilities.get("tasks") or client.tasks.known:
            show()
        else:
            client.tasks.on_change(show)
        if client.skills.declared is not None:
            tabs.show_tab("skills-tab")
        else:
            tabs.hide_tab("skills-tab")

    @on(Connection.Ended)
    def _ended(self) -> None:
        self.in_flight = 0

    # -- messages from the widgets -------------------------------------------------------------------
    @on(ItemBrowser.ItemSelected)
    def _item_selected(self, event: ItemBrowser.ItemSelected) -> None:
        self._show_item(event.kind, event.item)

    def show_item(self, kind: ItemKind, item: Any) -> None:
        """The item in the detail pane (the palette's jump)."""
        self._show_item(kind, item)

    def _show_item(self, kind: ItemKind, item: Any) -> None:
        for detail in self.query(ItemDetail):  # none while the app shuts down
            detail.selection = (kind, item)
        for side in self.query("#side").results(TabbedContent):
            side.active = "detail-tab"

    @on(ItemBrowser.ItemOpened)
    def _item_opened(self, event: ItemBrowser.ItemOpened) -> None:
        """Enter on an item: its detail, then its form's first field (once the panel has mounted)."""
        self._show_item(event.kind, event.item)
        self.run_worker(open_item_form(self), name="open form", group="focus", exclusive=True)

    @on(ItemDetail.Left)
    def _detail_left(self) -> None:
        self.action_focus_browser()

    def action_show_kind(self, kind: ItemKind) -> None:
        self.query_one(ItemBrowser).show_kind(kind)

    def on_tool_call_panel_call_finished(self, event: Any) -> None:
        """`ToolCallPanel.CallFinished`: the call goes into the session's history."""
        for history in self.query(CallHistory):
            history.record(event.tool_name, event.arguments, event.result_or_error, event.latency, event.size)

    @on(CallHistory.CallRequested)
    def _call_requested(self, event: CallHistory.CallRequested) -> None:
        self.request_tool_call(event.tool, event.arguments, run=event.run)

    def request_tool_call(self, tool: str, arguments: dict[str, Any], *, run: bool) -> None:
        """Open the tool's form with `arguments` in it, and call it when `run`."""
        if run and self.refuse_if_read_only("Not called"):
            return
        self.run_worker(
            open_tool_call(self, tool, arguments, run=run), name=tool, group="requests", exit_on_error=False
        )

    @on(EventListView.EventOpened)
    def _event_opened(self, event: EventListView.EventOpened) -> None:
        view = event.view

        def reselect(seq: int | None) -> None:
            if seq is not None:
                view.select_seq(seq)

        from mcpx.tui.traffic.event_screen import (
            EventScreen,  # screens load when first opened: a faster start
        )

        self.push_screen(EventScreen(self.traffic, event.event), reselect)

    @on(RootsView.Changed)
    def _roots_changed(self, event: RootsView.Changed) -> None:
        self.asking.set_roots(event.roots)

    @on(CheckView.ExchangeSelected)
    def _exchange_selected(self, event: CheckView.ExchangeSelected) -> None:
        show_event(self, event.seq)

    @on(TrafficPanel.LevelChosen)
    def _level_chosen(self, event: TrafficPanel.LevelChosen) -> None:
        self.set_log_level(event.level)

    # -- actions -------------------------------------------------------------------------------------
    def action_ask_quit(self) -> None:
        """q: quit, asking first when a call runs, a question waits or a form holds typed input."""
        if self._quitting:
            self.action_quit()
        else:
            confirm_then(self, "Quit", self.action_quit)

    def action_ask_reconnect(self) -> None:
        """r: reconnect, asking first as q does."""
        if not self.refuse_if_read_only("No reconnect") and self.connection is not None:
            confirm_then(self, "Reconnect", self.action_reconnect)

    def action_quit(self) -> None:  # type: ignore[override]
        if self._quitting:  # a second q: leave now (the server's group is still killed at exit)
            self.exit(0)
            return
        self._quitting = True
        if self.connection is not None and self.connection.running:
            self.session = replace(self.session, state="closing")
        self.run_worker(self._quit(), name="quit", group="lifecycle", exit_on_error=False)

    async def _quit(self) -> None:
        if self.connection is not None:
            await self.connection.stop()
        self.exit(0)

    def action_reconnect(self) -> None:
        if self.refuse_if_read_only("No reconnect") or self.connection is None or self._quitting:
            return
        self.run_worker(
            self._reconnect(), name="reconnect", group="lifecycle", exclusive=True, exit_on_error=False
        )

    async def _reconnect(self) -> None:
        assert self.connection is not None
        await self.connection.stop()
        if len(self.traffic):
            self.traffic.info(
                f"reconnect · connection {self.session.attempt + 1}", "protocol", event=SEPARATOR_EVENT
            )
        self.connection.start()

    def action_help(self) -> None:
        from mcpx.tui.shell.help_screen import HelpScreen

        self.push_screen(HelpScreen(self.focused, general=self.GENERAL_HELP))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _LETTER_ACTIONS and letters_owned(self.focused):
            return False  # a form keeps its letters (forms/form_keys.py): the footer must not offer them
        # the traffic panel mounts just after the first paint: its actions wait for it
        return action not in _PANEL_ACTIONS or bool(self.query("#traffic-panel"))

    def action_focus_traffic(self) -> None:
        self.panel.show_traffic()

    def action_focus_browser(self) -> None:
        self.query_one(ItemBrowser).focus_list()

    def action_call_tool(self) -> None:
        """ctrl+r from anywhere: the selected tool's call button (its panel explains a refusal)."""
        from mcpx.tui.catalogue.tool_call import ToolCallPanel

        panels = self.query(ToolCallPanel)
        if panels:
            panels.first().action_call()

    def action_show_info(self) -> None:
        side = self.query_one("#side", TabbedContent)
        side.active = "info-tab"
        # focus left in the tab being hidden would move to a sibling there, and switch that tab back
        focused = self.focused
        if focused is not None and side in focused.ancestors:
            for view in self.query(InfoView):
                view.focus()

    def action_show_roots(self, tries: int = 20) -> None:
        """The Roots tab, its table focused (the view mounts lazily: until it has, look again after a refresh,
        a bounded number of times, so the keys that follow go to its table and not to what had focus)."""
        self.query_one("#side", TabbedContent).active = "roots-tab"
        views = list(self.query(RootsView))
        for view in views:
            view.focus_table()
        if not views and tries > 0:
            self.call_after_refresh(self.action_show_roots, tries - 1)

    def action_show_check(self) -> None:
        show_check(self)

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
        if not self.query("#traffic-panel"):
            return
        panel = self.panel
        from textual.widgets import Input

        panel.query_one("#traffic-filter", Input).value = text
        panel.traffic_view.filter_text = text
        panel.show_traffic()

    def refuse_if_read_only(self, what: str = "That") -> bool:
        """True (and a notification saying why) when a recording is open and nothing may be sent."""
        if self.read_only:
            self.notify(f"{what}: {READ_ONLY_REASON}", severity="warning")
        return self.read_only

    def _require_client(self) -> Client | None:
        if self.refuse_if_read_only("Not sent"):
            return None
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

    def action_save_as_test(self) -> None:
        from mcpx.tui.shell.test_actions import save_as_test

        save_as_test(self)

    def action_run_tests(self) -> None:
        from mcpx.tui.shell.test_actions import run_tests

        run_tests(self)

    def action_save_recording(self) -> None:
        from mcpx.tui.shell.save_recording_screen import save_session

        save_session(self)

    def action_send_raw(self) -> None:
        if self.refuse_if_read_only("Not sent"):
            return

        def send(text: str | None) -> None:
            client = self._require_client()
            if text is not None and client is not None:
                self.run_worker(client.send_raw(text), name="send raw", group="requests", exit_on_error=False)
                for panel in self.query(TrafficPanel):
                    panel.show_traffic()

        from mcpx.tui.shell.raw_message_screen import RawMessageScreen

        self.push_screen(RawMessageScreen(), send)


def make_app(
    spec: ServerSpec | None = None,
    *,
    settings: InspectSettings | None = None,
    connector: Connector | None = None,
    traffic: TrafficLog | None = None,
    clock: Clock | None = None,
    read_only: bool = False,
    roots: list[dict[str, Any]] | None = None,
) -> InspectApp:
    """Build the app for `spec` (or for any `connector`, as tests do; neither: a log viewer)."""
    settings = settings if settings is not None else InspectSettings()
    clock = clock or time.monotonic
    # the TUI keeps more of the log in memory than a script does: a new filter scans every event, and
    # events read back from the spill file cost a decode each (a day-long session still stays bounded)
    log = (
        traffic
        if traffic is not None
        else TrafficLog(clock=clock, keep=TUI_KEEP_EVENTS, keep_bytes=TUI_KEEP_BYTES)
    )
    app = InspectApp(
        settings=settings,
        connector=connector,
        traffic=log,
        clock=clock,
        target=spec.label if spec else "",
        read_only=read_only,
        spec=spec,
        roots=roots,
    )
    if connector is None and spec is not None:  # a real server: it asks through the app's queue
        app.connection = app.connect_with(spec_connector(spec, settings, app.asking))
    if connector is not None or spec is not None:
        # every frame of a live session against the official schema of its revision: what breaks it is
        # flagged on the event, and the Problems tab lists it
        from mcpx.check.wire_schema import SchemaFlagger

        log.subscribe_flags(lambda event, _problem: app.show_problem(event))
        SchemaFlagger().attach(log)
    return app


def run_inspect(
    spec: ServerSpec,
    *,
    settings: InspectSettings | None = None,
    recording: Any = None,
    roots: list[dict[str, Any]] | None = None,
    watch: WatchPlan | None = None,
    tests: Path | None = None,
    **_: Any,
) -> int:
    """Run the inspector on `spec` until the user quits; the exit code for the CLI (0: quit normally).

    `recording` (the CLI's `RecordingPlan`) is attached to the app's log before the server starts and
    closed after it stopped; a write that fails is told on screen, not on the terminal under the TUI."""
    app = make_app(spec, settings=settings if settings is not None else InspectSettings.load(), roots=roots)
    app.watch_plan = watch
    app.collection_file = tests if tests is not None else watch.tests if watch is not None else None
    if recording is not None:
        recording.attach(
            app.traffic,
            on_error=lambda exc: app.notify(recording.stopped(exc), severity="error", timeout=15),
        )
    try:
        with exit_on_signals(app):  # SIGINT/SIGTERM/SIGHUP: leave like `q`, terminal restored, 128 + n
            result = app.run()
    finally:
        if recording is not None:
            recording.close()
    return result if isinstance(result, int) else (app.return_code or 0)
