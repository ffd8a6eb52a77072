"""Sending a request over a transport whose `send()` lasts until the answer has streamed in (HTTP).

The request's timer, a cancellation or the answer must not wait for the exchange to end; when one of them
comes first the exchange is cancelled, which over HTTP closes the request's stream.

The exchange runs in the caller's own task, as `asyncio.timeout()` runs its block: when the request's
future settles first, a callback cancels this task, and the cancellation is taken back (`uncancel`) once
it has ended the exchange — unless someone else cancelled the task too. A task and `asyncio.wait` per
request cost each call a task made and scheduled (a loop iteration) and a waiter. An answer cuts the
exchange only if it is still going `ANSWERED_GRACE` later: over a transport that hands frames over as it
reads them, the answer arrives inside the exchange that carries it, which then ends by itself.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any

from mcpx.wire import TrafficEvent

#: seconds an exchange may go on after its request was answered before the peer cuts it short
ANSWERED_GRACE = 0.1


async def send_racing(
    exchange: Coroutine[Any, Any, TrafficEvent],
    future: asyncio.Future[TrafficEvent],
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Run `exchange` (the transport's send of a request) until it ends or `future` (the request's
    answer, failure or timeout) cuts it short, as the module's docstring says."""
    task = asyncio.current_task()
    # Python 3.10: no way to take a cancel back. By version, not hasattr: pytest-asyncio's Runner
    # backport gives 3.10 tasks an `uncancel` that does not take one back (the CancelledError leaked)
    if task is None or sys.version_info < (3, 11):
        return await _send_in_task(exchange, future)
    sending = True
    interrupted = False
    grace: asyncio.TimerHandle | None = None

    def cut() -> None:
        nonlocal interrupted
        if sending and not interrupted:
            interrupted = True
            task.cancel()

    def interrupt(done: asyncio.Future[TrafficEvent]) -> None:
        nonlocal grace
        if not sending or interrupted:
            return
        if done.cancelled() or done.exception() is not None:
            cut()  # timed out, cancelled, or the connection failed: at once
        elif grace is None:
            # answered: the exchange that carried the answer (a transport handing frames over as it
            # reads them) is about to end by itself, and cutting it in its last steps would cost the
            # connection; one that goes on after its answer came (another way) is cut after a moment
            grace = loop.call_later(ANSWERED_GRACE, cut)

    future.add_done_callback(interrupt)
    cancelled = False
    try:
        await exchange
    except asyncio.CancelledError:
        cancelled = True
        if not interrupted or task.uncancel():
            raise  # not ours, or not only ours
    except Exception:
        if not future.done():
            raise  # the exchange ended before the answer came: its error is the request's
        # an exchange that lost the race may still end in an error; it is this request's no longer
    finally:
        sending = False
        future.remove_done_callback(interrupt)
        if grace is not None:
            grace.cancel()
    if interrupted and not cancelled:
        task.uncancel()  # the exchange swallowed our cancellation: take it back all the same


async def _send_in_task(
    exchange: Coroutine[Any, Any, TrafficEvent], future: asyncio.Future[TrafficEvent]
) -> None:
    """`send_racing` where a task cannot take a cancellation back: the exchange gets a task of its own,
    raced against the future."""
    sending = asyncio.ensure_future(exchange)
    sending.add_done_callback(_seen)
    try:
        await asyncio.wait((sending, future), return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not sending.done():
            sending.cancel()
    if not future.done():
        sending.result()  # the exchange ended before the answer came: its error is the request's


def _seen(task: asyncio.Future[Any]) -> None:
    # an exchange that lost the race may still end in an error; it is this request's no longer
    if not task.cancelled():
        task.exception()
