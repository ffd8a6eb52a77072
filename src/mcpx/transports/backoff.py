"""How often mcpx goes back to a server whose event stream ended: backoff, jitter and caps.

A server controls when its streams end and what `retry:` it asks for. One that answers every resume with a
new event id, `retry: 0` and a close (or accepts the GET stream and drops it at once) would otherwise be
reconnected to in a hot loop. So every resume of a request's stream and every reopening of the GET stream:

- waits `base · 2^attempt`, where `base` is the server's `retry` with a floor of `RETRY_FLOOR_MS` under it
  (`DEFAULT_RETRY_MS` when it names none) and the wait is capped at `MAX_DELAY_MS`; jitter adds up to half
  again (only upwards, so the server's `retry` is always honoured), so clients dropped together come back
  apart;
- counts as an attempt, whatever it brought: new event ids do not reset the count (they cost a server
  nothing to invent). Only a stream that stayed open `HEALTHY_SECONDS` or more starts the count again;
- is capped: `MAX_ATTEMPTS` in a row per request stream and per GET stream, and `SESSION_ATTEMPTS` per
  connection in any `SESSION_WINDOW` seconds, whatever their mix.

Giving up is one sentence that says what the server did (`describe`).
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

#: the shortest wait before going back, whatever `retry` the server asks for (ms)
RETRY_FLOOR_MS = 250
#: the wait when the server names no `retry` (ms)
DEFAULT_RETRY_MS = 1000
#: the longest wait, however many attempts came before or however long a `retry` the server asks for (ms)
MAX_DELAY_MS = 30_000
#: attempts in a row to resume one request's stream, or to reopen the GET stream
MAX_ATTEMPTS = 5
#: a stream open at least this long was healthy: its end starts the count of attempts again
HEALTHY_SECONDS = 10.0
#: resumes and reconnects of one connection in any `SESSION_WINDOW` seconds
SESSION_ATTEMPTS = 30
SESSION_WINDOW = 600.0


def delay_ms(attempt: int, server_retry_ms: int | None, rng: Callable[[], float] = random.random) -> int:
    """The wait before attempt number `attempt` (0 for the first) given the server's last `retry`."""
    base = DEFAULT_RETRY_MS if server_retry_ms is None else server_retry_ms
    base = min(MAX_DELAY_MS, max(RETRY_FLOOR_MS, base))
    grown = min(MAX_DELAY_MS, base * 2 ** min(attempt, 16))
    return int(min(MAX_DELAY_MS, grown * (1 + rng() / 2)))


@dataclass(slots=True)
class Drop:
    """What one stream did before it ended."""

    seconds: float
    frames: int
    new_id: bool
    retry_ms: int | None


def describe(drops: list[Drop]) -> str:
    """The server's behaviour over the last attempts, in words: "each stream closed within a second, with a
    new event id, asking for retry: 0 ms"."""
    if not drops:
        return "it ended every stream"
    parts = []
    quick = max(d.seconds for d in drops)
    parts.append("closed within a second" if quick < 1 else f"closed within {quick:.0f} s")
    if all(d.new_id for d in drops):
        parts.append("with a new event id")
    elif not any(d.new_id for d in drops):
        parts.append("with nothing new to resume from")
    if not any(d.frames for d in drops):
        parts.append("carrying no message")
    retries = {d.retry_ms for d in drops if d.retry_ms is not None}
    if retries:
        parts.append("asking for retry: " + "/".join(f"{r} ms" for r in sorted(retries)))
    return "each stream " + ", ".join(parts)


class Attempts:
    """Consecutive attempts on one stream (a request's, or the GET stream), and the session's budget."""

    def __init__(self, budget: SessionBudget) -> None:
        self.budget = budget
        self.drops: list[Drop] = []

    def ended(self, drop: Drop) -> None:
        if drop.seconds >= HEALTHY_SECONDS:
            self.drops.clear()  # a healthy stream that ended: start counting again
        self.drops.append(drop)

    @property
    def count(self) -> int:
        return (
            len(self.drops) - 1
            if self.drops and self.drops[0].seconds >= HEALTHY_SECONDS
            else len(self.drops)
        )

    def next_delay_ms(self, server_retry_ms: int | None) -> int:
        return delay_ms(max(0, self.count - 1), server_retry_ms)

    def refusal(self) -> str | None:
        """Why no further attempt may be made (None: go on); takes one from the session's budget if not."""
        if self.count > MAX_ATTEMPTS:
            return f"mcpx stopped after {MAX_ATTEMPTS} attempts in a row"
        if not self.budget.take():
            return (
                f"mcpx stopped: {SESSION_ATTEMPTS} reconnects and resumes in "
                f"{SESSION_WINDOW / 60:.0f} minutes is the most one connection makes"
            )
        return None


class SessionBudget:
    """Resumes and reconnects of one connection, counted over a sliding window."""

    def __init__(
        self,
        limit: int = SESSION_ATTEMPTS,
        window: float = SESSION_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self._times: deque[float] = deque()

    def take(self) -> bool:
        now = self.clock()
        while self._times and now - self._times[0] >= self.window:
            self._times.popleft()
        if len(self._times) >= self.limit:
            return False
        self._times.append(now)
        return True
