"""`TestsScreen`: the server's collection run from the palette ("Run tests"), pass or fail per test.

Each test is a line — ✓ passed, ✗ failed, ! could not run, – skipped — with its time; under a failed one,
a line per field not as expected (`text: expected "5", got "5.0"`). **r** runs the collection again,
**Escape** closes. The run is a worker the screen owns (`run` is handed in by the shell: the collection on
the app's connection, see `runs.run_tests`), so closing the screen cancels it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mcpx.errors import McpxError
from mcpx.tui.widgets.event_list_view import printable

#: status → (mark, style)
MARKS = {
    "passed": ("✓", "green"),
    "failed": ("✗", "bold red"),
    "error": ("!", "bold red"),
    "skipped": ("–", "dim"),
}
Run = Callable[[], Awaitable[Sequence[Any]]]


def results_text(results: Sequence[Any]) -> Text:
    """Every test as a line, failures followed by what differed."""
    text = Text()
    for result in results:
        mark, style = MARKS.get(result.status, ("?", ""))
        text.append(f"{mark} ", style)
        text.append(printable(result.test.name), "bold" if not result.ok else "")
        if result.elapsed_ms:
            text.append(f"  {result.elapsed_ms:.0f} ms", "dim")
        text.append("\n")
        if result.message:
            text.append(f"    {printable(result.message)}\n", "yellow")
        for difference in result.differences:
            text.append(f"    {printable(difference.describe(160))}\n", "red")
    return text


def summary(results: Sequence[Any]) -> str:
    counts: dict[str, int] = {}
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in counts.items()) or "no tests"


class TestsScreen(ModalScreen[None]):
    """The collection's tests and how each fared."""

    __test__ = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "run", "Run again", id="tests-run-again", tooltip="Run the collection again"),
        Binding("escape", "dismiss", "Close", id="tests-close", tooltip="Close the test results"),
    ]
    DEFAULT_CSS = """
    TestsScreen { align: center middle; }
    TestsScreen > #tests-dialog {
        width: 90%; max-width: 120; height: 80%; background: $surface; border: round $primary; padding: 0 1;
    }
    TestsScreen #tests-status { margin: 1 0; text-style: bold; }
    TestsScreen #tests-status.-failed { color: $text-error; }
    TestsScreen #tests-status.-passed { color: $text-success; }
    TestsScreen #tests-results { height: 1fr; }
    """

    def __init__(self, path: Path, run: Run, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.path = path
        self.run = run
        #: times the run (a virtual clock in snapshots)
        self.clock = clock
        self.results: list[Any] = []
        self.runs = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="tests-dialog") as dialog:
            dialog.border_title = f"Tests · {printable(str(self.path))}"
            dialog.border_subtitle = "r run again · esc close"
            yield Static("", id="tests-status")
            with VerticalScroll(id="tests-results"):
                yield Static("", id="tests-lines")

    def on_mount(self) -> None:
        self.action_run()

    def action_run(self) -> None:
        self._status("Running…", None)
        self.run_worker(self._run(), name="run tests", group="tests", exclusive=True, exit_on_error=False)

    async def _run(self) -> None:
        started = self.clock()
        try:
            results = list(await self.run())
        except McpxError as exc:
            self._status(f"The tests could not run: {exc.message}", False)
            return
        self.results = results
        self.runs += 1
        seconds = self.clock() - started
        passed = all(result.ok for result in results)
        self._status(f"{summary(results)} ({seconds:.2f} s)", passed)
        self.query_one("#tests-lines", Static).update(results_text(results))

    def _status(self, text: str, passed: bool | None) -> None:
        status = self.query_one("#tests-status", Static)
        status.update(Text(printable(text)))
        status.set_class(passed is True, "-passed")
        status.set_class(passed is False, "-failed")
