"""`Pending`: one request of ours in flight — the future its caller awaits, and its two deadlines.

Each request has an idle timeout (progress from the server starts it again) and, optionally, a total
bound that progress does not restart. While someone waits on a person (`Peer.hold_timers`) both are
paused: the idle timer starts afresh afterwards, the total bound goes on with what was left of it. When
a deadline passes, the future fails with `RequestTimeoutError`; the peer, which awaits it, tells the
server. Nothing here knows the transport or the other requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from mcpx.errors import RequestTimeoutError
from mcpx.wire import JsonId, TrafficEvent

ProgressCallback = Callable[[float, "float | None", "str | None"], Any]


class Pending:
    """A request sent and not answered yet."""

    __slots__ = (
        "future", "method", "on_progress", "progress_token", "timeout", "timer", "total", "total_armed_at",
        "total_left", "total_timer",
    )  # fmt: skip

    def __init__(
        self,
        future: asyncio.Future[TrafficEvent],
        method: str,
        timeout: float | None,
        total: float | None = None,
    ) -> None:
        self.future: asyncio.Future[TrafficEvent] = future
        self.method = method
        self.timeout = timeout
        self.timer: asyncio.TimerHandle | None = None
        self.on_progress: ProgressCallback | None = None
        self.progress_token: JsonId | None = None
        #: the total bound (progress does not restart it; a person's answer pauses it), and what is left of it
        self.total = total
        self.total_left = total
        self.total_timer: asyncio.TimerHandle | None = None
        self.total_armed_at = 0.0

    def arm(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the idle timer, and the total bound unless it already runs."""
        if self.total_left is not None and self.total_timer is None:
            self.total_armed_at = loop.time()
            self.total_timer = loop.call_later(max(0.0, self.total_left), self._expire_total)
        if self.timeout is not None:
            self.timer = loop.call_later(self.timeout, self._expire)

    def progressed(self, loop: asyncio.AbstractEventLoop) -> None:
        """Progress shows the server is alive: the idle timer starts again (the total bound runs on)."""
        if self.timer is not None:  # none while the timers are held
            self.timer.cancel()
            self.timer = None
            self.arm(loop)

    def pause(self, now: float) -> None:
        """Stop both timers; what is left of the total bound is kept for `arm()`."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.total_timer is not None:
            self.total_timer.cancel()
            self.total_timer = None
            assert self.total_left is not None
            self.total_left -= now - self.total_armed_at

    def stop(self) -> None:
        """The request is over: no deadline may fire for it any more."""
        if self.timer is not None:
            self.timer.cancel()
        if self.total_timer is not None:
            self.total_timer.cancel()

    def _expire_total(self) -> None:
        if self.future.done():
            return
        total = self.total
        self.future.set_exception(
            RequestTimeoutError(
                f"{self.method} was still not answered after {total:g} s, the most one request may take "
                "however much progress the server reports; mcpx cancelled it",
                method=self.method,
                max_total_timeout=total,
            )
        )

    def _expire(self) -> None:
        if self.future.done():
            return
        timeout = self.timeout
        self.future.set_exception(
            RequestTimeoutError(
                f"{self.method} got no answer within {timeout:g} s; mcpx cancelled it",
                method=self.method,
                timeout=timeout,
            )
        )
