"""Running a collection: one connection per file (a fresh one only for tests that ask), each test's
request sent, its answer checked against its expectations.

    async with CollectionRunner(collection) as runner:     # connects on the first test that needs it
        for test in collection.tests:
            result = await runner.run(test)                 # TestResult: status, differences, answer

Connections go through the front door (`open_session`); a `server: {recording: FILE}` is served in
process by `mcpx mock`'s `MockServer` over an in-memory pair. When the server cannot be reached the
runner raises the connection's `McpxError` (the CLI's exit 3 or 4); when it dies during a test, that test
fails and the next one starts it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpx.collection.answers import elicit_answer, sample_answer
from mcpx.collection.expect import Answer, Difference, ErrorAnswer, evaluate
from mcpx.collection.model import Collection, TestCase
from mcpx.errors import ConnectError, McpxError, RequestTimeoutError, RpcError
from mcpx.protocol.client import Client
from mcpx.protocol.names import LIST_OF_METHOD
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.session import open_session
from mcpx.wire.traffic import TrafficLog
from mcpx.wire.waiting import within

Status = Literal["passed", "failed", "error", "skipped"]


@dataclass(slots=True)
class TestResult:
    test: TestCase
    status: Status
    differences: list[Difference] = field(default_factory=list)
    answer: Answer | None = None
    #: the time of the request itself (what maxMs bounds), 0 when none was sent
    elapsed_ms: float = 0.0
    #: why the test errored or was skipped
    message: str = ""

    __test__ = False

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "skipped")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.test.name,
            "line": self.test.line,
            "status": self.status,
            "ms": round(self.elapsed_ms, 1),
        }
        if self.differences:
            out["differences"] = [d.to_json() for d in self.differences]
        if self.message:
            out["message"] = self.message
        return out


class CollectionRunner:
    """The tests of one collection against its server, one at a time, on a shared connection."""

    def __init__(self, collection: Collection, options: SessionOptions | None = None) -> None:
        self.collection = collection
        #: the test being run: the server's questions are answered as it says
        self._current: TestCase | None = None
        #: how to answer between tests (a client handed to Python code: the pytest fixture)
        self.default_answers = TestCase("(between tests)", "")
        base = options or SessionOptions(era=collection.era, timeout=collection.timeout)  # type: ignore[arg-type]
        self.options = dataclasses.replace(base, on_elicit=self._elicit, on_sample=self._sample)
        self._shared: _Connection | None = None
        #: a connection someone else holds (`borrow`), and whether it answers with this runner's handlers
        self._borrowed: Client | None = None
        self._borrowed_answers = True
        #: every connection's traffic, in order (the runner's log of what was said)
        self.traffic: list[TrafficLog] = []

    async def __aenter__(self) -> CollectionRunner:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        shared, self._shared = self._shared, None
        if shared is not None:
            await shared.close()

    def borrow(self, client: Client, *, answers: bool = True) -> None:
        """Run the tests on `client`, a connection its owner opened and closes (`mcpx watch`, the TUI: the
        server they show is the one tested, and no second process starts). `answers`: it was opened with
        this runner's `options`, so the server's questions get each test's answers; otherwise a test that
        answers questions (`elicit`, `sample`) gets a connection of its own, as `fresh` does."""
        self._borrowed = client
        self._borrowed_answers = answers

    async def client(self) -> Client:
        """The shared connection, opened (again, if the server went away) on first need."""
        if self._borrowed is not None:
            return self._borrowed
        if self._shared is not None and self._shared.client.session.ended is not None:
            await self.close()
        if self._shared is None:
            self._shared = await self._connect()
        return self._shared.client

    async def _connect(self) -> _Connection:
        log = TrafficLog()
        self.traffic.append(log)
        server = self.collection.server
        assert server is not None
        if server.kind == "recording":
            return await _Connection.mock(server.recording_path(), self.options, log)
        client = open_session(server.spec(), self.options, traffic=log)
        try:
            await client.connect()
        except BaseException:
            await client.close()
            raise
        return _Connection(client)

    async def run(self, test: TestCase) -> TestResult:
        """Send the test's request and check its answer (never raises for a failed test; raises the
        connection's error when the server cannot be reached at all)."""
        if test.skip is not None:
            return TestResult(test, "skipped", message=test.skip)
        if test.problems:
            return TestResult(test, "error", message="; ".join(test.problems))
        own: _Connection | None = None
        try:
            asks = test.elicit is not None or test.sample is not None
            if test.fresh or (self._borrowed is not None and not self._borrowed_answers and asks):
                own = await self._connect()
                client = own.client
            else:
                client = await self.client()
            self._current = test
            answer = await _ask(client, test)
        except ConnectError as exc:
            if self._shared is None and own is None:
                raise  # never reached: the file's error, not this test's
            return TestResult(test, "error", message=f"the server went away: {exc.message}")
        except RequestTimeoutError as exc:
            return TestResult(test, "error", message=exc.message)
        finally:
            self._current = None
            if own is not None:
                await own.close()
        differences = list(evaluate(test.expect, answer))
        status: Status = "failed" if differences else "passed"
        return TestResult(test, status, differences, answer, answer.elapsed_ms)

    async def _elicit(self, params: Any) -> Any:
        return elicit_answer((self._current or self.default_answers).elicit, params)

    async def _sample(self, params: Any) -> Any:
        return sample_answer((self._current or self.default_answers).sample)


