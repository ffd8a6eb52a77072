"""`within`: a time limit that keeps every cancellation (asyncio.wait_for loses one on 3.10/3.11)."""

from __future__ import annotations

import asyncio
import contextlib
import sys

import pytest

from mcpx.wire.waiting import within


async def _cancel_as_the_result_arrives(wait: object) -> object:
    """Start a task waiting on a future through `wait`, then resolve the future and cancel the task in
    the same loop iteration: what a quit or a close does when the awaited answer comes at that moment."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str] = loop.create_future()

    async def waiting() -> str:
        return await wait(answer, 10)  # type: ignore[operator,no-any-return]

    task = asyncio.create_task(waiting())
    await asyncio.sleep(0)
    answer.set_result("answered")
    task.cancel()
    try:
        return await task
    except asyncio.CancelledError:
        return "cancelled"


async def test_a_cancel_that_meets_the_answer_is_kept() -> None:
    assert await _cancel_as_the_result_arrives(within) == "cancelled"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 rebuilt wait_for on asyncio.timeout")
async def test_wait_for_loses_that_cancel_here() -> None:
    # the reason `within` exists: if this starts failing, asyncio fixed it on this version
    assert await _cancel_as_the_result_arrives(asyncio.wait_for) == "answered"


async def test_it_answers_times_out_and_cancels_what_it_gave_up() -> None:
    assert await within(asyncio.sleep(0, "now"), 1) == "now"
    assert await within(asyncio.sleep(0, "unbounded"), None) == "unbounded"
    slow = asyncio.create_task(asyncio.sleep(30))
    with pytest.raises(asyncio.TimeoutError):
        await within(slow, 0.01)
    await asyncio.sleep(0)
    assert slow.cancelled()


async def test_a_loop_waiting_again_ends_when_cancelled() -> None:
    # the shape of workspace.wait_for: wait on an event again and again until a condition holds
    changed = asyncio.Event()

    async def until_never() -> None:
        while True:
            changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await within(changed.wait(), 5)

    task = asyncio.create_task(until_never())
    for _ in range(50):
        await asyncio.sleep(0)
        changed.set()
        task.cancel()
        await asyncio.sleep(0)
        if task.done():
            break
    await asyncio.wait({task}, timeout=2)
    assert task.cancelled()
