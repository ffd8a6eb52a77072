"""`WatchBar`: `mcpx inspect --watch` — a line above the footer, and the watcher behind it.

A worker follows the watched files (`mcpx.watch.changes`); a batch of changes goes up as
`WatchBar.FilesChanged` and the app restarts the server the way `r` does. The bar follows the app's
session and catalogue by data binding: once the new connection has listed everything, it compares the
catalogue with the last complete one (`mcpx.record.catalog`), says what changed in a notification and on
the bar, and posts `WatchBar.Restarted` (the app runs the collection again on it). A server that does not
come back is told on the bar; the next change tries again. A change to collection files only posts
`WatchBar.TestsChanged`: the tests run again, the server keeps running.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from mcpx.record.catalog import Snapshot, SnapshotDiff, compare
from mcpx.tui.session_state import KINDS, Lists, SessionState
from mcpx.tui.testing.tests_screen import summary as tests_summary
from mcpx.tui.widgets.event_list_view import printable
from mcpx.watch.changes import ChangeBatch, file_changes
from mcpx.watch.loop import WatchPlan
from mcpx.watch.report import counts, lines, snapshot_of, summary

#: lines of a catalogue diff a notification shows (the rest: `mcpx diff`)
NOTIFY_LINES = 12


def complete(catalog: Lists) -> bool:
    """Every list has arrived or is known to be unavailable."""
    return all(catalog.items(kind) is not None or kind in catalog.unavailable for kind in KINDS)


class WatchBar(Static):
    """What is watched, the last restart and what it changed."""

    DEFAULT_CSS = """
    WatchBar { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    WatchBar.-failed { color: $text-error; }
    WatchBar.-changed { color: $text-success; }
    """
    HELP: ClassVar[str] = "Watching the server's files: a change restarts it (see `mcpx inspect --watch`)."

    session: reactive[SessionState] = reactive(SessionState, init=False)
    """The connection: a new attempt that connected (or died) ends a restart."""
    catalog: reactive[Lists] = reactive(Lists, init=False)
    """What the server lists: complete, it is compared with the last complete one."""

    class _Changed(Message):
        """Watched files changed (`batch` says which)."""

        def __init__(self, bar: WatchBar, batch: ChangeBatch) -> None:
            super().__init__()
            self.bar = bar
            self.batch = batch

        @property
        def control(self) -> WatchBar:
            return self.bar

    class FilesChanged(_Changed):
        """Watched files changed: restart the server."""

    class TestsChanged(_Changed):
        """Only collection files changed: run the tests again, no restart."""

    class Restarted(Message):
        """The server is back and has listed its catalogue: `diff` against the last complete listing."""

        def __init__(self, bar: WatchBar, diff: SnapshotDiff | None) -> None:
            super().__init__()
            self.bar = bar
            self.diff = diff

        @property
        def control(self) -> WatchBar:
            return self.bar

    def __init__(self, plan: WatchPlan, *, source: str = "", id: str | None = None) -> None:
        super().__init__("", id=id)
        self.plan = plan
        self.source = source
        #: the last complete listing (what the next one is compared with)
        self.last: Snapshot | None = None
        #: the attempt a restart waits for (None: no restart under way)
        self.waiting_for: int | None = None
        self.changed_at: float | None = None
        self.restarts = 0
        self.tests_runs = 0
        self._said = ""
        self._stop = threading.Event()
        self._where = ", ".join(printable(str(root)) for root in plan.roots)

    def on_mount(self) -> None:
        self._show(f"watching {self._where}")
        self.run_worker(self._follow(), name="watch files", group="watch", exit_on_error=False)

    def on_unmount(self) -> None:
        self._stop.set()  # the watcher's thread ends at its next step

    async def _follow(self) -> None:
        async for batch in file_changes(self.plan.roots, quiet_ms=self.plan.quiet_ms, stop=self._stop):
            what = printable(batch.describe(self.plan.roots))
            if batch.only_collections and self.waiting_for is None:  # tests, not the server's source
                self._show(f"{what} changed: running the tests again")
                self.post_message(self.TestsChanged(self, batch))
                continue
            self.waiting_for = self.session.attempt + 1
            self.changed_at = time.monotonic()
            self._show(f"{what} changed: restarting…")
            self.post_message(self.FilesChanged(self, batch))

    # -- what the app binds --------------------------------------------------------------------------
    def watch_session(self, session: SessionState) -> None:
        waiting = self.waiting_for
        if waiting is None or session.attempt < waiting or not session.is_dead:
            self._check()
            return
        self.waiting_for = None
        self.set_class(True, "-failed")
        self._show(f"the server did not come back: {printable(session.state_label)} — waiting for a change")

    def watch_catalog(self) -> None:
        self._check()

    def _check(self) -> None:
        session, catalog = self.session, self.catalog
        if session.state != "connected" or not complete(catalog):
            return
        if self.waiting_for is not None and session.attempt < self.waiting_for:
            return  # the old connection's catalogue, before the restart took effect
        snapshot = snapshot_of(self.source, {kind: catalog.items(kind) for kind in KINDS})
        diff = compare(self.last, snapshot) if self.last is not None else None
        self.last = snapshot
        if self.waiting_for is None:
            return  # the first listing, or a list_changed between restarts: the new baseline
        self.waiting_for = None
        self.restarts += 1
        took = f" in {time.monotonic() - self.changed_at:.1f} s" if self.changed_at is not None else ""
        said = summary(diff) if diff is not None else counts(snapshot)
        self.set_class(False, "-failed")
        self.set_class(diff is not None and diff.differs, "-changed")
        self._show(f"restarted{took} ({time.strftime('%H:%M:%S')}): {said}")
        if diff is not None and diff.differs:
            shown = lines(diff, limit=60)
            more = f"\n… {len(shown) - NOTIFY_LINES} more lines" if len(shown) > NOTIFY_LINES else ""
            text = "\n".join(printable(line) for line in shown[:NOTIFY_LINES]) + more
            self.notify(text, title=f"Restarted: {said}", timeout=10, markup=False)
        else:
            self.notify("The catalogue is the same.", title="Restarted", timeout=4)
        self.post_message(self.Restarted(self, diff))

    def show_tests(self, results: Sequence[Any] | None, error: str | None = None) -> None:
        """What the collection said after the restart (or a change to it): on the bar, and failures in a
        notification."""
        self.tests_runs += 1
        if results is None:
            self._show(self._said, f"tests could not run: {printable(error or '?')}")
            self.set_class(True, "-failed")
            return
        failing = [r for r in results if not r.ok]
        self._show(self._said, f"tests: {tests_summary(results)}")
        self.set_class(bool(failing), "-failed")
        if failing:
            names = "\n".join(f"✗ {printable(r.test.name)}" for r in failing[:5])
            more = f"\n… {len(failing) - 5} more" if len(failing) > 5 else ""
            self.notify(
                f"{names}{more}\nctrl+p › Run tests shows what differs.",
                title=f"{len(failing)} test{'s' if len(failing) != 1 else ''} failing",
                severity="error",
                timeout=10,
                markup=False,
            )

    def _show(self, text: str, tests: str = "") -> None:
        self._said = text
        shown = f"⟳ {text}" + (f" · {tests}" if tests else "")
        self.update(Text(shown, no_wrap=True, overflow="ellipsis"))
