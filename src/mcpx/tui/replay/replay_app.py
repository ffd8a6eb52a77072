"""`mcpx replay FILE`: the inspector on a recording, with no server — read-only, with a time scrubber.

`ReplayApp` shows the inspector's `InspectScreen` (the same header, browsers, detail, Info view and traffic
panel) over the recording's `TrafficLog`, read-only and with no connection, plus a Calls tab with the
recorded calls and their results and a `Scrubber`. The app writes the screen's state itself: the session
as of the scrubber's `moment`, the catalogue the client had listed by then, the handshake once it
happened (`Timeline` answers both by binary search). Nothing on the screen knows it is a replay: it is
told read-only in its context, and has no client to send with.

The first events are read before the screen is built (`make_replay_app`), the rest by the `recording`
worker in batches while the screen is up; the moment follows the end until the user moves it. Lines
that could not be read (a cut-off last line, junk) are named in a banner; every complete line is shown.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.filter import LineFilter
from textual.lazy import Lazy
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from mcpx.protocol.names import LIST_NAMES
from mcpx.record.reader import RecordingLoader, open_recording
from mcpx.record.timeline import Timeline
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.context import InspectContext
from mcpx.tui.forms.form_keys import letters_owned
from mcpx.tui.replay.recorded_calls import RecordedCalls
from mcpx.tui.replay.replay_state import catalog_at, server_info_at, session_at
from mcpx.tui.replay.scrubber import Scrubber
from mcpx.tui.session_state import Lists, ServerInfo, SessionState
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.animator import install as install_animator
from mcpx.tui.shell.heap import map_big_blocks, return_freed_memory, settle, trim_heap
from mcpx.tui.shell.inspect_keys import LETTER_ACTIONS
from mcpx.tui.shell.inspect_screen import INSPECT_CSS, InspectScreen
from mcpx.tui.shell.leaving import confirm_then
from mcpx.tui.shell.secret_filter import SecretFilter, masking
from mcpx.tui.traffic.traffic_panel import TrafficPanel
from mcpx.tui.traffic.traffic_view import TrafficView
from mcpx.tui.widgets.event_list_view import EventListView, printable

if TYPE_CHECKING:
    from collections.abc import Sequence

    from textual.screen import Screen

    from mcpx.record.reader import Recording

#: events read before the first screen, and per step of the `recording` worker afterwards
FIRST_EVENTS = 500
BATCH = 1_000
#: seconds between looks at the end of a recording that is still being written
FOLLOW_POLL = 0.1
#: seconds between looks at event lists still catching up, before reading on
CATCH_UP_WAIT = 0.01
#: seconds the reading waits at most for the event lists to mount (they listen from then on)
MOUNT_WAIT = 2.0
#: batches between two trims of the heap while reading (the arrays of the index grow by reallocation and
#: each batch's objects are freed: without, the freed heap stayed resident until the end, the peak RSS)
TRIM_EVERY = 8


#: this session's calls, the roots it offers, checks of a live server: a recording has none
REPLAY_HIDDEN_TABS = ("history-tab", "roots-tab", "check-tab")
#: what `mcpx replay` is, above the focused pane's help (F1)
REPLAY_HELP = """\
**mcpx replay** shows a recorded session, with no server: read-only (nothing can be sent). The scrubber
at the bottom chooses the moment shown — **,** and **.** step one event, **<** and **>** jump to the start
and the end, **g** goes to the event highlighted in the traffic log. The browsers, the Info view (**i**),
the header and the Calls tab (**c**: the recorded calls and their results) show the session as of that
moment. **t** jumps to the traffic log, **/** filters the pane you are in, **q** quits.
"""


class ReplayApp(App[int]):
    """The inspector on a recording: nothing is sent, and a scrubber chooses the moment shown."""

    CSS_PATH = INSPECT_CSS
    TITLE = "mcpx replay"
    BINDING_GROUP_TITLE = "mcpx"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("comma", "step(-1)", "Back", id="replay-back", tooltip="One event back"),
        Binding("full_stop", "step(1)", "Fwd", id="replay-forward", tooltip="One event forward"),
        Binding(
            "less_than_sign", "jump(0)", "Start", show=False, id="replay-start", tooltip="The first event"
        ),
        Binding(
            "greater_than_sign", "jump(-1)", "End", show=False, id="replay-end", tooltip="The last event"
        ),
        Binding("g", "go_highlighted", "Go to", id="replay-go", tooltip="The event highlighted in the log"),
        Binding(
            "c", "show_calls", "Calls", id="replay-calls", tooltip="The recorded calls and their results"
        ),
        Binding("m", "focus_scrubber", "Scrubber", show=False, id="replay-scrubber", tooltip="Focus the bar"),
    ]

    # repaint=False: an app's reactive repaints its whole screen by default, and every widget that shows
    # these is told by a watcher (a `.` step was a full repaint of the 160×45 screen, ~60 ms of CPU)
    moment: reactive[int] = reactive(0, init=False, repaint=False)
    """Sequence number of the event the screen shows the session as of."""
    loaded: reactive[int] = reactive(0, init=False, repaint=False)
    """Events read so far."""
    loading: reactive[bool] = reactive(True, init=False, repaint=False)
    """The recording is still being read."""

    def __init__(
        self,
        loader: RecordingLoader,
        *,
        settings: InspectSettings,
        live: Widget | None = None,
        hidden_tabs: tuple[str, ...] = REPLAY_HIDDEN_TABS,
    ) -> None:
        """`live`: a line under the header (`mcpx inspect --attach`: LIVE / ENDED); `hidden_tabs`: the side
        tabs a recording has no use for (the attach view keeps Check, which judges what was seen)."""
        super().__init__()
        install_animator(self)  # an animation asked for while it quits ends at once (animator.py)
        recording = loader.recording
        log = recording.log
        self.settings = settings
        self.theme = settings.theme
        self.traffic = log
        self.scrubber = Scrubber(log, id="scrubber")
        #: what could not be read, under the header
        self.notice = Static("", id="recording-problems")
        #: the inspector's screen, read-only and with no connection (the app's default screen)
        self.view = InspectScreen(
            InspectContext(
                traffic=log,
                clock=lambda: log[len(log) - 1].mono if len(log) else 0.0,
                read_only=True,
                target=recording.target,
            ),
            settings=settings,
            general_help=REPLAY_HELP,
            hidden_tabs=hidden_tabs,
            notices=(live, self.notice) if live is not None else (self.notice,),
            above_footer=self.scrubber,
        )
        self._secret_filter = SecretFilter(lambda: log.secrets)
        self.loader = loader
        self.recording: Recording = recording
        self.timeline = Timeline(log)
        # indexed as read: the log need not hold a batch of events until the batch's scan
        self.timeline.follow()
        #: the user moved the scrubber: the moment stops following the end
        self.pinned = False
        self._shown_key: object = None
        self._typed: dict[int, tuple[Any, ...]] = {}
        #: the Calls tab and the traffic log, once mounted (looked up once: a query walks ~1,700 nodes)
        self._calls: RecordedCalls | None = None
        self._log_view: TrafficView | None = None
        self.sub_title = os.fspath(recording.path)
        self.set_reactive(ReplayApp.loaded, len(log))
        self.set_reactive(ReplayApp.loading, not loader.done)
        self.set_reactive(ReplayApp.moment, max(len(log) - 1, 0))

        self.scrubber.set_reactive(Scrubber.position, self.moment)
        self.scrubber.set_reactive(Scrubber.total, self.loaded)
        self.scrubber.set_reactive(Scrubber.loading, self.loading)

    def get_line_filters(self) -> Sequence[LineFilter]:
        return masking(self, super().get_line_filters(), self._secret_filter)

    @property
    def client(self) -> None:
        """A recording has no connection."""
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # q is a bare letter: a form that keeps its letters hides it (forms/form_keys.py)
        return not (action in LETTER_ACTIONS and letters_owned(self.focused))

    def action_ask_quit(self) -> None:
        """q: a recording holds no work to lose but a form's typed input (asked about first)."""
        confirm_then(self, "Quit", lambda: self.exit(0))

    @property
    def read_only(self) -> bool:
        """Always: nothing is sent from a recording."""
        return True

    def get_default_screen(self) -> Screen[Any]:
        return self.view

    def on_mount(self) -> None:
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        self._show(self.moment)
        self._show_problems()
        # after the first paint: the Calls tab, and reading the rest (the first screen waits for neither)
        self.call_after_refresh(self._after_first_paint)

    def _after_first_paint(self) -> None:
        calls = RecordedCalls(self.traffic, self.timeline.calls_until, id="recorded-calls")
        calls.set_reactive(RecordedCalls.moment, self.moment)
        calls.set_reactive(RecordedCalls.loading, self.loading)
        self.view.query_one("#side", TabbedContent).add_pane(TabPane("Calls", calls, id="calls-tab"))
        self._calls = calls
        if not self.loader.done:
            self.run_worker(self._read_rest(), name="recording", group="recording", exit_on_error=False)

    async def _read_rest(self) -> None:
        loader = self.loader
        # the event lists mount just after the first paint, most a refresh later (Lazy): each one that
        # mounts after reading went on has to read back from the file what it missed
        waited = 0.0
        while waited < MOUNT_WAIT and not (self.view.query("#traffic-panel") and not self.view.query(Lazy)):
            await asyncio.sleep(CATCH_UP_WAIT)
            waited += CATCH_UP_WAIT
        batches = 0
        while loader.load(BATCH):
            batches += 1
            if batches % TRIM_EVERY == 0:
                trim_heap()
            # the events live as long as the app: keep the cyclic collector off them (a full collection
            # over 100,000 events stalls the screen for half a second; see InspectScreen._tick), once the
            # garbage of the batch is collected (it would stay frozen for the rest of the session)
            settle()
            self._took_in()
            # the screen stays usable while the rest is read; at the live end of a session still being
            # recorded (`mcpx inspect --attach`), look again a little later
            await asyncio.sleep(FOLLOW_POLL if loader.waiting else 0)
            # a view taking in what was read before it mounted (from the file, a piece at a time) would
            # chase the reading for as long as it goes on, both decoding the same lines: let it catch up
            # (a look every CATCH_UP_WAIT: the views' CaughtUp messages go to the screen, not to here)
            while True:
                if not any(view.catching_up for view in self.view.query(EventListView)):
                    break
                await asyncio.sleep(CATCH_UP_WAIT)
        self._took_in()
        self.loading = False
        self._show_problems()
        return_freed_memory()  # reading took far more than the events on screen keep

    @on(EventListView.CaughtUp)
    def _caught_up(self) -> None:
        return_freed_memory()  # a view took in the whole recording again, a piece at a time

    def _took_in(self) -> None:
        self.timeline.scan()
        self.loaded = len(self.traffic)
        if not self.pinned:
            self.moment = max(self.loaded - 1, 0)

    def watch_loading(self, loading: bool) -> None:
        self.scrubber.loading = loading
        if self._calls is not None:
            self._calls.loading = loading

    def watch_loaded(self, loaded: int) -> None:
        self.scrubber.total = loaded

    # -- what the screen shows of the recording (tests and the palette read it there) ------------------
    @property
    def session(self) -> SessionState:
        return self.view.session

    @property
    def catalog(self) -> Lists:
        return self.view.catalog

    @property
    def server_info(self) -> ServerInfo | None:
        return self.view.server_info

    @property
    def panel(self) -> TrafficPanel:
        return self.view.panel

    # -- the moment ----------------------------------------------------------------------------------
    def watch_moment(self, seq: int) -> None:
        self.scrubber.position = seq
        self._show(seq)

    def _show(self, seq: int) -> None:
        """Put the session as of event `seq` into the reactives the widgets are bound to."""
        timeline = self.timeline
        opening = timeline.opening_at(seq)
        exited = timeline.exit_at(seq)
        listings = tuple(timeline.listing_at(key, seq) for key in LIST_NAMES)
        key = (opening.seq if opening else None, exited.seq if exited else None, tuple(map(id, listings)))
        view = self.view
        if key != self._shown_key:
            self._shown_key = key
            view.session = session_at(
                self.recording, timeline, seq, opening, exited, self.settings.stderr_tail
            )
            view.server_info = server_info_at(self.recording, opening)
            view.catalog = catalog_at(opening, listings, self._typed)
            for detail in view.query(ItemDetail):  # the browser selects again from what is listed now
                detail.selection = None
        if self._calls is not None:
            self._calls.moment = seq

    def move_to(self, seq: int, *, show_in_log: bool = True) -> None:
        """Show the session as of event `seq` (the user's choice: the moment stops following the end)."""
        seq = min(max(seq, 0), max(len(self.traffic) - 1, 0))
        self.pinned = seq < len(self.traffic) - 1 or not self.loading
        self.moment = seq
        log = self._traffic_view()
        if show_in_log and log is not None:
            log.select_seq(seq)

    @on(Scrubber.Moved)
    def _scrubbed(self, event: Scrubber.Moved) -> None:
        self.move_to(event.seq)

    def action_step(self, delta: int) -> None:
        self.move_to(self.moment + delta)

    def action_jump(self, where: int) -> None:
        self.move_to(len(self.traffic) - 1 if where < 0 else where)

    def action_go_highlighted(self) -> None:
        view = self.focused if isinstance(self.focused, EventListView) else None
        if view is None:
            view = self._traffic_view()
        event = view.event_at_cursor() if view is not None else None
        if event is None:
            self.notify("Highlight an event in the traffic log first (t, then ↑/↓).", severity="warning")
            return
        self.move_to(event.seq, show_in_log=False)

    def _traffic_view(self) -> TrafficView | None:
        """The traffic log, once the panel (mounted after the first paint) has composed it."""
        if self._log_view is None or not self._log_view.is_attached:
            self._log_view = next(self.view.query("#traffic").results(TrafficView), None)
        return self._log_view

    def action_show_calls(self) -> None:
        if not self.query("#calls-tab"):  # mounted just after the first paint
            return
        self.view.query_one("#side", TabbedContent).active = "calls-tab"
        self.view.query_one("#calls-list").focus()

    def action_focus_scrubber(self) -> None:
        self.scrubber.focus()

    # -- what could not be read ----------------------------------------------------------------------
    def _show_problems(self) -> None:
        banner = self.notice
        problems = self.recording.problems
        banner.set_class(bool(problems), "-visible")
        if not problems:
            return
        lines = list(_problem_lines(self.recording))
        banner.update("\n".join(printable(line) for line in lines))
        if not self.loading:
            self.notify(lines[0], title="recording", severity="warning", timeout=10)


def _problem_lines(recording: Recording) -> Iterator[str]:
    problems = recording.problems
    what = "cut off" if recording.truncated else "damaged"
    yield (
        f"⚠ This recording is {what}: {len(problems)} line(s) could not be read; "
        f"the {len(recording.log):,} complete events are all shown."
    )
    for problem in problems[:3]:
        yield f"  {problem}"
    if len(problems) > 3:
        yield f"  … and {len(problems) - 3} more"


def make_replay_app(
    path: str | os.PathLike[str], *, settings: InspectSettings | None = None, first: int = FIRST_EVENTS
) -> ReplayApp:
    """Open `path` (RecordingError when it is not a recording) and build the app on its first events."""
    map_big_blocks()  # the reading's big blocks leave no holes in the heap
    loader = open_recording(path)
    loader.load(first)
    return ReplayApp(loader, settings=settings if settings is not None else InspectSettings())


def run_replay(path: str | os.PathLike[str], *, settings: InspectSettings | None = None) -> int:
    """Run the replay TUI on a recording until the user quits (the CLI's exit code)."""
    app = make_replay_app(Path(path), settings=settings if settings is not None else InspectSettings.load())
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)
