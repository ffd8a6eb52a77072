"""`mcpx inspect`: the Textual app, its factory `make_app()` and the CLI's entry point `run_inspect()`.

The app holds a `TrafficLog` (the truth, kept across reconnects) and never touches a transport. It shows
one `InspectScreen` (the view every mcpx app composes) and feeds it from one live connection: its
`Connection` runs the one long-lived `connection` worker that owns the client's async context and reports
to the screen with messages. What only the app can do comes up from the screen as messages: reconnect,
show the next question the server waits on; the questions queue (`Asking`) and quitting are the app's.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import App
from textual.filter import LineFilter
from textual.worker import Worker

from mcpx.tui.asking.asking import Asking
from mcpx.tui.asking.roots_view import RootsView
from mcpx.tui.context import READ_ONLY_REASON, Clock, InspectContext
from mcpx.tui.forms.form_keys import letters_owned
from mcpx.tui.session_state import Lists, ServerInfo, SessionState
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.animator import install as install_animator
from mcpx.tui.shell.connection import Connection, Connector, spec_connector
from mcpx.tui.shell.inspect_keys import LETTER_ACTIONS
from mcpx.tui.shell.inspect_screen import INSPECT_CSS, InspectScreen, report_failure
from mcpx.tui.shell.leaving import confirm_then
from mcpx.tui.shell.safe_output import safe_driver
from mcpx.tui.shell.secret_filter import SecretFilter, masking
from mcpx.tui.shell.signals import exit_on_signals
from mcpx.tui.traffic.traffic_panel import TrafficPanel
from mcpx.tui.traffic.traffic_view import SEPARATOR_EVENT
from mcpx.wire.traffic import TrafficLog

if TYPE_CHECKING:
    from textual.screen import Screen

    from mcpx import ServerSpec
    from mcpx.protocol.client import Client
    from mcpx.watch.loop import WatchPlan

#: events the TUI's traffic log holds as objects before the oldest spill to disk
TUI_KEEP_EVENTS = 100_000
TUI_KEEP_BYTES = 128 << 20
__all__ = ["READ_ONLY_REASON", "Clock", "InspectApp", "make_app", "run_inspect"]


class InspectApp(App[int]):
    """`mcpx inspect`: one server, one connection, the inspector's screen over its log."""

    CSS_PATH: ClassVar[list[str | Any]] = INSPECT_CSS
    TITLE = "mcpx inspect"
    BINDING_GROUP_TITLE = "mcpx"  # the app's own keys (ctrl+q, ctrl+p) beside the screen's, under one title
    #: `mcpx inspect --watch`: the files to watch and the collection to run again (None: no watching)
    watch_plan: WatchPlan | None = None

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
        install_animator(self)  # an animation asked for while it quits ends at once (animator.py)
        self.driver_class = safe_driver(self.driver_class)  # no C1 or bidi control reaches the terminal
        self.settings = settings
        self.traffic = traffic
        self.clock = clock
        self.target = target
        #: the server, when the app reaches it through a spec (what "Save recording…" writes in the header)
        self.spec = spec
        self.theme = settings.theme
        self._quitting = False
        self.asking = Asking(self, self, roots)
        #: the inspector's screen (the app's default screen)
        self.view = InspectScreen(
            InspectContext(
                traffic=traffic,
                clock=clock,
                read_only=read_only,
                connected=lambda: self.client,
                target=target,
                spec=spec,
            ),
            settings=settings,
            roots=tuple(roots or ()),
        )
        self.connection = self.connect_with(connector) if connector is not None else None
        # every drawn line passes the secret policy of the log shown
        self._secret_filter = SecretFilter(lambda: self.traffic.secrets)

    def get_default_screen(self) -> Screen[Any]:
        return self.view

    def get_line_filters(self) -> Sequence[LineFilter]:
        return masking(self, super().get_line_filters(), self._secret_filter)

    def connect_with(self, connector: Connector) -> Connection:
        """A `Connection` over the app's log, reporting to its screen (its messages: `Connection.*`)."""
        view = self.view
        return Connection(
            self,
            connector,
            traffic=self.traffic,
            clock=self.clock,
            settings=self.settings,
            target=self.target,
            session=lambda: view.session,
            report_to=view,
        )

    # -- what the questions queue reads and sets (`AskingState`) ---------------------------------------
    @property
    def client(self) -> Client | None:
        """The connected client, or None (connecting, dead, or no server at all)."""
        return self.connection.client if self.connection is not None else None

    @property
    def session(self) -> SessionState:
        return self.view.session

    @property
    def waiting(self) -> int:
        return self.view.waiting

    @waiting.setter
    def waiting(self, count: int) -> None:
        self.view.waiting = count

    @property
    def roots(self) -> tuple[dict[str, Any], ...]:
        return self.view.roots

    @roots.setter
    def roots(self, roots: tuple[dict[str, Any], ...]) -> None:
        self.view.roots = roots

    # -- what tests and the CLI read (the screen holds it) ---------------------------------------------
    @property
    def catalog(self) -> Lists:
        return self.view.catalog

    @property
    def server_info(self) -> ServerInfo | None:
        return self.view.server_info

    @property
    def read_only(self) -> bool:
        return self.view.read_only

    @property
    def in_flight(self) -> int:
        return self.view.in_flight

    @property
    def panel(self) -> TrafficPanel:
        return self.view.panel

    @property
    def collection_file(self) -> Path | None:
        """`--tests FILE`: the collection "Save as test" writes to (None: beside the server's script)."""
        return self.view.collection_file

    @collection_file.setter
    def collection_file(self, path: Path | None) -> None:
        self.view.collection_file = path

    # -- the app's life --------------------------------------------------------------------------------
    def on_load(self) -> None:
        # connect before the screen is built: the server starts up while the widgets compose
        if self.connection is not None:
            self.connection.start()

    def on_mount(self) -> None:
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        if self.watch_plan is not None:  # `inspect --watch`: the bar above the footer restarts on edits
            from mcpx.tui.shell.watching import mount_watch

            mount_watch(self.view, self.watch_plan, self.target, self.reconnect)

    async def on_unmount(self) -> None:
        """However the app ends (q, ctrl+c, a test leaving), the server stops before the loop does."""
        if self.connection is not None:
            await self.connection.stop()

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        report_failure(self, event)

    @on(Connection.Opened)
    def _opened(self, message: Connection.Opened) -> None:
        self.asking.attach(message.client)

    @on(RootsView.Changed)
    def _roots_changed(self, event: RootsView.Changed) -> None:
        self.asking.set_roots(event.roots)

    @on(InspectScreen.QuestionsWanted)
    def _questions_wanted(self) -> None:
        self.asking.show_next()

    @on(InspectScreen.ReconnectRequested)
    def _reconnect_requested(self) -> None:
        if self.connection is None or self._quitting:
            return
        confirm_then(self, "Reconnect", self._start_reconnect, questions=len(self.asking.queue))

    def reconnect(self) -> None:
        """Connect again now, without asking (the watch bar restarts on edits: the user asked by saving)."""
        if self.connection is not None and not self._quitting:
            self._start_reconnect()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # q is a bare letter: a form that keeps its letters hides it (forms/form_keys.py)
        return not (action in LETTER_ACTIONS and letters_owned(self.focused))

    def _start_reconnect(self) -> None:
        self.run_worker(
            self._reconnect(), name="reconnect", group="lifecycle", exclusive=True, exit_on_error=False
        )

    async def _reconnect(self) -> None:
        assert self.connection is not None
        await self.connection.stop()
        if len(self.traffic):
            self.traffic.info(
                f"reconnect · connection {self.view.session.attempt + 1}", "protocol", event=SEPARATOR_EVENT
            )
        self.connection.start()

    def action_ask_quit(self) -> None:
        """q: quit, asking first when a call runs, a question waits or a form holds typed input."""
        if self._quitting:
            self.action_quit()
        else:
            confirm_then(self, "Quit", self.action_quit, questions=len(self.asking.queue))

    def action_quit(self) -> None:  # type: ignore[override]
        if self._quitting:  # a second q: leave now (the server's group is still killed at exit)
            self.exit(0)
            return
        self._quitting = True
        if self.connection is not None and self.connection.running:
            self.view.closing()
        self.run_worker(self._quit(), name="quit", group="lifecycle", exit_on_error=False)

    async def _quit(self) -> None:
        if self.connection is not None:
            await self.connection.stop()
        self.exit(0)


def make_app(
    spec: ServerSpec | None = None,
    *,
    settings: InspectSettings | None = None,
    connector: Connector | None = None,
    traffic: TrafficLog | None = None,
    clock: Clock | None = None,
    read_only: bool = False,
    roots: list[dict[str, Any]] | None = None,
    target: str | None = None,
) -> InspectApp:
    """Build the app for `spec` (or for any `connector`, as tests do; neither: a log viewer). `target`
    names the server in the header (by default the spec's label)."""
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
        target=target if target is not None else spec.label if spec else "",
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