async def run_collection(collection: Collection, options: SessionOptions | None = None) -> list[TestResult]:
    """Every test of `collection`, in order (raises when the server cannot be reached)."""
    async with CollectionRunner(collection, options) as runner:
        return [await runner.run(test) for test in collection.tests]


async def _ask(client: Client, test: TestCase) -> Answer:
    timeout: Any = test.timeout if test.timeout is not None else "default"
    answer = Answer(test.method)
    if test.expect.get("outputSchema") is True and test.tool is not None:
        tools = {tool.name: tool for tool in await client.list_tools()}
        answer.output_schema = tools[test.tool].output_schema if test.tool in tools else None
    started = time.perf_counter()
    try:
        if test.method in LIST_OF_METHOD and not test.params:
            answer.result = await client.list_all(test.method, LIST_OF_METHOD[test.method], timeout=timeout)
        else:
            progress = _ignore_progress if test.method == "tools/call" else None
            answer.result = await client.request(
                test.method, test.params, timeout=timeout, on_progress=progress
            )
    except RpcError as exc:
        answer.error = ErrorAnswer(exc.error_code, exc.error_message, exc.data)
    except McpxError as exc:
        if isinstance(exc, (ConnectError, RequestTimeoutError)):
            raise
        answer.error = ErrorAnswer(0, exc.message)
    answer.elapsed_ms = (time.perf_counter() - started) * 1000
    return answer


def _ignore_progress(progress: float, total: float | None, message: str | None) -> None:
    """A progress token lets the server's progress restart the timeout."""


@dataclass(slots=True)
class _Connection:
    client: Client
    serving: asyncio.Future[None] | None = None

    @classmethod
    async def mock(cls, path: Any, options: SessionOptions, log: TrafficLog) -> _Connection:
        """A recording served as `mcpx mock` serves it, in this process over an in-memory pair."""
        from mcpx.record.mock import MockServer
        from mcpx.record.reader import read_recording
        from mcpx.transports.memory import memory_pair

        recording = read_recording(path)
        client_end, server_end = memory_pair(log)
        server = MockServer(recording, server_end)
        serving = asyncio.ensure_future(server.serve())
        client = open_session(client_end, options)
        try:
            await client.connect()
        except BaseException:
            await client.close()
            serving.cancel()
            raise
        return cls(client, serving)

    async def close(self) -> None:
        await self.client.close()
        if self.serving is not None:
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError, McpxError):
                await within(self.serving, 5)
