"""`Timeline`: what a recorded session looked like at any moment, indexed as its events are read.

The TUI's replay shows the session "as of" one event: the catalogue the client had listed by then, the
handshake if it had happened, the calls made so far. The timeline scans the log once, in step with the
loader (`scan()` takes whatever the log gained since the last call; `follow()` takes each event as the log
appends it, so the reader need not hold a batch of events in memory until the next scan), and answers
each question with a binary search, so moving through a 100,000-event recording costs microseconds per
step.

A catalogue listing counts from the response that completed it (pages followed through `nextCursor`);
before its first listing a catalogue is unknown (None), which is not the same as empty.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcpx.record.session import LIST_KEYS, PLUMBING
from mcpx.wire.jsonrpc import Request, Response
from mcpx.wire.traffic import SEQ_TYPECODE, TrafficEvent, TrafficLog

OPENING = ("initialize", "server/discover")
_NOT_CALLS = frozenset(LIST_KEYS) | frozenset(PLUMBING)


@dataclass(frozen=True, slots=True)
class Listing:
    """One complete listing of a catalogue: the response that completed it and every item of its pages."""

    seq: int
    items: tuple[Any, ...]


class Timeline:
    """An index over a recorded log: listings, openings, exits and client calls by sequence number."""

    def __init__(self, log: TrafficLog) -> None:
        self.log = log
        self.scanned = 0
        #: catalogue key (tools, resources, resourceTemplates, prompts) → complete listings in order
        self.listings: dict[str, list[Listing]] = {key: [] for key in LIST_KEYS.values()}
        self._listing_seqs: dict[str, list[int]] = {key: [] for key in LIST_KEYS.values()}
        self._pages: dict[str, list[Any]] = {}
        #: seqs of the successful responses that opened a session (several after reconnects)
        self.openings: list[int] = []
        #: seqs of `exited` process facts
        self.exits: list[int] = []
        #: seqs of the client's requests that did work (calls, reads, gets…; not lists nor plumbing); an
        #: array: a 200 MB recording has 80,000 of them (a list of ints held 2.4 MB, this 0.3)
        self.calls: array[int] = array(SEQ_TYPECODE)

    def scan(self) -> int:
        """Index the events the log gained since the last scan; returns how many there were."""
        log, start = self.log, self.scanned
        end = len(log)
        for seq in range(start, end):
            self._index(log[seq])
        self.scanned = end
        return end - start

    def follow(self) -> Callable[[], None]:
        """Scan, then index each event as the log appends it (its links to a request are made by then);
        returns the unsubscribe. `scan()` afterwards finds nothing left to do."""
        self.scan()

        def appended(event: TrafficEvent) -> None:
            if event.seq == self.scanned:
                self._index(event)
                self.scanned += 1

        return self.log.subscribe(appended)

    def _index(self, event: TrafficEvent) -> None:
        message = event.message
        if event.direction == "out":
            if type(message) is Request and message.method not in _NOT_CALLS:
                self.calls.append(event.seq)
        elif event.direction == "in":
            if type(message) is Response and event.request_seq is not None:
                method = event.method
                if method in LIST_KEYS:
                    self._listed(event, LIST_KEYS[method], message.result)
                elif method in OPENING:
                    self.openings.append(event.seq)
        elif event.channel == "process" and event.facts.get("event") == "exited":
            self.exits.append(event.seq)

    def _listed(self, event: TrafficEvent, key: str, result: Any) -> None:
        if not isinstance(result, dict):
            return
        request = self.log.find_request(event)
        params = request.message.params if request is not None and type(request.message) is Request else None
        cursor = params.get("cursor") if isinstance(params, dict) else None
        if cursor is None:
            self._pages[key] = []
        items = result.get(key)
        self._pages.setdefault(key, []).extend(items if isinstance(items, list) else [])
        if result.get("nextCursor") is None:
            self.listings[key].append(Listing(event.seq, tuple(self._pages.pop(key))))
            self._listing_seqs[key].append(event.seq)

    # -- as of a moment ------------------------------------------------------------------------------
    def listing_at(self, key: str, seq: int) -> Listing | None:
        """The last complete listing of catalogue `key` at or before event `seq` (None: not listed yet)."""
        index = bisect_right(self._listing_seqs[key], seq)
        return self.listings[key][index - 1] if index else None

    def opening_at(self, seq: int) -> TrafficEvent | None:
        """The response that opened the session in force at event `seq` (None: not open yet)."""
        index = bisect_right(self.openings, seq)
        return self.log[self.openings[index - 1]] if index else None

    def exit_at(self, seq: int) -> TrafficEvent | None:
        """The server's exit at or before `seq` that came after the session in force opened."""
        index = bisect_right(self.exits, seq)
        if not index:
            return None
        exited = self.exits[index - 1]
        opened = self.opening_at(seq)
        return self.log[exited] if opened is None or exited > opened.seq else None

    def calls_until(self, seq: int) -> array[int]:
        """The client's working requests sent at or before `seq`, oldest first."""
        return self.calls[: bisect_right(self.calls, seq)]
