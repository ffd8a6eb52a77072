"""A total bound for one request (`max_total_timeout`, `--max-total-timeout`): progress restarts the
per-answer timeout, so a server that reports progress forever is ended only by this bound."""

from __future__ import annotations

import asyncio
import time

import pytest
from call_harness import call, server

import mcpx
from mcpx.errors import RequestTimeoutError
from mcpx.wire import TrafficLog

FOREVER = server("progress_forever.py")


async def test_progress_forever_is_ended_by_the_total_bound() -> None:
    log = TrafficLog()
    progress: list[float] = []
    async with mcpx.connect(FOREVER, timeout=0.5, max_total_timeout=1.2, traffic=log) as client:
        started = time.monotonic()
        with pytest.raises(RequestTimeoutError, match=r"still not answered after 1\.2 s") as raised:
            await client.call_tool("forever", {}, on_progress=lambda p, t, m: progress.append(p))
        took = time.monotonic() - started
    assert 1.2 <= took < 2.5
    assert len(progress) > 5  # the per-answer timeout (0.5 s) was restarted all along
    assert raised.value.details["max_total_timeout"] == 1.2
    cancel = next(e for e in log if e.method == "notifications/cancelled")
    assert "timed out after 1.2 s" in cancel.raw


async def test_without_a_total_bound_progress_keeps_the_request_alive() -> None:
    async with mcpx.connect(FOREVER, timeout=0.3) as client:
        progress: list[float] = []
        call = client.call_tool("forever", {}, on_progress=lambda p, t, m: progress.append(p))
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(call, 1.0)  # far past the 0.3 s timeout, and still going
    assert len(progress) > 5


def test_call_max_total_timeout_ends_a_progress_forever_call_with_exit_4() -> None:
    run = call(FOREVER, "--method", "tools/call", "--tool-name", "forever", "--timeout", "0.5",
               "--max-total-timeout", "1.5", "--traffic")  # fmt: skip
    error = run.failure(4, "timeout")
    assert error["max_total_timeout"] == 1.5 and "still not answered after 1.5 s" in error["message"]
    assert sum("notifications/progress" in line for line in run.traffic()) > 5
    assert run.elapsed < 15


def test_a_negative_max_total_timeout_is_a_usage_error() -> None:
    call(FOREVER, "--method", "tools/list", "--max-total-timeout", "-1").failure(1, "usage")
