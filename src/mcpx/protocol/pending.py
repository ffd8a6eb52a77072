"""`Pending`: one request of ours in flight — the future its caller awaits, and its two deadlines.

Each request has an idle timeout (progress from the server starts it again) and, optionally, a total
bound that progress does not restart. While someone waits on a person (`Peer.hold_timers`) both are
paused: the idle timer starts afresh afterwards, the total bound goes on with what was left of it. When
a deadline passes, the future fails with `RequestTimeoutError`; the peer, which awaits it, tells the
server. Nothing here knows the transport or the other requests.

A request holds its deadlines as numbers, not as timers of the event loop: `Deadlines` keeps one timer
for all the peer's requests, set for the earliest deadline, and calls `expire_if_due` when it fires. A
timer per request (`call_later`, then `cancel`) cost every call a timer handle made and thrown away — on
uvloop a libuv timer started and stopped — where comparing two numbers costs next to nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

from mcpx.errors import RequestTimeoutError
from mcpx.wire import JsonId, TrafficEvent

ProgressCallback = Callable[[float, "float | None", "str | None"], Any]
#: seconds by which a deadline counts as passed when the timer fires (see `Deadlines._expire_due`)
TIMER_SLACK = 0.002


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
            if self.total_deadline is None:  # the usual request, on every call: `due_at()` in short
                return self.deadline
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


class Deadlines:
    """One loop timer for the deadlines of every request in `pending` (the peer's map, read, not owned).

    It is set for the earliest deadline; when it fires it fails what is due and is set for the next. A
    deadline moved later (progress) needs nothing: the timer, set no later than the old one, finds it.
    """

    __slots__ = ("_at", "_holds", "_pending", "_timer", "loop")

    def __init__(self, pending: dict[JsonId, Pending]) -> None:
        self._pending = pending
        #: the peer's loop, kept (`asyncio.get_running_loop()` is a getpid() system call on Python 3.11)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._at = math.inf
        #: while above zero, pending requests do not time out (someone is waiting on a human)
        self._holds = 0

    def arm(self, pending: Pending) -> None:
        """Start a request's deadlines (afresh), unless they are held."""
        if not self._holds:
            loop = self.loop or asyncio.get_running_loop()
            due = pending.arm(loop.time())
            if due is not None and due < self._at:
                self._wake_at(due, loop)

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """No request times out inside this block; afterwards each one's idle timeout starts afresh."""
        self._holds += 1
        if self._holds == 1:
            now = asyncio.get_running_loop().time()
            for pending in self._pending.values():
                pending.pause(now)
        try:
            yield
        finally:
            self._holds -= 1
            if self._holds == 0:
                for pending in list(self._pending.values()):
                    if not pending.future.done():
                        self.arm(pending)

    def cancel(self) -> None:
        """Stop the timer (the connection is closed)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer, self._at = None, math.inf

    def _wake_at(self, when: float, loop: asyncio.AbstractEventLoop) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._at = loop.call_at(when, self._expire_due), when

    def _expire_due(self) -> None:
        """The timer fired: fail the requests whose deadline has passed, then wait for the next."""
        self._timer, self._at = None, math.inf
        if self._holds:
            return  # nothing expires meanwhile; the release arms every request afresh
        loop = self.loop or asyncio.get_running_loop()
        # a loop may run a timer a little early (uvloop counts in milliseconds): that is not early enough
        # to matter, and re-arming for the same instant would spin until it came
        now = loop.time() + TIMER_SLACK
        earliest = math.inf
        for pending in list(self._pending.values()):
            if pending.expire_if_due(now):
                continue
            due = pending.due_at()
            if due is not None and due < earliest and not pending.future.done():
                earliest = due
        if earliest < math.inf:
            self._wake_at(earliest, loop)
