"""The pytest plugin (entry point `pytest11: mcpx`): collections as pytest tests, and a client fixture.

- `pytest` collects every `*.mcpx.yaml` it meets as a file of tests: one item per test, one connection
  per file (opened when its first test runs, closed after its last), a failure shown field by field.
  `mcpx_collect = false` in the ini file (or `-p no:mcpx`) turns collecting off.
- `mcpx_session`: an async fixture (pytest-asyncio) that yields a connected `mcpx.Client`. Which server:
  the closest `@pytest.mark.mcpx(...)` — `mcpx("./server.py", "--flag", era="legacy", timeout=10,
  env={...}, elicit=..., sample=...)`, `mcpx(recording="s.mcpx.jsonl")` or `mcpx(config=FILE,
  server=NAME)` — else the `mcpx_target` ini option (a TARGET and its words), relative to the rootdir.

Loading this module costs imports of pytest and pytest-asyncio only: mcpx itself loads when a collection
or the fixture is used, so the plugin adds nothing to a test run that uses neither.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mcpx.collection.model import Collection, TestCase
    from mcpx.collection.runner import CollectionRunner, TestResult
    from mcpx.protocol.client import Client

SUFFIX = ".mcpx.yaml"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "mcpx_collect", "collect *.mcpx.yaml files as tests (default: true)", type="bool", default=True
    )
    parser.addini("mcpx_target", "the server mcpx_session connects to: a TARGET and its words", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "mcpx(target, *args, recording=, config=, server=, era=, timeout=, env=, cwd=, elicit=, sample=): "
        "the server the mcpx_session fixture connects to",
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(SUFFIX) and parent.config.getini("mcpx_collect"):
        collector: pytest.Collector = CollectionFile.from_parent(parent, path=file_path)
        return collector
    return None


class CollectionFailed(Exception):
    """A test of a collection whose answer was not as expected (or that could not run)."""

    def __init__(self, result: TestResult) -> None:
        super().__init__(result.test.name)
        self.result = result


class CollectionFile(pytest.File):
    """A `*.mcpx.yaml` file: its tests run on one connection, on an event loop of its own."""

    collection: Collection | None = None
    _loop: asyncio.AbstractEventLoop | None = None
    _runner: CollectionRunner | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from mcpx.collection.model import load_collection
        from mcpx.errors import McpxError

        try:
            self.collection = load_collection(self.path)
        except McpxError as exc:
            raise self.CollectError(exc.message) from None
        for test in self.collection.tests:
            item = CollectionItem.from_parent(self, name=test.name, test=test)
            if test.skip is not None:
                item.add_marker(pytest.mark.skip(reason=test.skip))
            yield item

    def setup(self) -> None:
        from mcpx.collection.runner import CollectionRunner

        assert self.collection is not None
        # a loop of this file's own, run only while one of its tests runs: the connection lives across
        # tests without a loop running between them (nothing happens then), next to any other plugin's
        self._loop = asyncio.new_event_loop()
        self._runner = CollectionRunner(self.collection)

    def teardown(self) -> None:
        loop, runner = self._loop, self._runner
        self._loop = self._runner = None
        if loop is None:
            return
        try:
            if runner is not None:
                loop.run_until_complete(runner.close())
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()

    def run(self, test: TestCase) -> TestResult:
        assert self._loop is not None and self._runner is not None
        return self._loop.run_until_complete(self._runner.run(test))


class CollectionItem(pytest.Item):
    def __init__(self, *, test: TestCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test = test

    def runtest(self) -> None:
        assert isinstance(self.parent, CollectionFile)
        result = self.parent.run(self.test)
        if result.status == "skipped":
            pytest.skip(result.message)
        if result.status != "passed":
            raise CollectionFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        from mcpx.errors import McpxError
        from mcpx.wire.controls import escape_controls

        error = excinfo.value
        if isinstance(error, CollectionFailed):
            result = error.result
            if result.status == "error":
                return escape_controls(f"{self.test.name}: {result.message}")
            lines = [f"{self.test.name} ({result.elapsed_ms:.0f} ms):"]
            lines += [f"  {d.describe()}" for d in result.differences]
            return escape_controls("\n".join(lines))
        if isinstance(error, McpxError):  # the server could not be reached: one sentence, no traceback
            return escape_controls(error.message)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        # the name alone, as pytest has a function's: its -v line is then the node id
        return self.path, max(self.test.line - 1, 0), self.test.name


async def _session(request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    from mcpx.collection.model import Collection
    from mcpx.collection.runner import CollectionRunner

    server, settings = _server(request)
    collection = Collection(Path(request.config.rootpath) / "(mcpx_session)", server)
    if "era" in settings:
        collection.era = str(settings["era"])
    if "timeout" in settings:
        collection.timeout = settings["timeout"]
    runner = CollectionRunner(collection)
    runner.default_answers.elicit = settings.get("elicit")
    runner.default_answers.sample = settings.get("sample")
    try:
        yield await runner.client()
    finally:
        await runner.close()


def _server(request: pytest.FixtureRequest) -> tuple[Any, dict[str, Any]]:
    """The server the closest `mcpx` marker names, else the `mcpx_target` ini option."""
    import shlex

    from mcpx.collection.model import ServerRef

    marker = request.node.get_closest_marker("mcpx")
    base = Path(request.config.rootpath)
    if marker is None:
        words = shlex.split(str(request.config.getini("mcpx_target") or ""))
        if not words:
            raise pytest.UsageError(
                "mcpx_session needs a server: mark the test @pytest.mark.mcpx('./server.py') "
                "or set mcpx_target in the ini file"
            )
        return ServerRef("target", base, target=words[0], args=words[1:]), {}
    settings = dict(marker.kwargs)
    if marker.args:
        target, *args = (str(a) for a in marker.args)
        ref = ServerRef("target", Path(str(request.path)).parent, target=target, args=args)
    elif "recording" in settings:
        ref = ServerRef("recording", Path(str(request.path)).parent, recording=str(settings["recording"]))
    elif "config" in settings:
        name = settings.get("server")
        ref = ServerRef(
            "config",
            Path(str(request.path)).parent,
            config=str(settings["config"]),
            server=name and str(name),
        )
    else:
        raise pytest.UsageError("@pytest.mark.mcpx needs a TARGET, recording=FILE or config=FILE")
    ref.env = {str(k): str(v) for k, v in (settings.get("env") or {}).items()}
    ref.cwd = settings.get("cwd")
    return ref, settings


def _fixture() -> Any:
    """`mcpx_session` as pytest-asyncio runs it (strict mode or auto), or one sentence without it."""
    try:
        import pytest_asyncio
    except ImportError:  # pragma: no cover - pytest-asyncio is how the fixture gets its event loop

        @pytest.fixture(name="mcpx_session")
        def missing() -> None:
            raise pytest.UsageError("the mcpx_session fixture is async: install pytest-asyncio to use it")

        return missing
    return pytest_asyncio.fixture(_session, name="mcpx_session")


mcpx_session = _fixture()
