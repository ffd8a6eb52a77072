"""`WatchDock`: where `mcpx inspect --watch` lives in the inspector — the watch bar, and what its messages
make the app do: restart the server on a change (as `r` does, without asking: the user asked by saving),
and run the collection again after a restart or when only the collection changed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Container

from mcpx.errors import McpxError
from mcpx.tui.testing.watch_bar import WatchBar
from mcpx.watch.loop import WatchPlan

if TYPE_CHECKING:
    from mcpx.tui.shell.app import InspectApp


class WatchDock(Container):
    """The bar above the footer; restarts and re-runs on its word."""

    DEFAULT_CSS = "WatchDock { height: 1; }"

    def __init__(self, bar: WatchBar) -> None:
        super().__init__(id="watch-dock")
        self.bar = bar
        self.plan = bar.plan

    @property
    def inspector(self) -> InspectApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield self.bar

    @on(WatchBar.FilesChanged)
    def _files_changed(self, event: WatchBar.FilesChanged) -> None:
        event.stop()
        app = self.inspector
        app.traffic.info(f"watch: {event.batch.describe(self.plan.roots)} changed", "process")
        app.action_reconnect()

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

        app = self.inspector
        path = collection_path(app)
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
            results = await run_tests(path, self.inspector.client)
        except McpxError as exc:
            self.bar.show_tests(None, exc.message)
            return
        self.bar.show_tests(results)


def mount_watch(app: InspectApp, plan: WatchPlan) -> None:
    """Mount the watch bar above the footer (from the app's mount: the bar binds to the app's reactives)."""
    from textual.widgets import Footer

    from mcpx.tui.shell.app import InspectApp

    bar = WatchBar(plan, source=app.target, id="watch-bar").data_bind(InspectApp.session, InspectApp.catalog)
    footers = app.query(Footer)
    app.mount(WatchDock(bar), before=footers.first() if footers else None)
