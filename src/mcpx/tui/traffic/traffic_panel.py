"""`TrafficPanel`: the bottom half — the traffic log and, beside it, Notifications, Server log, Stderr
and Problems, each a tab with a live count."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Label, Select, TabbedContent, TabPane

from mcpx.protocol.names import LOG_LEVELS
from mcpx.tui.traffic.notification_view import NotificationView
from mcpx.tui.traffic.problems_view import ProblemsView
from mcpx.tui.traffic.server_log_view import ServerLogView
from mcpx.tui.traffic.stderr_view import StderrView
from mcpx.tui.traffic.traffic_view import Clock, TrafficView
from mcpx.tui.widgets.event_list_view import EventListView
from mcpx.tui.widgets.lazy import Lazy
from mcpx.tui.widgets.removable_select import RemovableSelect
from mcpx.wire.traffic import TrafficLog

#: pane id → (title, view id)
TABS = {
    "traffic-pane": ("Traffic", "traffic"),
    "notifications-pane": ("Notifications", "notifications"),
    "server-log-pane": ("Server log", "server-log"),
    "stderr-pane": ("Stderr", "stderr"),
    "problems-pane": ("Problems", "problems"),
}
FILTER_DELAY = 0.12
#: seconds between updates of the tab counts (each is a layout pass)
COUNT_DELAY = 0.25


class TrafficPanel(Vertical):
    """The traffic log and its sibling tabs. Posts `LevelChosen` when the user picks a log level."""

    BINDING_GROUP_TITLE = "Traffic"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", id="traffic-filter", tooltip="Filter the traffic log"),
        Binding("escape", "leave_filter", "Back to log", show=False, id="traffic-filter-leave"),
        Binding(
            "left_square_bracket",
            "cycle(-1)",
            "Prev tab",
            show=False,
            id="traffic-tab-previous",
            tooltip="The tab on the left: Traffic, Notifications, Server log, Stderr, Problems",
        ),
        Binding(
            "right_square_bracket",
            "cycle(1)",
            "Next tab",
            show=False,
            id="traffic-tab-next",
            tooltip="The tab on the right",
        ),
    ]

    class LevelChosen(Message):
        """The user picked a level to send with logging/setLevel."""

        def __init__(self, panel: TrafficPanel, level: str) -> None:
            super().__init__()
            self.panel = panel
            self.level = level

        @property
        def control(self) -> TrafficPanel:
            return self.panel

    def __init__(
        self,
        log: TrafficLog,
        *,
        clock: Clock,
        follow: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.traffic = log
        self.clock = clock
        self.follow = follow
        self._filter_timer: Timer | None = None
        self._quiet_level = False
        self._counts: dict[EventListView, int] = {}
        self._count_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with TabbedContent(id="traffic-tabs"):
            with TabPane("Traffic", id="traffic-pane"):
                with Horizontal(id="traffic-bar"):
                    yield Input(
                        placeholder="/ filter: text  method:tools/call  status:error  dur:>500ms  -dir:info",
                        id="traffic-filter",
                        compact=True,
                    )
                    yield Label("", id="traffic-count")
                    yield Label("", id="follow-state")
                yield TrafficView(self.traffic, clock=self.clock, follow=self.follow, id="traffic")
            # the hidden tabs mount after the first paint (Lazy): the tool list shows sooner
            with TabPane("Notifications", id="notifications-pane"):
                yield Lazy(NotificationView(self.traffic, follow=self.follow, id="notifications"))
            with TabPane("Server log", id="server-log-pane"):
                yield Lazy(
                    Horizontal(
                        Label("Ask the server for level", id="log-level-label"),
                        RemovableSelect(
                            [(level, level) for level in LOG_LEVELS],
                            prompt="(server default)",
                            id="log-level",
                            compact=True,
                        ),
                        id="server-log-bar",
                    )
                )
                yield Lazy(ServerLogView(self.traffic, follow=self.follow, id="server-log"))
            with TabPane("Stderr", id="stderr-pane"):
                yield Lazy(StderrView(self.traffic, follow=self.follow, id="stderr"))
            with TabPane("Problems", id="problems-pane"):
                yield Lazy(ProblemsView(self.traffic, follow=self.follow, id="problems"))

    @property
    def traffic_view(self) -> TrafficView:
        return self.query_one("#traffic", TrafficView)

    @property
    def problems(self) -> ProblemsView | None:
        """The Problems view (None for the moment after start-up before it is mounted)."""
        return next(iter(self.query("#problems").results(ProblemsView)), None)

    def views(self) -> list[EventListView]:
        return list(self.query(EventListView))

    def show_traffic(self) -> None:
        self.query_one("#traffic-tabs", TabbedContent).active = "traffic-pane"
        self.traffic_view.focus()

    def clear(self) -> None:
        for view in self.views():
            view.clear()

    def set_level(self, level: str | None) -> None:
        """Show `level` in the selector without sending it again."""
        shown = level if level is not None else Select.NULL
        for select in self.query("#log-level").results(Select):
            if select.value != shown:  # (an unchanged value posts no Changed to be kept quiet: the flag
                self._quiet_level = True  # would then swallow the user's next choice, and none was sent)
                select.value = shown

    def action_cycle(self, step: int) -> None:
        tabs = self.query_one("#traffic-tabs", TabbedContent)
        panes = list(TABS)
        index = panes.index(tabs.active) if tabs.active in panes else 0
        pane = panes[(index + step) % len(panes)]
        tabs.active = pane
        self.query_one(f"#{TABS[pane][1]}", EventListView).focus()

    # -- the filter line -----------------------------------------------------------------------------
    def action_focus_filter(self) -> None:
        self.query_one("#traffic-tabs", TabbedContent).active = "traffic-pane"
        self.query_one("#traffic-filter", Input).focus()

    def action_leave_filter(self) -> None:
        if self.query_one("#traffic-filter", Input).has_focus:
            self.traffic_view.focus()

    @on(Input.Changed, "#traffic-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        # the box's value when the timer fires, not this event's: a jump (a Check finding clearing the
        # filter) may set the box after this event was queued, and a stale value would hide its row again
        self._filter_timer = self.set_timer(FILTER_DELAY, self._apply_typed_filter)

    def _apply_typed_filter(self) -> None:
        self._apply_filter(self.query_one("#traffic-filter", Input).value)

    @on(Input.Submitted, "#traffic-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._apply_filter(event.value)
        self.traffic_view.focus()

    def _apply_filter(self, value: str) -> None:
        self.traffic_view.filter_text = value

    @on(TrafficView.FilterApplied)
    def _filter_applied(self, event: TrafficView.FilterApplied) -> None:
        box = self.query_one("#traffic-filter", Input)
        box.set_class(event.error is not None, "-invalid")
        box.tooltip = event.error
        if event.error is not None:
            self.query_one("#traffic-count", Label).update(event.error, layout=False)
        else:
            self._show_count(self.traffic_view, len(self.traffic_view.rows))

    # -- counts --------------------------------------------------------------------------------------
    @on(EventListView.CountChanged)
    def _count_changed(self, event: EventListView.CountChanged) -> None:
        event.stop()
        self._counts[event.view] = event.count
        if self._count_timer is None:
            # a relabelled tab is a layout pass: at most a few a second, whatever the flood
            self._count_timer = self.set_timer(COUNT_DELAY, self._apply_counts)

    @property
    def counts_pending(self) -> bool:
        """Counts wait for the next (throttled) update of the tab titles."""
        return self._count_timer is not None

    def _apply_counts(self) -> None:
        self._count_timer = None
        counts, self._counts = self._counts, {}
        for view, count in counts.items():
            self._show_count(view, count)

    def _show_count(self, view: EventListView, count: int) -> None:
        pane = f"{view.id}-pane"
        title, _ = TABS.get(pane, ("", ""))
        if not title:
            return
        label = f"{title} [b]{count:,}[/b]" if count else title
        if pane == "problems-pane" and count:
            label = f"Problems [b $text-warning]{count:,}[/]"
        tab = self.query_one("#traffic-tabs", TabbedContent).get_tab(pane)
        if tab.label.markup != label:
            tab.label = label
        if isinstance(view, TrafficView):
            if self.query_one("#traffic-filter", Input).has_class("-invalid"):
                return  # the line says why the filter was refused until it changes (a late count kept it)
            total = len(self.traffic)
            shown = f"{count:,} of {total:,} events" if not view.filter.is_empty else f"{total:,} events"
            # fixed width in the stylesheet: no layout pass for a new number
            self.query_one("#traffic-count", Label).update(shown, layout=False)
            self._show_follow()

    def on_mount(self) -> None:
        self.app.refresh_bindings()  # the screen's traffic keys wait for it (InspectScreen.check_action)
        self._follow_traffic(tries=20)

    def _follow_traffic(self, tries: int) -> None:
        """Show and watch the traffic view's follow state. The tabs compose their panes in their own turn,
        which on a loaded machine can come after this panel's mount: then look again after a refresh, a
        bounded number of times (an app quitting at once never mounts them)."""
        try:
            view = self.traffic_view
        except NoMatches:
            if tries > 0 and self.is_attached:
                self.call_after_refresh(self._follow_traffic, tries - 1)
            return
        self._show_follow()
        self.watch(view, "following", lambda _: self._show_follow(), init=False)

    def _show_follow(self) -> None:
        try:  # (query_one: its answer is cached while the panel's children stay the same)
            following = self.traffic_view.following
            label = self.query_one("#follow-state", Label)
        except NoMatches:
            return  # not mounted yet: _follow_traffic shows it once it is
        label.update("● follow" if following else "○ paused (End)", layout=False)
        label.set_class(following, "-following")  # on the label alone: restyling the panel is not cheap

    # -- the log level -------------------------------------------------------------------------------
    @on(Select.Changed, "#log-level")
    def _level_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self._quiet_level:
            self._quiet_level = False
            return
        if isinstance(event.value, str):
            self.post_message(self.LevelChosen(self, event.value))
