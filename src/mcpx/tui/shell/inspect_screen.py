"""`InspectScreen`: the inspector's view of one session — header, browser and detail on top, the traffic
panel below — that every app composes: `mcpx inspect` (one live connection), `mcpx replay` (a recording,
no connection) and a workspace (one screen for the server opened, many servers behind it).

The screen is given everything at construction — an `InspectContext` (the log, the clock, read-only, the
connected client), the settings — and holds the state its widgets bind to (`session`, `catalog`,
`server_info`, `in_flight`, `waiting`, `roots`, `roots_asked`, `read_only`). Whoever feeds the screen sets
that state: a live app's `Connection` reports to the screen with messages (`Connection.SessionChanged`, …),
a replay writes the session as of its scrubber's moment. What only the app can do goes up as messages
(`ReconnectRequested`, `QuestionsWanted`); nothing here asks which app it is in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.command import Provider
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import Reactive, reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent
from textual.worker import Worker, WorkerState

from mcpx.errors import McpxError
from mcpx.target import command_line
from mcpx.tui.catalogue.item_browser import ItemBrowser
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.check.check_view import CheckView
from mcpx.tui.context import InspectContext
from mcpx.tui.forms.form_keys import letters_owned
from mcpx.tui.history.call_history import CallHistory
from mcpx.tui.session_state import KINDS, ItemKind, Lists, ServerInfo, SessionState
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell import heap, navigation, sending
from mcpx.tui.shell.commands import InspectCommands
from mcpx.tui.shell.connection import Connection
from mcpx.tui.shell.death_banner import DeathBanner
from mcpx.tui.shell.header_bar import HeaderBar
from mcpx.tui.shell.help_screen import GENERAL, prepare_help
from mcpx.tui.shell.inspect_keys import INSPECT_BINDINGS, LETTER_ACTIONS, PANEL_ACTIONS
from mcpx.tui.shell.key_footer import KeyFooter
from mcpx.tui.shell.side_pane import compose_side_pane
from mcpx.tui.traffic.traffic_panel import TrafficPanel
from mcpx.tui.widgets.event_list_view import EventListView
from mcpx.tui.widgets.lazy import Lazy
from mcpx.wire.traffic import TrafficEvent

if TYPE_CHECKING:
    from textual.worker import Worker as AnyWorker

    from mcpx.protocol.client import Client
    from mcpx.tui.catalogue.tool_call import ToolCallPanel

#: the layout every app that shows an `InspectScreen` loads (`CSS_PATH`)
INSPECT_CSS: list[str | PurePath] = [
    Path(__file__).parent / "app.tcss",
    Path(__file__).parent.parent / "asking" / "asking.tcss",
]
#: events between two gc.freeze() calls (see _tick)
FREEZE_EVERY = 5_000
#: the header's figures (requests in flight, …) follow traffic at most this often
TICK = 0.1


def _as_shown(session: SessionState) -> SessionState:
    return session


def report_failure(node: Widget | Any, event: Worker.StateChanged) -> None:
    """A short worker of `node` failed (a request, a save): one notification saying what went wrong."""
    worker: AnyWorker[Any] = event.worker
    if event.state == WorkerState.ERROR and worker.group != "connection":
        error = worker.error
        message = error.message if isinstance(error, McpxError) else f"{type(error).__name__}: {error}"
        node.notify(message, title=worker.name or "request failed", severity="error", timeout=8)


class InspectScreen(Screen[None]):
    """The inspector over one traffic log: what the session is, what the server lists, every frame."""

    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {InspectCommands}
    BINDING_GROUP_TITLE = "mcpx"
    BINDINGS: ClassVar[list[BindingType]] = INSPECT_BINDINGS
    #: Textual focuses the first focusable widget when nothing is: while the item lists are disabled (a
    #: replay or an attach opened before the server's answer to initialize) that was the browser's filter,
    #: and every key the user pressed next (C, i, q…) was typed into it. Nothing focused, the keys reach the
    #: bindings; the item browser focuses its list once it can (`ItemBrowser._refresh`).
    AUTO_FOCUS = ""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    """The focused widget. Textual's `Screen.focused` repaints the whole screen when the focus moves (~100
    widgets drawn again for a Tab); the widgets it concerns repaint themselves: the one focused and the one
    blurred, and those restyled by `:focus` / `:focus-within` rules."""
    session: reactive[SessionState] = reactive(SessionState, init=False)
    """The connection as the header and the death banner show it."""
    catalog: reactive[Lists] = reactive(Lists, init=False)
    """Tools, resources, resource templates and prompts the server listed."""
    server_info: reactive[ServerInfo | None] = reactive(None, init=False)
    """What the last connection established, for the Info view."""
    in_flight: reactive[int] = reactive(0, init=False)
    """Requests sent and not answered yet."""
    waiting: reactive[int] = reactive(0, init=False)
    """Questions from the server (elicitation, sampling) waiting for the user."""
    roots: reactive[tuple[dict[str, Any], ...]] = reactive(tuple, init=False)
    """The roots the client advertises (the app's questions queue changes them)."""
    roots_asked: reactive[int] = reactive(0, init=False)
    """How many times the server asked for the roots in this connection."""
    read_only: reactive[bool] = reactive(False, init=False)
    """A recording is open (`mcpx replay`): nothing can be sent. Forms show but do not submit; anything
    that would send (reconnect, ping, raw JSON-RPC, calls) is refused with `READ_ONLY_REASON`."""

    class ReconnectRequested(Message):
        """The user asked to connect again (r, the palette); the app that holds the connection does it."""

    class QuestionsWanted(Message):
        """The user asked to see the next question the server is waiting on (the palette)."""

    def __init__(
        self,
        context: InspectContext,
        *,
        settings: InspectSettings,
        general_help: str = GENERAL,
        shown_session: Callable[[SessionState], SessionState] = _as_shown,
        roots: tuple[dict[str, Any], ...] = (),
        hidden_tabs: tuple[str, ...] = (),
        notices: tuple[Widget, ...] = (),
        above_footer: Widget | None = None,
    ) -> None:
        super().__init__()
        self.context = context
        self.settings = settings
        #: the help screen's first part (what this app is; `mcpx replay` has its own)
        self.general_help = general_help
        #: the session as the header shows it (a workspace puts in its own time to connect)
        self.shown_session = shown_session
        #: a line under the header and a bar above the footer, for what an app adds (a replay's
        #: damaged-recording banner and its scrubber)
        self._notices = notices
        self._above_footer = above_footer
        #: side tabs that mean nothing here (a recording has no history, roots or live checks)
        self.hidden_tabs = hidden_tabs
        #: `--tests FILE`: the collection "Save as test" writes to (None: the one beside the server's script)
        self.collection_file: Path | None = None
        self._frozen_at = 0
        self._tick_due = False
        self._stop_listening: Callable[[], None] = lambda: None
        #: a resource was subscribed to (or announced updated) this session: the Subscriptions tab shows
        self._subscribed = False
        self._heap_settled = False
        self.set_reactive(InspectScreen.session, SessionState(target=context.target))
        self.set_reactive(InspectScreen.read_only, context.read_only)
        self.set_reactive(InspectScreen.roots, roots)

    @property
    def client(self) -> Client | None:
        """The connected client now, or None (connecting, dead, a recording)."""
        return self.context.client

    @property
    def panel(self) -> TrafficPanel:
        return self.query_one(TrafficPanel)

    def compose(self) -> ComposeResult:
        context = self.context
        yield HeaderBar(id="header").data_bind(
            InspectScreen.session, InspectScreen.in_flight, InspectScreen.read_only, InspectScreen.waiting
        )
        yield from self._notices
        hint = command_line("doctor", context.spec) if context.spec is not None else None
        yield DeathBanner(hint, id="death-banner").data_bind(InspectScreen.session, InspectScreen.read_only)
        with Horizontal(id="top"):
            yield ItemBrowser(id="browser").data_bind(InspectScreen.catalog)
            yield from compose_side_pane(self)
        # the traffic panel mounts right after the first paint: the tool list shows sooner (a cold start
        # spends ~0.2 s on the panel's tabs, inputs and views otherwise)
        yield Lazy(
            TrafficPanel(
                context.traffic, clock=context.clock, follow=self.settings.follow, id="traffic-panel"
            )
        )
        if self._above_footer is not None:
            yield self._above_footer
        yield KeyFooter()

    def on_mount(self) -> None:
        # woken by traffic, not by a clock: an idle session costs no CPU (everything _tick reads changes
        # only when a frame comes or goes)
        traffic = self.context.traffic
        stop_ticks = traffic.subscribe(self._traffic_moved)

        def flagged(event: TrafficEvent, _problem: str) -> None:
            self.show_problem(event)
            self._traffic_moved(event)

        stop_flags = traffic.subscribe_flags(flagged)

        def stop() -> None:
            stop_ticks()
            stop_flags()

        self._stop_listening = stop
        side = self.query_one("#side", TabbedContent)
        # tasks until they mean something here (_offer_tasks), skills until the server declares the
        # extension, subscriptions until the session subscribes to a resource
        for tab in (*self.hidden_tabs, "tasks-tab", "skills-tab", "subscriptions-tab"):
            side.hide_tab(tab)
        self._tick()
        self.query_one(ItemBrowser).focus_list()

    def on_unmount(self) -> None:
        self._stop_listening()

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
        traffic = self.context.traffic
        if len(traffic) - self._frozen_at >= FREEZE_EVERY:
            # The log only grows and its events live as long as the app. Python's full collections walk
            # every tracked object, so at 100 000 events each one stalls the UI for half a second; frozen
            # objects are skipped (refcounting still frees them, only cycles among them would stay). The
            # collect first walks only what came since the last freeze, and keeps the garbage among it (a
            # removed call panel's widgets are a cycle) out of the frozen heap for the rest of the day.
            heap.settle()
            self._frozen_at = len(traffic)
        client = self.client
        self.in_flight = client.session.in_flight if client is not None else 0
        self.roots_asked = client.roots_asked if client is not None else self.roots_asked

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    # -- messages from the connection ----------------------------------------------------------------
    @on(Connection.SessionChanged)
    def _session_changed(self, message: Connection.SessionChanged) -> None:
        self.session = self.shown_session(message.session)

    def watch_catalog(self, catalog: Lists) -> None:
        if any(catalog.items(kind) is not None for kind in KINDS):  # the help built off screen, once idle
            prepare_help(self, self.general_help)

    @on(Connection.CatalogChanged)
    def _catalog_changed(self, message: Connection.CatalogChanged) -> None:
        self.catalog = message.catalog
        catalog = message.catalog
        # the detail is filled now, for the frame that shows the list: the browser's ItemSelected comes
        # two message hops later, behind a layout and whatever else is queued (0.1-0.3 s after the list)
        highlighted = self.query_one(ItemBrowser).highlighted()
        if highlighted is not None:
            self._show_item(*highlighted)
        if not self._heap_settled and any(catalog.items(kind) is not None for kind in KINDS):
            # the app's heap out of full collections, once the catalogue, its detail and its call panel
            # are painted (heap.py): after the first refresh, the collection (~0.1 s) came before the detail
            self._heap_settled = True
            self.set_timer(heap.SETTLE_AFTER, heap.settle, name="heap-settle")

    @on(Connection.Opened)
    def _opened(self, message: Connection.Opened) -> None:
        # the message goes on up: the app's questions queue listens to the new client too
        self.server_info = message.server_info
        self._offer_tasks(message.client)
        if self.settings.log_level is not None:
            self.set_log_level(self.settings.log_level)

    def _offer_tasks(self, client: Client) -> None:
        """The Tasks tab shows once tasks mean something here: the server declares them, or a task (one
        it asked of mcpx) appears. Until then it stays out of the way. The Skills tab, when declared."""
        tabs = next(self.query("#side").results(TabbedContent), None)
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
        self.run_worker(navigation.open_item_form(self), name="open form", group="focus", exclusive=True)

    @on(ItemDetail.Left)
    def _detail_left(self) -> None:
        self.action_focus_browser()

    def action_show_kind(self, kind: ItemKind) -> None:
        self.query_one(ItemBrowser).show_kind(kind)

    # by its handler name, not @on(ToolCallPanel.CallFinished): the panel's module (its form, a TextArea)
    # loads when the first panel is built, after the first paint
    def on_tool_call_panel_call_finished(self, event: ToolCallPanel.CallFinished) -> None:
        """The call goes into the session's history."""
        for history in self.query(CallHistory):
            history.record(event.tool_name, event.arguments, event.result_or_error, event.latency, event.size)

    @on(CallHistory.CallRequested)
    def _call_requested(self, event: CallHistory.CallRequested) -> None:
        self.request_tool_call(event.tool, event.arguments, run=event.run)

    def request_tool_call(self, tool: str, arguments: dict[str, Any], *, run: bool) -> None:
        """Open the tool's form with `arguments` in it, and call it when `run`."""
        if run and self.context.refused(self, "Not called"):
            return
        self.run_worker(
            navigation.open_tool_call(self, tool, arguments, run=run),
            name=tool,
            group="requests",
            exit_on_error=False,
        )

    @on(EventListView.EventOpened)
    def _event_opened(self, event: EventListView.EventOpened) -> None:
        navigation.open_event(self, event.view, event.event)

    @on(CheckView.ExchangeSelected)
    def _exchange_selected(self, event: CheckView.ExchangeSelected) -> None:
        navigation.show_event(self, event.seq)

    @on(TrafficPanel.LevelChosen)
    def _level_chosen(self, event: TrafficPanel.LevelChosen) -> None:
        self.set_log_level(event.level)

    # -- actions -------------------------------------------------------------------------------------
    def action_reconnect(self) -> None:
        if not self.context.refused(self, "No reconnect"):
            self.post_message(self.ReconnectRequested())

    def action_refuse_reconnect(self) -> None:
        self.context.refused(self, "No reconnect")

    def action_answer_question(self) -> None:
        self.post_message(self.QuestionsWanted())

    def action_help(self) -> None:
        from mcpx.tui.shell.help_screen import open_help

        open_help(self.app, self.focused, self.general_help)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in LETTER_ACTIONS and letters_owned(self.focused):
            return False  # a form keeps its letters (forms/form_keys.py): the footer must not offer them
        if action in ("reconnect", "refuse_reconnect"):
            return (action == "refuse_reconnect") == self.context.read_only
        # the traffic panel mounts just after the first paint: its actions wait for it
        return action not in PANEL_ACTIONS or bool(self.query("#traffic-panel"))

    def action_focus_traffic(self) -> None:
        self.panel.show_traffic()

    def action_focus_browser(self) -> None:
        self.query_one(ItemBrowser).focus_list()

    def action_call_tool(self) -> None:
        """ctrl+r from anywhere: the selected tool's call button (its panel explains a refusal)."""
        from mcpx.tui.catalogue.tool_call import ToolCallPanel

        for panel in self.query(ToolCallPanel):
            if not panel.parked:  # not a panel hidden while the highlight moves (or one leaving)
                panel.action_call()
                return

    def action_show_info(self) -> None:
        navigation.show_info(self)

    def action_show_roots(self) -> None:
        navigation.show_roots(self)

    def action_show_check(self) -> None:
        navigation.show_check(self)

    def action_clear_log(self) -> None:
        self.panel.clear()

    def action_toggle_follow(self) -> None:
        view = self.panel.traffic_view
        view.following = not view.following

    def action_copy_event(self) -> None:
        navigation.copy_event(self)

    def set_traffic_filter(self, text: str) -> None:
        navigation.set_traffic_filter(self, text)

    def action_ping(self) -> None:
        sending.ping(self)

    def set_log_level(self, level: str) -> None:
        sending.set_log_level(self, level)

    def action_save_recording(self) -> None:
        from mcpx.tui.shell.save_recording_screen import save_session

        save_session(self)

    def action_send_raw(self) -> None:
        sending.send_raw(self)

    def action_save_as_test(self) -> None:
        from mcpx.tui.shell.test_actions import save_as_test

        save_as_test(self)

    def action_run_tests(self) -> None:
        from mcpx.tui.shell.test_actions import run_tests

        run_tests(self)

    def closing(self) -> None:
        """Say "closing" in the header while the app stops the server."""
        self.session = replace(self.session, state="closing")
