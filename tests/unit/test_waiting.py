"""`within`, `ended`, `cancel_and_wait`: waits that keep every cancellation of the waiting task
(asyncio.wait_for loses one on 3.10/3.11; `suppress(CancelledError): await task` loses one anywhere)."""

from __future__ import annotations

import asyncio
import contextlib
import sys

import pytest

from mcpx.wire.waiting import cancel_and_wait, ended, within


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


async def _slow_to_stop() -> None:
    """A task that takes a moment to end once cancelled (a reader closing its stream)."""
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        await asyncio.sleep(0.05)
        raise


async def _close_cancelled_meanwhile(close: object) -> str:
    """Run `close(task)` in a closing task and cancel that closing task while it waits (a quit)."""
    inner = asyncio.create_task(_slow_to_stop())
    await asyncio.sleep(0)
    closing = asyncio.create_task(close(inner))  # type: ignore[operator]
    await asyncio.sleep(0.01)
    closing.cancel()
    try:
        await closing
    except asyncio.CancelledError:
        return "cancelled"
    return "finished"


async def test_cancel_and_wait_keeps_a_cancel_of_the_closer() -> None:
    assert await _close_cancelled_meanwhile(cancel_and_wait) == "cancelled"


async def test_suppressing_cancelled_error_loses_that_cancel() -> None:
    async def suppressing(task: asyncio.Task[None]) -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    assert await _close_cancelled_meanwhile(suppressing) == "finished"


async def test_ended_waits_without_cancelling_or_raising_and_respects_its_limit() -> None:
    async def fails() -> None:
        await asyncio.sleep(0.01)
        raise ValueError("the task's own error")

    failing = asyncio.create_task(fails())
    assert await ended(failing) is True  # its error is its owner's to report, not raised here
    assert isinstance(failing.exception(), ValueError)
    sleeping = asyncio.create_task(asyncio.sleep(10))
    assert await ended(sleeping, 0.01) is False
    assert not sleeping.cancelled() and not sleeping.done()
    assert await cancel_and_wait(sleeping, 1) is True and sleeping.cancelled()
