"""`WatchDock`: where `mcpx inspect --watch` lives in the inspector — the watch bar, and what its messages
make the app do: restart the server on a change (as `r` does, without asking: the user asked by saving),
and run the collection again after a restart or when only the collection changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Container

from mcpx.errors import McpxError
from mcpx.tui.testing.watch_bar import WatchBar
from mcpx.watch.loop import WatchPlan

if TYPE_CHECKING:
    from mcpx.tui.shell.inspect_screen import InspectScreen


class WatchDock(Container):
    """The bar above the footer; restarts and re-runs on its word."""

    DEFAULT_CSS = "WatchDock { height: 1; }"

    def __init__(self, bar: WatchBar, view: InspectScreen, restart: Callable[[], None]) -> None:
        """`view`: the inspector's screen (its log, client and collection); `restart`: connect again now."""
        super().__init__(id="watch-dock")
        self.bar = bar
        self.plan = bar.plan
        self.view = view
        self.restart = restart

    def compose(self) -> ComposeResult:
        yield self.bar

    @on(WatchBar.FilesChanged)
    def _files_changed(self, event: WatchBar.FilesChanged) -> None:
        event.stop()
        self.view.context.traffic.info(f"watch: {event.batch.describe(self.plan.roots)} changed", "process")
        self.restart()

    @on(WatchBar.Restarted)
    def _restarted(self, event: WatchBar.Restarted) -> None:
        event.stop()
        self._run_tests()

    @on(WatchBar.TestsChanged)
    def _tests_changed(self, event: WatchBar.TestsChanged) -> None:
        event.stop()
        self._run_tests()

    def _run_tests(self) -> None:
        """The collection again, when the server has one: in the Tests screen when it is open, else in the
        background with the outcome on the bar."""
        from mcpx.tui.shell.test_actions import collection_path
        from mcpx.tui.testing.tests_screen import TestsScreen

        app = self.app
        path = collection_path(self.view)
        if path is None or not path.is_file():
            return
        if isinstance(app.screen, TestsScreen):
            app.screen.action_run()
            return
        self.run_worker(
            self._tests(path), name="watch: tests", group="watch-tests", exclusive=True, exit_on_error=False
        )

    async def _tests(self, path: Path) -> None:
        from mcpx.tui.testing.runs import run_tests

        try:
            results = await run_tests(path, self.view.client)
        except McpxError as exc:
            self.bar.show_tests(None, exc.message)
            return
        self.bar.show_tests(results)


def mount_watch(view: InspectScreen, plan: WatchPlan, source: str, restart: Callable[[], None]) -> None:
    """Mount the watch bar above the footer of the inspector's screen (the bar binds to its reactives)."""
    from textual._context import active_message_pump
    from textual.widgets import Footer

    from mcpx.tui.shell.inspect_screen import InspectScreen

    token = active_message_pump.set(view)  # data_bind binds to the node doing the binding: the screen
    try:
        bar = WatchBar(plan, source=source, id="watch-bar").data_bind(
            InspectScreen.session, InspectScreen.catalog
        )
    finally:
        active_message_pump.reset(token)
    footers = view.query(Footer)
    view.mount(WatchDock(bar, view, restart), before=footers.first() if footers else None)
