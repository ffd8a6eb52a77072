"""Reconnect hot loops (tests/servers/http_reconnect_loop.py): resumes and GET-stream reopenings stay under
the caps of mcpx.transports.backoff, and giving up is one sentence naming what the server did."""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from call_harness import call
from http_servers import SERVERS, Server, free_port, running

import mcpx
from mcpx.errors import ConnectError
from mcpx.transports import backoff
from mcpx.wire import TrafficLog


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    port = free_port()
    launched = Server.launch([sys.executable, str(SERVERS / "http_reconnect_loop.py"), str(port), "90"], port)
    with running(launched) as (started,):
        yield started


def seen(server: Server) -> dict[str, int]:
    with urllib.request.urlopen(server.url("/_seen"), timeout=5) as reply:
        return dict(json.loads(reply.read()))


def connect(url: str, **options: Any) -> Any:
    return mcpx.connect(url, transport="http", protocol_era="legacy", timeout=10, **options)


@pytest.fixture()
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A small floor, so reaching the cap takes milliseconds (the count is what is checked)."""
    monkeypatch.setattr(backoff, "RETRY_FLOOR_MS", 5)
    monkeypatch.setattr(backoff, "MAX_DELAY_MS", 40)


async def test_a_request_is_resumed_at_most_max_attempts_times_then_one_sentence(
    server: Server, quick: None
) -> None:
    before = seen(server)["resume"]
    async with connect(server.url("/resumeloop/mcp")) as client:
        with pytest.raises(ConnectError) as raised:
            await client.call_tool("echo", {})
    resumes = seen(server)["resume"] - before
    assert resumes == backoff.MAX_ATTEMPTS  # every attempt counted, though each brought a new event id
    message = raised.value.message
    assert "tools/call" in message and "before its answer" in message
    assert (
        "with a new event id" in message and "retry: 0 ms" in message and "closed within a second" in message
    )
    assert f"stopped after {backoff.MAX_ATTEMPTS} attempts" in message


async def test_the_get_stream_closed_at_once_is_reopened_with_backoff_then_left(
    server: Server, quick: None
) -> None:
    before = seen(server)["listen"]
    log = TrafficLog()
    stopping = asyncio.Event()
    log.subscribe(lambda e: stopping.set() if e.facts.get("event") == "listen-stopped" else None)
    async with connect(server.url("/getloop/mcp"), traffic=log) as client:
        await asyncio.wait_for(stopping.wait(), 10)
        await client.call_tool("echo", {})  # the session goes on without the GET stream
        stopped = next(e for e in log if e.facts.get("event") == "listen-stopped")
        await asyncio.sleep(0.2)  # nothing more after giving up
    assert seen(server)["listen"] - before == backoff.MAX_ATTEMPTS + 1  # the first opening and 5 more
    assert "closed by the server" in stopped.raw and "retry: 0 ms" in stopped.raw
    delays = [e.facts["delay_ms"] for e in log if e.facts.get("event") == "reconnect"]
    assert delays == sorted(delays) and delays[0] >= 5  # backoff: never shorter than the last


async def test_in_a_fixed_window_the_real_backoff_keeps_get_reopenings_few(server: Server) -> None:
    """The hot loop was ~18 reopenings a second; with the real floor (250 ms) and doubling, 2 s hold at
    most the first opening and 3 reopenings (waits of ≥ 250, 500, 1000 ms)."""
    before = seen(server)["listen"]
    async with connect(server.url("/getloop/mcp")):
        await asyncio.sleep(2.0)
    assert 2 <= seen(server)["listen"] - before <= 4


def test_call_gives_up_resuming_within_its_window_and_exits_4(server: Server) -> None:
    """`mcpx call` with the real constants: in a 2 s window (--timeout 2) a few resumes, not thousands
    (waits of ≥ 250, 500 and 1000 ms leave room for 3)."""
    before = seen(server)["resume"]
    run = call(server.url("/resumeloop/mcp"), "--method", "tools/call", "--tool-name", "echo",
               "--protocol-era", "legacy", "--timeout", "2")  # fmt: skip
    assert run.returncode == 4, str(run)
    run.error()
    assert 1 <= seen(server)["resume"] - before <= 3
