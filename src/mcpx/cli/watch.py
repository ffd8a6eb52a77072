"""`mcpx watch TARGET [server args…] [--tests FILE]`: restart a stdio server whenever its source changes,
show how its catalogue changed, and run its collection again — in plain lines a terminal or a CI log
reads, or `--format json` (one object per line).

Ctrl-C stops the server and ends the watch with exit 0 (it is how a watch ends); SIGTERM/SIGHUP end it as
every command does (128 + n). The server runs in its own process group and is stopped on every way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
from collections.abc import Coroutine
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.wire.controls import escape_controls


@o.connection_flags(timeout=60.0, config=True, remote=False)
def command(
    target: o.Target = None,
    server_args: o.ServerArgs = None,
    tests: Annotated[
        str | None,
        typer.Option(
            "--tests", help="A collection (*.mcpx.yaml) to run after every restart.", show_default=False
        ),
    ] = None,
    watch_path: Annotated[
        list[str] | None,
        typer.Option(
            "--watch-path",
            help="A folder or file to watch (repeatable; default: the script's folder, else --cwd).",
        ),
    ] = None,
    quiet: Annotated[
        int,
        typer.Option("--debounce", help="Milliseconds the files must be quiet before the server restarts."),
    ] = 100,
    connection: o.ConnectionOptions = o.FLAGS,
    fmt: Annotated[str, typer.Option("--format", help="text or json (one object per line).")] = "text",
) -> None:
    """Restart a stdio server when its files change; show the catalogue diff and re-run its tests.

    The server's stderr is shown as it writes it (`| …`; `{"event": "stderr"}` with --format json)."""
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        from mcpx.errors import UsageError
        from mcpx.watch.loop import WatchPlan

        o.check_format(fmt)
        if quiet < 0:
            raise UsageError("--debounce must be 0 or more milliseconds")
        spec = connection.spec()
        options = connection.session()
        plan = WatchPlan.for_spec(spec, watch_path or (), tests=tests, quiet_ms=quiet)
        runner = None
        if plan.tests is not None:
            options, runner = _test_runner(plan.tests, options)
        return _watch(spec, options, plan, runner, fmt)

    execute(fmt, prepare)


def _test_runner(path: Any, options: Any) -> Any:
    """The collection, run on the watched server's own connection (opened with the runner's answers to
    elicitation and sampling); the file is read again before each run (an edit to it re-runs it)."""
    from mcpx.collection.model import load_collection
    from mcpx.collection.runner import CollectionRunner

    runner = CollectionRunner(load_collection(path), options)  # a bad file: one sentence, now

    async def run(client: Any) -> Any:
        runner.collection = load_collection(path)
        runner.borrow(client)
        try:
            return [await runner.run(test) for test in runner.collection.tests]
        finally:
            await runner.close()  # a `fresh` test's shared leftovers; the borrowed client stays open

    return runner.options, run


async def _watch(spec: Any, options: Any, plan: Any, runner: Any, fmt: str) -> int:
    from mcpx.watch.loop import Watcher

    printer = Printer(fmt, plan)
    watcher = Watcher(spec, options, plan, printer.event, tests=runner)
    loop = asyncio.get_running_loop()
    printer.begin(spec.label)
    running = asyncio.ensure_future(watcher.run())

    def interrupt() -> None:
        # mid-step too (a server that hangs while starting): the step is cancelled, its server stopped
        watcher.stop()
        running.cancel()

    # Ctrl-C is how a watch ends: stop the server and leave with 0 (replaces the handler `execute` set)
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        await running
    except asyncio.CancelledError:
        if not watcher.stopping:
            raise  # SIGTERM/SIGHUP: `execute` says so and exits 128 + n
    printer.end(watcher.cycle)
    return 0


