"""`mcpx test FILE…`: run test collections (`*.mcpx.yaml`) against their servers, for people and CI.

One connection per file (a fresh one for tests that ask). Each test is printed with its time and, when it
fails, a line per field that differs. Exit 0 when every test passed (or was skipped), 8 when any failed or
could not run, the connection's code when a server could not be reached (4; 3 when it wants a sign-in),
1 for a collection that cannot be read. `--update` writes the live answers into the expectations and
prints the change to each file as a diff.
"""

from __future__ import annotations

import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.errors import McpxError, UsageError

if TYPE_CHECKING:
    from mcpx.collection.model import Collection
    from mcpx.collection.runner import TestResult

#: the exit code when any test failed (0 all passed; 6 and 7 are check's and replay's)
TESTS_FAILED = 8


def command(
    files: Annotated[
        list[str],
        typer.Argument(
            help="Collection files (*.mcpx.yaml), or folders to search for them.", show_default=False
        ),
    ],
    junit: Annotated[
        str | None, typer.Option("--junit", help="Also write a JUnit XML report to FILE.")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    update: Annotated[
        bool,
        typer.Option("--update", help="Re-record the expectations from the live answers (prints the diff)."),
    ] = False,
    select: Annotated[
        str | None, typer.Option("-k", "--select", help="Run only tests whose name contains this.")
    ] = None,
    timeout: Annotated[
        float | None, typer.Option("--timeout", help="Seconds per answer, over each collection's own.")
    ] = None,
) -> None:
    """Run saved calls with expectations against their servers; exit 8 when a test fails."""
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        o.check_format(fmt)
        paths = find_collections(files)
        if junit:
            _write(junit, "")  # a path that cannot be written fails now, before any server starts
        return _run(paths, Settings(fmt, junit, update, select, timeout))

    execute(fmt, prepare)


@dataclass(slots=True)
class Settings:
    fmt: str
    junit: str | None
    update: bool
    select: str | None
    timeout: float | None


@dataclass(slots=True)
class FileRun:
    """One collection's run: its results, or why it could not run."""

    path: Path
    collection: Collection | None = None
    results: list[TestResult] = field(default_factory=list)
    error: McpxError | None = None
    seconds: float = 0.0
    diff: str = ""


def find_collections(items: list[str]) -> list[Path]:
    """The files named, and the `*.mcpx.yaml` files under the folders named (sorted)."""
    from mcpx.collection.model import SUFFIX

    paths: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            found = sorted(p for p in path.rglob(f"*{SUFFIX}") if p.is_file())
            if not found:
                raise UsageError(f"no {SUFFIX} files under {item!r}")
            paths.extend(found)
        elif not path.exists():
            raise UsageError(f"the collection {item!r} does not exist")
        else:
            paths.append(path)
    return paths


async def _run(paths: list[Path], settings: Settings) -> int:
    from mcpx.cli import testing_report as report

    runs: list[FileRun] = []
    for path in paths:
        run = await _run_file(path, settings)
        runs.append(run)
        if settings.fmt == "text":
            report.print_file(run)
    if settings.fmt == "json":
        report.print_json(runs)
    else:
        report.print_summary(runs)
    if settings.junit:
        _write(settings.junit, report.junit(runs))
    first = next((run.error for run in runs if run.error is not None), None)
    if first is not None:
        from mcpx.cli.output import print_error

        # as every command ends a failure: the sentence and the JSON line, last on stderr
        print_error(first, settings.fmt)
    return exit_code(runs)


async def _run_file(path: Path, settings: Settings) -> FileRun:
    from mcpx.collection.model import load_collection
    from mcpx.collection.runner import CollectionRunner

    run = FileRun(path)
    started = time.perf_counter()
    try:
        collection = run.collection = load_collection(path)
        if settings.select is not None:
            collection.tests = [t for t in collection.tests if settings.select in t.name]
        if settings.timeout is not None:
            collection.timeout = settings.timeout or None
        async with CollectionRunner(collection) as runner:
            for test in collection.tests:
                run.results.append(await runner.run(test))
    except McpxError as exc:
        run.error = exc
    run.seconds = time.perf_counter() - started
    if settings.update and run.collection is not None and run.results:
        try:
            run.diff = _update(run)
        except (McpxError, OSError) as exc:  # a file it cannot write: that file's error, the others go on
            run.error = exc if isinstance(exc, McpxError) else UsageError(f"cannot update {path}: {exc}")
        if run.diff:
            _judge_again(run)
    return run


def _judge_again(run: FileRun) -> None:
    """After --update: each answered test judged by what its file now says (a pattern the answer breaks
    still fails), with its new line."""
    import dataclasses

    from mcpx.collection.expect import evaluate
    from mcpx.collection.model import load_collection

    tests = load_collection(run.path).tests
    for position, result in enumerate(run.results):
        index = result.test.index
        if result.answer is None or result.status not in ("passed", "failed") or index >= len(tests):
            continue
        differences = list(evaluate(tests[index].expect, result.answer))
        run.results[position] = dataclasses.replace(
            result, test=tests[index], differences=differences, status="failed" if differences else "passed"
        )


def _update(run: FileRun) -> str:
    """Write the live answers into the file's expectations; the change as a unified diff."""
    import difflib

    from mcpx.collection.record import updated
    from mcpx.collection.writer import update_expectations

    updates: dict[int, dict[str, Any]] = {}
    for result in run.results:
        if result.answer is None or result.status in ("skipped", "error"):
            continue
        new = updated(result.test.expect, result.answer)
        if new is not None:
            updates[result.test.index] = new
    if not updates:
        return ""
    before = run.path.read_text(encoding="utf-8")
    after = update_expectations(run.path, updates)
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), str(run.path), str(run.path)
    )
    return "".join(lines)


def exit_code(runs: list[FileRun]) -> int:
    """The first file's error code (unreachable 4, auth 3, unreadable 1), else 8 for a failed test, else 0."""
    for run in runs:
        if run.error is not None:
            return run.error.exit_code
    if any(not r.ok for run in runs for r in run.results):
        return TESTS_FAILED
    return 0


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path!r}: {exc.strerror or exc}") from None
