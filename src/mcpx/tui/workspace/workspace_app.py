"""`WorkspaceApp`: `mcpx inspect` over every configured server — the workspace screen first, and Enter
opens one server in the usual inspector view.

The `Workspace` owns every connection (each in its own task, from connect to close). The inspector view
is an `InspectScreen` over the chosen server's traffic log, pushed over the workspace screen: opening a
server builds a new one and starts a `Connection` whose connector lends the live client instead of
opening one, so going back (w) and opening another server closes nothing. `r` in the inspector reconnects
through the workspace. Quitting closes every server (in parallel).

What any of the servers asks (elicitation, sampling, roots) goes to the app's one questions queue, tagged
with the server's name: each server's client is built with the queue's handlers (`Workspace.client_options`)
and a question shows over the workspace screen as over the inspector view. The Roots tab's roots are
advertised to every server, and a change is told to each connected one.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Any, ClassVar
from urllib.parse import urlparse

from textual import on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.filter import LineFilter
from textual.screen import Screen
from textual.worker import Worker

from mcpx.errors import ConnectError, ServerExitedError
from mcpx.protocol.client import Client
from mcpx.tui.asking.asking import Asking
from mcpx.tui.asking.roots_view import RootsView
from mcpx.tui.context import Clock, InspectContext
from mcpx.tui.forms.form_keys import letters_owned
from mcpx.tui.session_state import Lists, SessionState
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.animator import install as install_animator
from mcpx.tui.shell.connection import Connection, Connector
from mcpx.tui.shell.inspect_keys import LETTER_ACTIONS
from mcpx.tui.shell.inspect_screen import INSPECT_CSS, InspectScreen, report_failure
from mcpx.tui.shell.leaving import confirm_then
from mcpx.tui.shell.safe_output import safe_driver
from mcpx.tui.shell.secret_filter import SecretFilter, masking
from mcpx.tui.shell.signals import exit_on_signals
from mcpx.tui.workspace.workspace_screen import WorkspaceScreen
from mcpx.wire.traffic import TrafficLog
from mcpx.workspace.manager import Entry, Workspace

#: the name the opened server's screen is installed under
SERVER_SCREEN = "server"


def lent_client(workspace: Workspace, entry: Entry) -> Connector:
    """A connector that lends the workspace's live client for `entry` once it is connected; a server that
    failed or dropped shows its failure (the inspector's `r` reconnects it through the workspace)."""

    @asynccontextmanager
    async def lend(traffic: TrafficLog) -> AsyncIterator[Client]:
        await workspace.wait_for(lambda: entry.state not in ("waiting", "connecting"))
        client = entry.client
        if client is None or entry.state != "connected":
            if entry.returncode is not None:
                raise ServerExitedError(
                    entry.reason or "the server exited",
                    returncode=entry.returncode,
                    stderr_tail=list(entry.stderr_tail),
                )
            raise ConnectError(entry.reason or "not connected")
        yield client  # borrowed: leaving closes nothing, the workspace owns the connection

    return lend


def asker_name(entry: Entry) -> str:
    """Who asks, as a question's screen names it: the workspace's name for the server, and its own."""
    label = entry.name
    if entry.server_name and entry.server_name != entry.name:
        label += f" ({entry.server_name}{f' {entry.server_version}' if entry.server_version else ''})"
    return label


class WorkspaceAsking(Asking):
    """The questions queue over every server of the workspace."""

    def __init__(self, app: WorkspaceApp, roots: list[dict[str, Any]] | None) -> None:
        super().__init__(app, app, roots)
        self.workspace = app.workspace

    def for_entry(self, entry: Entry) -> dict[str, Any]:
        """The `Client` options of one server: the queue's handlers, tagged with its name."""
        spec = entry.configured.spec
        url = spec.url if spec is not None else None
        return self.client_options(
            server=lambda: asker_name(entry), host=lambda: urlparse(url).hostname if url else None
        )

    def at_rest(self) -> bool:
        # the workspace screen alone, or the opened server's inspector right over it
        stack = self.app.screen_stack
        return len(stack) == 1 or (len(stack) == 2 and isinstance(stack[-1], InspectScreen))

    def clients(self) -> list[Client]:
        return [e.client for e in self.workspace.entries if e.client is not None and e.state == "connected"]


class WorkspaceApp(App[int]):
    """The inspector over a workspace: the workspace screen beneath, the opened server's `InspectScreen`
    over it.

    Each server opened gets a new `InspectScreen` (installed, so that `w` can step back to the workspace
    and Enter on the same server show it again as it was); opening another server removes the previous
    one. A screen is never composed again over another log: every widget is built once, for one server.
    """

    CSS_PATH: ClassVar[list[str | PurePath]] = [*INSPECT_CSS, Path(__file__).parent / "workspace.tcss"]
    TITLE = "mcpx workspace"
    BINDING_GROUP_TITLE = "mcpx"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "ask_quit", "Quit", id="quit", tooltip="Close every server and quit"),
        Binding("question_mark,f1", "help", "Help", id="help",
                tooltip="Help for the focused pane, and its keys"),
        Binding("w", "workspace", "Workspace", id="workspace",
                tooltip="Back to every server (their connections stay open)"),
    ]  # fmt: skip

    def __init__(
        self,
        workspace: Workspace,
        *,
        settings: InspectSettings,
        clock: Clock,
        start: bool = True,
        roots: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__()
        install_animator(self)  # an animation asked for while it quits ends at once (animator.py)
        self.driver_class = safe_driver(self.driver_class)  # no C1 or bidi control reaches the terminal
        self.workspace = workspace
        self.settings = settings
        self.clock = clock
        self.theme = settings.theme
        #: the log shown (the opened server's; an empty one until a server is opened)
        self.traffic = TrafficLog(clock=clock)
        self.asking = WorkspaceAsking(self, roots)
        workspace.client_options = self.asking.for_entry
        #: the server the inspector shows, its screen and its (lent) connection; None until one is opened
        self.current: Entry | None = None
        self.view: InspectScreen | None = None
        self.connection: Connection | None = None
        #: what every server's screen shows the same: the roots advertised, the questions waiting
        self._roots: tuple[dict[str, Any], ...] = tuple(roots or ())
        self._waiting = 0
        self._start_workspace = start
        self._quitting = False
        # every drawn line passes the secret policy of the log shown
        self._secret_filter = SecretFilter(lambda: self.traffic.secrets)

    def get_default_screen(self) -> Screen[Any]:
        return WorkspaceScreen(self.workspace)

    def get_line_filters(self) -> Sequence[LineFilter]:
        return masking(self, super().get_line_filters(), self._secret_filter)

    def on_mount(self) -> None:
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        if self._start_workspace:
            self.workspace.start()

    async def on_unmount(self) -> None:
        if self.connection is not None:
            await self.connection.stop()
        await self.workspace.close()

    # -- what the questions queue reads and sets (`AskingState`), and what tests read ------------------
    @property
    def client(self) -> Client | None:
        """The opened server's client, when its view is connected."""
        return self.connection.client if self.connection is not None else None

    @property
    def session(self) -> SessionState:
        return self.view.session if self.view is not None else SessionState()

    @property
    def target(self) -> str:
        return self.current.name if self.current is not None else ""

    @property
    def catalog(self) -> Lists:
        return self.view.catalog if self.view is not None else Lists()

    @property
    def waiting(self) -> int:
        return self._waiting

    @waiting.setter
    def waiting(self, count: int) -> None:
        self._waiting = count
        if self.view is not None:
            self.view.waiting = count

    @property
    def roots(self) -> tuple[dict[str, Any], ...]:
        return self._roots

    @roots.setter
    def roots(self, roots: tuple[dict[str, Any], ...]) -> None:
        self._roots = roots
        if self.view is not None:
            self.view.roots = roots

    # -- actions and messages --------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "workspace":
            return self.view is not None and self.screen is self.view
        # q is a bare letter: a form that keeps its letters hides it (forms/form_keys.py)
        return not (action in LETTER_ACTIONS and letters_owned(self.focused))

    def action_help(self) -> None:
        from mcpx.tui.shell.help_screen import open_help

        open_help(self, self.focused)

    def action_workspace(self) -> None:
        """w: back to the workspace screen (the server's screen stays, installed, for the next Enter)."""
        if self.view is not None and self.screen is self.view:
            self.pop_screen()

    def action_ask_quit(self) -> None:
        """q: quit, asking first when a call runs, a question waits or a form holds typed input."""
        if self._quitting:
            self.action_quit()
        else:
            confirm_then(self, "Quit", self.action_quit, questions=len(self.asking.queue))

    def action_quit(self) -> None:  # type: ignore[override]
        if self._quitting:  # a second q: leave now (the servers' groups are still killed at exit)
            self.exit(0)
            return
        self._quitting = True
        self.run_worker(self._quit(), name="quit", group="lifecycle", exit_on_error=False)

    async def _quit(self) -> None:
        if self.connection is not None:
            await self.connection.stop()
        self.exit(0)

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

    @on(WorkspaceScreen.ServerOpened)
    def _server_opened(self, event: WorkspaceScreen.ServerOpened) -> None:
        self.run_worker(
            self._open(event.entry),
            name="open server",
            group="lifecycle",
            exclusive=True,
            exit_on_error=False,
        )

    async def _open(self, entry: Entry) -> None:
        if entry is self.current and self.view is not None:
            if self.view not in self.screen_stack:
                await self.push_screen(SERVER_SCREEN)
            return
        if self.connection is not None:
            await self.connection.stop()
        old = self.view
        if old is not None:  # off the stack (the workspace screen is shown): uninstalled, then removed
            self.uninstall_screen(old)
            await old.remove()
        self.current = entry
        self.traffic = entry.traffic
        view = InspectScreen(
            InspectContext(
                traffic=entry.traffic, clock=self.clock, connected=lambda: self.client, target=entry.name
            ),
            settings=self.settings,
            shown_session=lambda session: shown_session(entry, session),
            roots=self._roots,
        )
        view.set_reactive(InspectScreen.waiting, self._waiting)
        self.view = view
        self.connection = Connection(
            self,
            lent_client(self.workspace, entry),
            traffic=entry.traffic,
            clock=self.clock,
            settings=self.settings,
            target=entry.name,
            session=lambda: view.session,
            report_to=view,
        )
        self.install_screen(view, name=SERVER_SCREEN)
        self.connection.start()
        await self.push_screen(SERVER_SCREEN)

    @on(InspectScreen.ReconnectRequested)
    def _reconnect_requested(self) -> None:
        if self.current is None or self._quitting:
            return
        confirm_then(self, "Reconnect", self._start_reconnect, questions=len(self.asking.queue))

    def _start_reconnect(self) -> None:
        self.run_worker(
            self._reconnect_current(),
            name="reconnect",
            group="lifecycle",
            exclusive=True,
            exit_on_error=False,
        )

    async def _reconnect_current(self) -> None:
        assert self.current is not None and self.connection is not None
        await self.connection.stop()
        await self.workspace.reconnect(self.current)
        self.connection.start()


def shown_session(entry: Entry, session: SessionState) -> SessionState:
    """The session of a lent client as the header shows it: the workspace connected it, so its time to
    connect and its attempt are the workspace's (from the moment it connected: a later end keeps them)."""
    if entry.connect_seconds is None or session.connect_seconds is None:
        return session
    return replace(session, connect_seconds=entry.connect_seconds, attempt=entry.attempt)


def make_workspace_app(
    workspace: Workspace,
    *,
    settings: InspectSettings | None = None,
    clock: Clock | None = None,
    start: bool = True,
    roots: list[dict[str, Any]] | None = None,
) -> WorkspaceApp:
    """The app over `workspace` (tests pass `start=False` and fill the entries themselves)."""
    return WorkspaceApp(
        workspace,
        settings=settings if settings is not None else InspectSettings(),
        clock=clock or time.monotonic,
        start=start,
        roots=roots,
    )


def run_workspace(
    workspace: Workspace,
    *,
    settings: InspectSettings | None = None,
    roots: list[dict[str, Any]] | None = None,
) -> int:
    app = make_workspace_app(workspace, settings=settings, roots=roots)
    with exit_on_signals(app):  # SIGINT/SIGTERM/SIGHUP: leave like `q`, terminal restored, 128 + n
        result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)
