"""Waiting for something for at most so long, without losing a cancellation on the way.

`asyncio.wait_for` on Python 3.10 and 3.11 returns the awaited result when the waiting task is cancelled
in the same moment that result arrives: the cancellation is lost (CPython gh-86296; 3.12 rebuilt
`wait_for` on `asyncio.timeout`). A loop that then waits again never ends, and whoever cancelled it —
quitting the TUI, closing a connection, a workspace going away — waits for it without end. `within`
keeps every cancellation; otherwise it is `wait_for`: on a timeout the awaited thing is cancelled.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import Any, TypeVar

_T = TypeVar("_T")


if sys.version_info >= (3, 11):

    async def within(awaitable: Awaitable[_T], timeout: float | None) -> _T:
        """`await awaitable`; after `timeout` seconds (None: never) cancel it and raise TimeoutError."""
        async with asyncio.timeout(timeout):
            return await awaitable

else:  # pragma: no cover - Python 3.10: no asyncio.timeout; asyncio.wait never swallows a cancel

    async def within(awaitable: Awaitable[_T], timeout: float | None) -> _T:
        """`await awaitable`; after `timeout` seconds (None: never) cancel it and raise TimeoutError."""
        future = asyncio.ensure_future(awaitable)
        try:
            done, _ = await asyncio.wait({future}, timeout=timeout)
        except asyncio.CancelledError:
            future.cancel()
            raise
        if not done:
            future.cancel()
            raise asyncio.TimeoutError
        return future.result()


async def ended(task: asyncio.Future[Any], timeout: float | None = None) -> bool:
    """Wait at most `timeout` seconds (None: no limit) for `task` to end, whatever it ends with; returns
    whether it did. `task` is not cancelled and its outcome is not raised here (its error, if any, is
    marked as seen: its owner reports it). A cancel of the waiting task raises, as any await's does —
    `with suppress(CancelledError): await task` would swallow that cancel along with the task's own.
    """
    if not task.done():
        await asyncio.wait({task}, timeout=timeout)
    if task.done() and not task.cancelled():
        task.exception()
    return task.done()


async def cancel_and_wait(task: asyncio.Future[Any], timeout: float | None = None) -> bool:
    """Cancel `task` and wait (at most `timeout` seconds) for it to end, as `ended` waits."""
    task.cancel()
    return await ended(task, timeout)