class Printer:
    """Each watch event as lines (text) or one JSON object (json)."""

    def __init__(self, fmt: str, plan: Any) -> None:
        self.fmt = fmt
        self.plan = plan
        self.changed_at: float | None = None
        #: cycles whose stderr was printed as it came (a failure does not print its tail again)
        self.told_cycles: set[int] = set()

    def _write(self, text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def _say(self, text: str) -> None:
        self._write(escape_controls(f"[{time.strftime('%H:%M:%S')}] {text}"))

    def _json(self, kind: str, **fields: Any) -> None:
        self._write(json.dumps({"event": kind, **fields}, ensure_ascii=False, default=str))

    def begin(self, label: str) -> None:
        roots = [str(root) for root in self.plan.roots]
        if self.fmt == "json":
            self._json("watching", server=label, paths=roots, tests=str(self.plan.tests or "") or None)
            return
        self._say(f"mcpx watch: {label}")
        self._say(f"watching {', '.join(roots)} (Ctrl-C stops)")

    def end(self, cycles: int) -> None:
        if self.fmt == "json":
            self._json("stopped", starts=cycles)
        else:
            self._say(f"stopped; the server was started {cycles} time{'s' if cycles != 1 else ''}")

    def event(self, event: Any) -> None:
        from mcpx.watch.loop import FilesChanged, ServerFailed, ServerOutput, ServerStarted, TestsFinished

        if isinstance(event, ServerOutput):
            self._output(event)
        elif isinstance(event, FilesChanged):
            self.changed_at = event.at
            self._changed(event)
        elif isinstance(event, ServerStarted):
            self._started(event)
        elif isinstance(event, ServerFailed):
            self._failed(event)
        elif isinstance(event, TestsFinished):
            self._tests(event)

    def _output(self, event: Any) -> None:
        """The server's stderr, line by line as it writes it (its logs are what a watch is for)."""
        self.told_cycles.add(event.cycle)
        if self.fmt == "json":
            self._json("stderr", cycle=event.cycle, line=event.line)
        else:
            self._write(escape_controls(f"  | {event.line}"))

    def _changed(self, event: Any) -> None:
        what = event.batch.describe(self.plan.roots)
        if self.fmt == "json":
            self._json("changed", paths=list(event.batch.paths), tests_only=event.tests_only)
        else:
            then = "restarting"
            if event.tests_only:
                then = "running the tests again" if self.plan.tests is not None else "not the server's source"
            self._say(f"changed: {what} → {then}")

    def _started(self, event: Any) -> None:
        from mcpx.watch.report import counts, lines, summary

        since = event.at - self.changed_at if self.changed_at is not None else None
        timing = {
            "stop_seconds": round(event.stop_seconds, 4),
            "start_seconds": round(event.start_seconds, 4),
            "list_seconds": round(event.list_seconds, 4),
        }
        if self.fmt == "json":
            diff = event.diff.to_json() if event.diff is not None else None
            self._json(
                "started",
                cycle=event.cycle,
                **timing,
                since_change_seconds=round(since, 4) if since is not None else None,
                catalogue={
                    k: len(v) if v is not None else None for k, v in event.snapshot.catalogues.items()
                },
                changed=bool(event.diff is not None and event.diff.differs),
                summary=summary(event.diff) if event.diff is not None else None,
                diff=diff,
            )
            return
        if event.diff is None:
            self._say(f"started in {event.start_seconds:.2f} s: {counts(event.snapshot)}")
            return
        took = f"{since:.2f} s after the change" if since is not None else f"in {event.start_seconds:.2f} s"
        parts = (
            f"stop {event.stop_seconds:.2f} s, start {event.start_seconds:.2f} s, "
            f"list {event.list_seconds:.2f} s"
        )
        self._say(f"restarted {took} ({parts}): {summary(event.diff)}")
        for line in lines(event.diff):
            self._write(escape_controls(f"  {line}"))

    def _failed(self, event: Any) -> None:
        if self.fmt == "json":
            self._json(
                "failed",
                cycle=event.cycle,
                message=event.message,
                returncode=event.returncode,
                stderr=list(event.stderr_tail),
                started=event.started,
            )
            return
        what = "the server died" if event.started else "the server did not start"
        # the message may end in the stderr tail: the tail is shown once, below it
        head = event.message.splitlines()[0].removesuffix("; last stderr lines:") if event.message else "?"
        self._say(f"{what}: {head} — waiting for the next change")
        if event.cycle in self.told_cycles:
            return  # its stderr went by as it came, just above
        for line in event.stderr_tail:
            self._write(escape_controls(f"  | {line}"))

    def _tests(self, event: Any) -> None:
        results = event.outcome or []
        if self.fmt == "json":
            self._json(
                "tests",
                cycle=event.cycle,
                seconds=round(event.seconds, 4),
                error=event.error,
                passed=sum(r.status == "passed" for r in results),
                failed=sum(not r.ok for r in results),
                results=[r.to_json() for r in results],
            )
            return
        if event.error is not None:
            self._say(f"tests could not run: {event.error}")
            return
        counts: dict[str, int] = {}
        for result in results:
            counts[result.status] = counts.get(result.status, 0) + 1
        said = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no tests"
        self._say(f"tests: {said} ({event.seconds:.2f} s)")
        from mcpx.cli.testing_report import details, line

        for result in results:  # the failures, as `mcpx test` prints them
            if not result.ok:
                self._write(escape_controls(f"  {line(result)}"))
                for text in details(result):
                    self._write(escape_controls(f"      {text}"))
