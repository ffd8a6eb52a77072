"""`Pending`: one request of ours in flight — the future its caller awaits, and its two deadlines.

Each request has an idle timeout (progress from the server starts it again) and, optionally, a total
bound that progress does not restart. While someone waits on a person (`Peer.hold_timers`) both are
paused: the idle timer starts afresh afterwards, the total bound goes on with what was left of it. When
a deadline passes, the future fails with `RequestTimeoutError`; the peer, which awaits it, tells the
server. Nothing here knows the transport or the other requests.

A request holds its deadlines as numbers, not as timers of the event loop: the peer keeps one timer for
all its requests, set for the earliest deadline, and calls `expire_if_due` when it fires. A timer per
request (`call_later`, then `cancel`) cost every call a timer handle made and thrown away — on uvloop a
libuv timer started and stopped — where comparing two numbers costs next to nothing.
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
        "deadline", "future", "method", "on_progress", "progress_token", "timeout", "total", "total_deadline",
        "total_left",
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
        #: when the idle timeout passes (loop time); None while not armed (held, or no timeout)
        self.deadline: float | None = None
        self.on_progress: ProgressCallback | None = None
        self.progress_token: JsonId | None = None
        #: the total bound (progress does not restart it; a person's answer pauses it), what is left of it,
        #: and when it passes while it runs
        self.total = total
        self.total_left = total
        self.total_deadline: float | None = None

    def arm(self, now: float) -> float | None:
        """Start the idle timer, and the total bound unless it already runs; returns the earliest deadline
        (None: none), for the peer's one timer."""
        if self.total_left is not None and self.total_deadline is None:
            self.total_deadline = now + max(0.0, self.total_left)
        if self.timeout is not None:
            self.deadline = now + self.timeout
        return self.due_at()

    def due_at(self) -> float | None:
        """The earliest deadline that runs (None: none)."""
        deadline, total = self.deadline, self.total_deadline
        if total is None:
            return deadline
        return total if deadline is None or total < deadline else deadline

    def progressed(self, now: float) -> None:
        """Progress shows the server is alive: the idle timer starts again (the total bound runs on)."""
        if self.deadline is not None:  # none while the timers are held
            self.deadline = None
            self.arm(now)

    def pause(self, now: float) -> None:
        """Stop both timers; what is left of the total bound is kept for `arm()`."""
        self.deadline = None
        if self.total_deadline is not None:
            self.total_left = self.total_deadline - now
            self.total_deadline = None

    def expire_if_due(self, now: float) -> bool:
        """Fail the future if a deadline has passed at `now`; True when it did."""
        if self.future.done():
            return False
        if self.total_deadline is not None and now >= self.total_deadline:
            total = self.total
            self.future.set_exception(
                RequestTimeoutError(
                    f"{self.method} was still not answered after {total:g} s, the most one request may take "
                    "however much progress the server reports; mcpx cancelled it",
                    method=self.method,
                    max_total_timeout=total,
                )
            )
            return True
        if self.deadline is not None and now >= self.deadline:
            timeout = self.timeout
            self.future.set_exception(
                RequestTimeoutError(
                    f"{self.method} got no answer within {timeout:g} s; mcpx cancelled it",
                    method=self.method,
                    timeout=timeout,
                )
            )
            return True
        return False
