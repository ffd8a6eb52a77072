"""The orphan guard on its own (transports/sentinel.py): when the pipe only mcpx holds ends, the sentinel
kills the group it was told of and every process carrying the server's mark — also when mcpx died before
it could name the group — and a sentinel that is stopped fires at nothing.

(`mcpx call` SIGKILLed mid-call: tests/integration/test_call_processes.py and test_descendants.py.)"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from call_harness import kill_quietly, wait_dead

from mcpx.transports import descendants
from mcpx.transports.sentinel import Sentinel


def group_of_two(env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """A process group of its own: a shell leader and its child; returns (leader, the child's pid)."""
    leader = subprocess.Popen(
        ["/bin/sh", "-c", "sleep 60 & echo $!; wait"],
        stdout=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )
    assert leader.stdout is not None
    return leader, int(leader.stdout.readline())


def clean_up(leader: subprocess.Popen[bytes], child: int) -> None:
    kill_quietly(leader.pid)
    kill_quietly(child)
    leader.wait(timeout=5)
    assert leader.stdout is not None
    leader.stdout.close()


async def mcpx_dies(sentinel: Sentinel) -> None:
    """What a SIGKILLed mcpx does to the sentinel: its end of the pipe closes."""
    assert sentinel.process.stdin is not None
    sentinel.process.stdin.close()
    await asyncio.wait_for(sentinel.process.wait(), timeout=10)


async def test_the_end_of_the_pipe_kills_the_named_group() -> None:
    sentinel = await Sentinel.start(descendants.new_mark())
    assert sentinel is not None
    leader, child = group_of_two()
    try:
        sentinel.guard(leader.pid)
        await asyncio.sleep(0)
        assert leader.poll() is None  # nothing happens while mcpx lives
        await mcpx_dies(sentinel)
        assert leader.wait(timeout=5) == -9
        assert wait_dead(child, 5), "the group's second process outlived the sentinel"
    finally:
        clean_up(leader, child)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the mark is read from /proc")
async def test_mcpx_dead_before_naming_the_group_still_leaves_nothing() -> None:
    mark = descendants.new_mark()
    sentinel = await Sentinel.start(mark)
    assert sentinel is not None
    leader, child = group_of_two({descendants.ENV_MARK: mark})
    bystander, other = group_of_two({descendants.ENV_MARK: "not-" + mark})
    try:
        await mcpx_dies(sentinel)  # the server was spawned, its group never written
        assert leader.wait(timeout=5) == -9
        assert wait_dead(child, 5)
        assert bystander.poll() is None, "a process without the mark was killed"
    finally:
        clean_up(leader, child)
        clean_up(bystander, other)


async def test_a_stopped_sentinel_fires_at_nothing() -> None:
    sentinel = await Sentinel.start(descendants.new_mark())
    assert sentinel is not None
    leader, child = group_of_two()
    try:
        sentinel.guard(leader.pid)
        await sentinel.stop(timeout=5)
        assert sentinel.process.returncode == -9
        await asyncio.sleep(0.1)
        assert leader.poll() is None
    finally:
        clean_up(leader, child)
