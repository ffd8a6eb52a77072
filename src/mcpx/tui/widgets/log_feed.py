"""`LogFeed`: what an event list has not taken in yet from its `TrafficLog`, handed over in bounded pieces.

A view over the log needs to hear of new events without costing anything while nothing happens (an idle
TUI must not use a core) and without a message per frame under a flood. The feed listens to the log: each
event is noted (an append to a list) and one short timer is armed, at most `PUMP_HZ` times a second, so a
flood costs one pass per tick. The events noted are taken as they are at the pass, never read back from
the log's spill file; when more arrive before a pass than the feed may hold (a big recording read in
batches), they are taken in at once and only the repaint waits.

Events the listener did not see — logged before the view listened — are read from the log, where old
ones are decoded from disk again: when there are many (a view mounted over a 200 MB recording), a piece
at a time (`Pieces`: sized to take about 30 ms, at most `CATCH_UP` events), the next after a short pause,
so keys are handled and the screen repainted between pieces.

The feed knows nothing of rows: the view gives it `take` (add the rows of these events; True if any were),
`shown` (repaint and recount) and `caught_up` (a long catch-up ended), and a widget to run timers on.
`Refiltering` reads the log again the same way, a piece at a time, when a view's filter changes.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from time import monotonic

from textual.widget import Widget

from mcpx.wire.traffic import SEQ_TYPECODE, TrafficEvent, TrafficLog

PUMP_HZ = 20
#: events read back from the log per piece at most: a view mounted over a long log (a 200 MB recording:
#: 160,000 events, most on disk, each decoded again) catches up a piece at a time, keys handled between
CATCH_UP = 2048
#: seconds between two pieces: enough for the app to go idle and repaint, not enough to slow the catch-up
CATCH_UP_PAUSE = 0.002
#: events the listener holds for the next pass at most (more means the view is a long way behind, or
#: taken in at once). Each held event is held whole: a replay reading a 200 MB recording in batches held
#: up to 4,096 between two passes, ~8 MB of its peak RSS
HELD_ARRIVALS = 512
#: what one piece should take: a key that comes meanwhile waits for it (2,048 events of a 200 MB
#: recording took 80-180 ms to decode on a loaded machine), so pieces shrink or grow to about this
PIECE_SECONDS = 0.03
#: the smallest piece (events)
MIN_PIECE = 64


class Pieces:
    """How many events the next piece reads: halved after a piece that took over `PIECE_SECONDS`,
    doubled (up to `CATCH_UP`) after one that took under a quarter of it."""

    def __init__(self) -> None:
        self.size = MIN_PIECE * 4

    def took(self, seconds: float) -> None:
        if seconds > PIECE_SECONDS:
            self.size = max(MIN_PIECE, self.size // 2)
        elif seconds < PIECE_SECONDS / 4:
            self.size = min(CATCH_UP, self.size * 2)


class LogFeed:
    """Feeds one view the events of `log` from `scanned` on, as they come and a piece at a time."""

    def __init__(
        self,
        host: Widget,
        log: TrafficLog,
        *,
        take: Callable[[list[TrafficEvent]], bool],
        shown: Callable[[], None],
        caught_up: Callable[[], object],
        pump: Callable[[], None] | None = None,
    ) -> None:
        """`pump` is what the timers call (the view's own `pump`, which may do more); `self.pump` if None."""
        self._host = host
        self._log = log
        self._take = take
        self._shown = shown
        self._caught_up = caught_up
        self._wake = pump if pump is not None else self.pump
        #: events before this one have been handed to the view
        self.scanned = 0
        #: events the listener saw since the last pass, and whether a pass is due
        self._arrivals: list[TrafficEvent] = []
        self._due = False
        self._last_pump = 0.0
        #: rows were added outside a pass (see `_arrived`): the next pass repaints
        self._grown = False
        self._catching_up = False
        self._pieces = Pieces()
        self._refiltering: Refiltering | None = None
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def catching_up(self) -> bool:
        """The view is reading a long log a piece at a time (it was a long way behind, or a new filter)."""
        return self._catching_up or self._refiltering is not None

    def skip_to(self, seq: int) -> int:
        """Offer nothing before `seq` from now on (a new filter reads those itself, a clear hides them)."""
        self.scanned = seq
        if self._refiltering is not None:
            self._refiltering.cancel()
            self._refiltering = None
        return seq

    def refilter(
        self,
        start: int,
        rows_of: Callable[[Iterable[TrafficEvent]], array[int]],
        done: Callable[[array[int]], None],
    ) -> None:
        """Read the log from `start` to its end again for a new filter: `done(rows_of(…))`, at once over
        a short log, else after the last of the pieces. Later events come through the pump as before."""
        stop = self.skip_to(len(self._log))
        if stop - start <= 2 * CATCH_UP:
            done(rows_of(self._log.between(start, stop)))
            return

        def finished(rows: array[int]) -> None:
            self._refiltering = None
            done(rows)

        self._refiltering = Refiltering(self._host, self._log, start, stop, rows_of=rows_of, done=finished)
        self._refiltering.step()

    @property
    def held(self) -> int:
        """How many events the listener holds for the next pass."""
        return len(self._arrivals)

    def listen(self) -> None:
        """Hear of new events from now on (and take in what is there already)."""
        if self._unsubscribe is None:
            self._unsubscribe = self._log.subscribe(self._arrived)
        self._wake()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _arrived(self, event: TrafficEvent) -> None:
        arrivals = self._arrivals
        arrivals.append(event)
        if len(arrivals) >= HELD_ARRIVALS:
            # many events before a pass could run (a big recording read in batches, a flood): holding
            # them all until then would hold the whole recording as objects
            if arrivals[0].seq == self.scanned:
                # the view is up to date but for these: take them in now (a predicate each), the
                # repaint waits for the pass
                self.scanned = event.seq + 1
                self._arrivals = []
                self._grown = self._take(arrivals) or self._grown
            else:  # the view is catching up on the log: the pieces will read these back from it
                arrivals.clear()
        if not self._due:
            self._due = True
            wait = self._last_pump + 1 / PUMP_HZ - monotonic()
            if wait > 0:
                self._host.set_timer(wait, self._wake, name="event-list-pump")
            else:
                self._host.call_later(self._wake)

    def pump(self) -> None:
        """Hand the view what the log gained since the last pass; `shown` if any rows were added.

        Events the listener handed over are taken as they are, however many (each costs a predicate);
        only those it did not see are read from the log: a piece at a time when there are many."""
        self._due = False
        self._last_pump = monotonic()
        log = self._log
        total = len(log)
        start = self.scanned
        arrivals = self._arrivals
        held = arrivals[0].seq if arrivals else total  # the arrivals are the log from `held` on, in order
        if held > start + CATCH_UP:  # a long way behind: a piece now, the next after what is queued
            stop = start + self._pieces.size
            self.scanned = stop
            self._due = self._catching_up = True
            # after a pause, not at once: the screen repaints (a key's effect shows) between pieces
            self._host.set_timer(CATCH_UP_PAUSE, self._wake, name="event-list-catch-up")
            began = monotonic()
            if self._take(log.between(start, stop)):
                self._shown()
            self._pieces.took(monotonic() - began)
            return
        self._arrivals = []
        grown, self._grown = self._grown, False
        if total <= start:
            if grown:
                self._shown()
            return
        self.scanned = total
        if held > start:
            new = log.between(start, held) + arrivals
        else:  # (some were taken already: the view skipped ahead)
            new = [event for event in arrivals if event.seq >= start]
        if new and new[-1].seq + 1 < total:  # (the listener was not called for the last ones)
            new += log.since(new[-1].seq + 1)
        if self._catching_up:
            self._catching_up = False
            self._caught_up()
        if self._take(new) or grown:
            self._shown()


class Refiltering:
    """A new filter applied over a long log a piece of `CATCH_UP` events at a time, `done` with the rows.

    The view keeps its old rows on screen meanwhile; `cancel` drops the work (a newer filter, a clear)."""

    def __init__(
        self,
        host: Widget,
        log: TrafficLog,
        start: int,
        stop: int,
        *,
        rows_of: Callable[[Iterable[TrafficEvent]], array[int]],
        done: Callable[[array[int]], None],
    ) -> None:
        self._host = host
        self._log = log
        self._next = start
        self.stop = stop
        self._rows_of = rows_of
        self._done = done
        self.rows: array[int] = array(SEQ_TYPECODE)
        self.cancelled = False
        self._pieces = Pieces()

    def step(self) -> None:
        """Filter the next piece; the one after comes after a pause, and `done` after the last."""
        if self.cancelled:
            return
        start, stop = self._next, self.stop
        end = min(stop, start + self._pieces.size)
        began = monotonic()
        # one event at a time: a piece of a 200 MB recording held whole was ~4 MB of the replay's peak
        self.rows.extend(self._rows_of(self._log.iter_between(start, end)))
        self._pieces.took(monotonic() - began)
        self._next = end
        if end < stop:
            self._host.set_timer(CATCH_UP_PAUSE, self.step, name="event-list-refilter")
        else:
            self._done(self.rows)

    def cancel(self) -> None:
        self.cancelled = True
