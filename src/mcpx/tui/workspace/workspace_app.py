"""`WorkspaceApp`: `mcpx inspect` over every configured server — the workspace screen first, and Enter
opens one server in the usual inspector view.

The `Workspace` owns every connection (each in its own task, from connect to close). The inspector view
borrows the chosen server's client and traffic log: opening a server rebuilds the main screen over that
server's log and starts a `Connection` whose connector lends the live client instead of opening one, so
going back (w) and opening another server closes nothing. `r` in the inspector reconnects through the
workspace. Quitting closes every server (in parallel).

What any of the servers asks (elicitation, sampling, roots) goes to the app's one questions queue, tagged
with the server's name: each server's client is built with the queue's handlers (`Workspace.client_options`)
and a question shows over the workspace screen as over the inspector view. The Roots tab's roots are
advertised to every server, and a change is told to each connected one.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, ClassVar
from urllib.parse import urlparse

from textual import on
from textual._context import active_message_pump
from textual.binding import Binding, BindingType

from mcpx.errors import ConnectError, ServerExitedError
from mcpx.protocol.client import Client
from mcpx.tui.asking.asking import Asking
from mcpx.tui.catalogue.item_browser import ItemBrowser
from mcpx.tui.session_state import Lists, SessionState
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import Clock, InspectApp
from mcpx.tui.shell.connection import Connector
from mcpx.tui.shell.signals import exit_on_signals
from mcpx.tui.workspace.workspace_screen import WorkspaceScreen
from mcpx.wire.traffic import TrafficLog
from mcpx.workspace.manager import Entry, Workspace

#: app actions that make sense on the workspace screen (the others belong to the inspector view)
_WORKSPACE_ACTIONS = {"quit", "ask_quit", "help", "command_palette"}


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
        stack = self.app.screen_stack
        return len(stack) == 1 or (len(stack) == 2 and isinstance(stack[-1], WorkspaceScreen))

    def clients(self) -> list[Client]:
        return [e.client for e in self.workspace.entries if e.client is not None and e.state == "connected"]


class WorkspaceApp(InspectApp):
    """The inspector over a workspace: the workspace screen on top, one server's view beneath."""

    TITLE = "mcpx workspace"
    BINDINGS: ClassVar[list[BindingType]] = [
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
        super().__init__(
            settings=settings, connector=None, traffic=TrafficLog(clock=clock), clock=clock, roots=roots
        )
        self.workspace = workspace
        self.asking = WorkspaceAsking(self, roots)
        workspace.client_options = self.asking.for_entry
        #: the server the inspector view shows (None until one is opened)
        self.current: Entry | None = None
        self._start_workspace = start

    def on_mount(self) -> None:
        if self._start_workspace:
            self.workspace.start()
        self.install_screen(WorkspaceScreen(self.workspace), name="workspace")
        self.push_screen("workspace")

    async def on_unmount(self) -> None:
        await self.workspace.close()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if isinstance(self.screen, WorkspaceScreen) and action not in _WORKSPACE_ACTIONS:
            return False
        return super().check_action(action, parameters)

    def action_workspace(self) -> None:
        if not isinstance(self.screen, WorkspaceScreen):
            self.push_screen("workspace")

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
        active_message_pump.set(self)  # the main screen's widgets bind to the app's reactives
        if isinstance(self.screen, WorkspaceScreen):
            await self.pop_screen()
        if entry is self.current and self.connection is not None:
            return
        if self.connection is not None:
            await self.connection.stop()
        self.current = entry
        self.traffic = entry.traffic
        self.target = entry.name
        self.session = SessionState(target=entry.name)
        self.catalog = Lists()
        self.server_info = None
        await self.recompose()
        self.connection = self.connect_with(lent_client(self.workspace, entry))
        self.connection.start()
        for browser in self.query(ItemBrowser):
            browser.focus_list()

    def shown_session(self, session: SessionState) -> SessionState:
        # the lent client was connected by the workspace: its time to connect and its attempt are the
        # workspace's (from the moment it connected: a later end keeps them)
        entry = self.current
        if entry is None or entry.connect_seconds is None or session.connect_seconds is None:
            return session
        return replace(session, connect_seconds=entry.connect_seconds, attempt=entry.attempt)

    def action_reconnect(self) -> None:
        if self.current is None or self.refuse_if_read_only("No reconnect"):
            return
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
