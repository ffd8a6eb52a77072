"""`Watcher`: the terminal's watch loop — start the server, and on every batch of changed files stop it,
start it again, list what it offers, compare with the last good listing, and run the tests again.

Everything it learns goes to `on_event` as frozen data (`FilesChanged`, `ServerStarted`, `ServerFailed`,
`TestsFinished`, and each line of the server's stderr as `ServerOutput` while it comes); the face prints
it. One connection at a time, each opened and closed in the loop's own task (the transport's process
group goes with it: Ctrl-C, a cancelled task or `stop()` leave no server behind). A server that fails to
start, or dies between edits, is reported with its exit code and stderr tail, and the next change tries
again. A change that touches only collection files re-runs the tests on the running server. The diff is
always against the last listing that succeeded, so an edit that breaks the server and the edit that
fixes it show as one change.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from mcpx.errors import McpxError
from mcpx.protocol.client import Client
from mcpx.protocol.facade import Ending
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.session import open_session
from mcpx.record.catalog import Snapshot, SnapshotDiff, compare, from_client
from mcpx.target import ServerSpec
from mcpx.watch.changes import QUIET_MS, ChangeBatch, file_changes
from mcpx.watch.paths import collection_beside, watch_roots
from mcpx.wire.traffic import TrafficEvent, TrafficLog
from mcpx.wire.waiting import cancel_and_wait

#: runs the collection on a connected client; what it returns is the face's to show (`passed` says how)
TestRun = Callable[[Client], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class WatchPlan:
    """What to watch and what to run after each restart."""

    roots: tuple[Path, ...]
    quiet_ms: int = QUIET_MS
    #: the collection to run after each restart (None: no tests)
    tests: Path | None = None

    @classmethod
    def for_spec(
        cls,
        spec: ServerSpec,
        paths: Sequence[str] = (),
        *,
        tests: str | None = None,
        quiet_ms: int = QUIET_MS,
    ) -> WatchPlan:
        roots = watch_roots(spec, paths)
        beside = collection_beside(spec)
        if tests is None and beside is not None and beside.is_file():
            tests = str(beside)  # the collection beside the script runs without being named
        collection = Path(tests).resolve() if tests else None
        if collection is not None and not any(_under(collection, root) for root in roots):
            roots = (*roots, collection)  # an edit to the tests re-runs them wherever they live
        return cls(roots, quiet_ms, collection)


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@dataclass(frozen=True, slots=True)
class FilesChanged:
    batch: ChangeBatch
    #: monotonic time the batch was handed over
    at: float
    #: True: only the collection changed, the server keeps running
    tests_only: bool = False


@dataclass(frozen=True, slots=True)
class ServerStarted:
    """The server answered and listed its catalogue (cycle 0: the first start)."""

    cycle: int
    snapshot: Snapshot
    #: against the last good listing (None on the first start)
    diff: SnapshotDiff | None
    #: seconds to stop the old server (0 on the first start)
    stop_seconds: float
    #: seconds from spawning to the end of the handshake
    start_seconds: float
    #: seconds to list the catalogue
    list_seconds: float
    at: float = field(default_factory=time.monotonic)


@dataclass(frozen=True, slots=True)
class ServerFailed:
    """The server could not start, or died before the next change."""

    cycle: int
    message: str
    returncode: int | None
    stderr_tail: tuple[str, ...]
    #: True: it had started (and died later); False: it never answered
    started: bool
    at: float = field(default_factory=time.monotonic)


@dataclass(frozen=True, slots=True)
class TestsFinished:
    """The collection ran (on the server of `cycle`)."""

    __test__ = False  # not a pytest class, whatever its name
    cycle: int
    #: what the test run returned, or None when it raised (`error` says why)
    outcome: Any
    seconds: float
    error: str | None = None
    at: float = field(default_factory=time.monotonic)


@dataclass(frozen=True, slots=True)
class ServerOutput:
    """A line the server wrote to its stderr (its own logs, a traceback), as it comes."""

    cycle: int
    line: str


WatchEvent = FilesChanged | ServerStarted | ServerFailed | TestsFinished | ServerOutput


class Watcher:
    """Restart `spec` on every change under `plan.roots`; report each step to `on_event`."""

    def __init__(
        self,
        spec: ServerSpec,
        options: SessionOptions,
        plan: WatchPlan,
        on_event: Callable[[WatchEvent], None],
        *,
        tests: TestRun | None = None,
        traffic: Callable[[], TrafficLog] = TrafficLog,
    ) -> None:
        self.spec = spec
        self.options = options
        self.plan = plan
        self.on_event = on_event
        self.tests = tests
        #: a fresh log per server start: a day of edits does not pile up in memory
        self.new_log = traffic
        self.cycle = 0
        self._last: Snapshot | None = None
        #: how long stopping the previous server took (told with the next start)
        self._stop_seconds = 0.0
        self._stopping = asyncio.Event()
        self._watch_stop = threading.Event()
        self._batches: asyncio.Queue[ChangeBatch] = asyncio.Queue()

    def stop(self) -> None:
        """End `run()` (the server is stopped on the way out). Safe from a signal handler."""
        self._stopping.set()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    async def run(self) -> None:
        """Until `stop()` (or cancellation): start, wait for a change, restart, …"""
        feeder = asyncio.create_task(self._feed(), name="mcpx watch: files")
        try:
            while not self._stopping.is_set():
                if await self._serve() is None:
                    break
        finally:
            self._watch_stop.set()
            await cancel_and_wait(feeder)

    async def _feed(self) -> None:
        async for batch in file_changes(self.plan.roots, quiet_ms=self.plan.quiet_ms, stop=self._watch_stop):
            self._batches.put_nowait(batch)

    async def _next_batch(self, closed: Awaitable[Any] | None = None) -> ChangeBatch | None:
        """The next batch of changes; None when stopping, or when `closed` ends first (the server died)."""
        getting = asyncio.ensure_future(self._batches.get())
        waits: list[asyncio.Future[Any]] = [getting, asyncio.ensure_future(self._stopping.wait())]
        if closed is not None:
            waits.append(asyncio.ensure_future(closed))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for future in waits:
                future.cancel()
        if getting.done() and not getting.cancelled():
            batch: ChangeBatch = getting.result()
            running = closed is not None  # with no server running, any change restarts it
            self.on_event(
                FilesChanged(batch, time.monotonic(), tests_only=running and self._tests_only(batch))
            )
            return batch
        return None

    async def _serve(self) -> ChangeBatch | None:
        """One server's life: start it, list, diff, test, then hold it until a change that needs a restart
        (returned) or a stop (None). A server that fails or dies waits here for the next change."""
        cycle = self.cycle
        self.cycle += 1
        traffic = self.new_log()
        stop_telling = traffic.subscribe(partial(self._told, cycle))
        began = time.monotonic()
        started = False
        batch: ChangeBatch | None = None
        ended: McpxError | None = None
        try:
            async with open_session(self.spec, self.options, traffic=traffic) as client:
                started = True
                await self._opened(cycle, client, began)
                while True:
                    batch = await self._next_batch(client.session.wait_closed())
                    if batch is None or not self._tests_only(batch):
                        break
                    await self._run_tests(cycle, client)
                if batch is None and not self._stopping.is_set():
                    ended = client.session.ended or McpxError("the server closed the connection")
                closing = time.monotonic()
            self._stop_seconds = time.monotonic() - closing
        except McpxError as exc:
            ended = exc
        finally:
            stop_telling()
        if self._stopping.is_set():
            return None
        if ended is not None:
            self._failed(cycle, ended, traffic, started=started)
        return batch if batch is not None else await self._next_batch()

    async def _opened(self, cycle: int, client: Client, began: float) -> None:
        start_seconds = time.monotonic() - began
        listed_at = time.monotonic()
        snapshot = await from_client(client, self.spec.label)
        diff = compare(self._last, snapshot) if self._last is not None else None
        self._last = snapshot
        stop_seconds, self._stop_seconds = self._stop_seconds, 0.0
        list_seconds = time.monotonic() - listed_at
        self.on_event(ServerStarted(cycle, snapshot, diff, stop_seconds, start_seconds, list_seconds))
        await self._run_tests(cycle, client)

    def _told(self, cycle: int, event: TrafficEvent) -> None:
        if event.channel == "stderr":
            self.on_event(ServerOutput(cycle, event.raw))

    @staticmethod
    def _tests_only(batch: ChangeBatch) -> bool:
        """Only collection files changed: they are not the server's source (Save as test writes one)."""
        return batch.only_collections

    def _failed(self, cycle: int, error: McpxError, traffic: TrafficLog, *, started: bool) -> None:
        ending = Ending.of(error, traffic)
        self.on_event(ServerFailed(cycle, error.message, ending.returncode, ending.stderr_tail, started))

    async def _run_tests(self, cycle: int, client: Client) -> None:
        if self.tests is None:
            return
        began = time.monotonic()
        try:
            outcome = await self.tests(client)
        except McpxError as exc:
            self.on_event(TestsFinished(cycle, None, time.monotonic() - began, exc.message))
            return
        self.on_event(TestsFinished(cycle, outcome, time.monotonic() - began))
