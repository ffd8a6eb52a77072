"""Where a traffic log keeps the events that left memory: lines in a file, links in arrays.

A long session must not grow without bound (50,000 calls held ≈ 200 MB as objects), and nothing may be
dropped. So the log keeps its newest events as objects and hands the older ones to `ColdEvents`, which
writes each as one line of the recording format (`mcpx.wire.event_line`) to an unlinked temporary file
(mode 0600: it holds the traffic unmasked, and it disappears with the process) and remembers, per event,
where its line is and how it is linked — the request or response it pairs with, its latency and method.
Those links cost 26 bytes an event in `array`s, not an object each; everything else is read back from
the file when asked for, decoded with the live decoder, through a small cache of recent reads.

A recording being replayed is already such a file: `ColdEvents.over(fd)` reads its lines where they are
(the reader tells it each event's `origin`), so a 200 MB recording is indexed, not loaded. Events that
have no origin (appended later) go to a temporary file of their own; offsets into it are stored negated.

Links can change after an event left memory (a long request answered late; a problem found later):
`answered` and `flagged` patch the arrays and a small dict, so a read-back event is the event as it is
now, not as it was when it was spilled. Reads may come from another thread (saving a recording in a
worker thread while the session goes on): the arrays and the cache are touched under one lock.
"""

from __future__ import annotations

import math
import os
import tempfile
import threading
import weakref
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator

from mcpx.wire.event_line import dumps, event_from_line, event_obj
from mcpx.wire.traffic_event import SEQ_TYPECODE, TrafficEvent

#: decoded events kept for repeated reads (a few screens of rows, the request of a response being shown);
#: a decoded event of a big recording is ~3-8 KB, and one read again costs ~20 µs
CACHE_EVENTS = 256
#: a bulk read (iterating, `since`) reads the file in pieces of about this size
READ_CHUNK = 4 << 20


class ColdEvents:
    """The events of a log that are no longer held as objects, seq 0 … len-1, readable by seq."""

    def __init__(self, started_mono: float, backing: int | None = None) -> None:
        self.started_mono = started_mono
        self._backing = backing  # a recording's descriptor, read where its lines are; never written
        self._own: int | None = None  # the temporary file for lines written here (a descriptor)
        self._end = 0  # where the next line goes in `_own`
        # per event: where its line is (≥ 0 in the backing file, -1 - offset in our own) and its length;
        # the offsets and method codes start narrow and are widened once when one does not fit (`_wider`)
        self._offsets = array("i")
        self._lengths = array("I")
        # per event, its links (-1 and NaN for none) and its method (0 for none, else 1 + index)
        self._request = array(SEQ_TYPECODE)
        self._response = array(SEQ_TYPECODE)
        self._latency = array("d")
        self._method = array("H")
        self._methods: list[str] = []
        self._method_codes: dict[str, int] = {}
        self._late_flags: dict[int, list[str]] = {}
        self._cache: OrderedDict[int, TrafficEvent] = OrderedDict()
        self._lock = threading.Lock()
        self._closer: Callable[[], object] | None = None

    @classmethod
    def over(cls, fd: int, started_mono: float = 0.0) -> ColdEvents:
        """Cold events whose lines are already in a recording open on `fd` (see `origin`)."""
        return cls(started_mono, backing=fd)

    def __len__(self) -> int:
        return len(self._request)

    @property
    def file_bytes(self) -> int:
        """How much this log has written to its own temporary file."""
        return self._end

    # -- filling ------------------------------------------------------------------------------------
    def origin(self, seq: int, offset: int, length: int) -> None:
        """Event `seq` is the line at `offset` (`length` bytes, no newline) of the backing recording."""
        with self._lock:
            if seq == len(self._offsets):
                try:
                    self._offsets.append(offset)
                except OverflowError:  # past 2 GB
                    self._offsets = _wider(self._offsets, "q", offset)
                self._lengths.append(length)

    def put(self, events: list[TrafficEvent]) -> None:
        """Take the next events (in seq order, from `len(self)` on): their lines are written if they
        have no origin, their links noted. The caller lets go of the objects afterwards."""
        lines: list[bytes] = []
        pending = 0
        with self._lock:
            for event in events:
                if event.seq >= len(self._offsets):
                    line = dumps(event_obj(event, self.started_mono, event.raw, event.facts, False))
                    offset = -1 - (self._end + pending)
                    try:
                        self._offsets.append(offset)
                    except OverflowError:
                        self._offsets = _wider(self._offsets, "q", offset)
                    pending += len(line)
                    self._lengths.append(len(line) - 1)
                    lines.append(line)
                self._request.append(-1 if event.request_seq is None else event.request_seq)
                self._response.append(-1 if event.response_seq is None else event.response_seq)
                self._latency.append(math.nan if event.latency is None else event.latency)
                code = self._code(event.method)
                try:
                    self._method.append(code)
                except OverflowError:  # over 65,535 method names (a hostile peer)
                    self._method = _wider(self._method, "I", code)
            if lines:
                self._write(b"".join(lines))

    def _code(self, method: str | None) -> int:
        if method is None:
            return 0
        code = self._method_codes.get(method)
        if code is None:
            self._methods.append(method)
            code = self._method_codes[method] = len(self._methods)
        return code

    def _write(self, data: bytes) -> None:
        if self._own is None:
            # 0600 (mkstemp's mode) and unlinked at once: the traffic in it is not masked, and the file
            # goes with the process however it ends
            fd, name = tempfile.mkstemp(prefix="mcpx-traffic-")
            os.unlink(name)
            self._own = fd
            self._closer = weakref.finalize(self, os.close, fd)
        fd, view = self._own, memoryview(data)
        while view:  # pwrite may write less (a signal): write the rest
            written = os.pwrite(fd, view, self._end)
            self._end += written
            view = view[written:]

    # -- changes after the event left memory ----------------------------------------------------------
    def answered(self, seq: int, response_seq: int) -> None:
        with self._lock:
            self._response[seq] = response_seq
            self._cache.pop(seq, None)

    def flagged(self, seq: int, problem: str) -> None:
        with self._lock:
            self._late_flags.setdefault(seq, []).append(problem)
            self._cache.pop(seq, None)

    # -- reading ------------------------------------------------------------------------------------
    def get(self, seq: int) -> TrafficEvent:
        with self._lock:
            event = self._cache.get(seq)
            if event is not None:
                self._cache.move_to_end(seq)
                return event
            if not 0 <= seq < len(self._request):
                raise IndexError(seq)
            offset, length = self._offsets[seq], self._lengths[seq]
        event = self._decode(seq, self._read(offset, length))
        with self._lock:
            self._cache[seq] = event
            if len(self._cache) > CACHE_EVENTS:
                self._cache.popitem(last=False)
        return event

    def many(self, start: int, stop: int) -> Iterator[TrafficEvent]:
        """Events start … stop-1, read in large pieces (for iterating; the cache is left alone)."""
        seq, stop = max(0, start), min(stop, len(self))
        while seq < stop:
            batch = range(seq, min(stop, seq + 2048))
            with self._lock:
                spans = [(self._offsets[s], self._lengths[s]) for s in batch]
                cached = {s: self._cache[s] for s in batch if s in self._cache}
            run = 0
            while run < len(spans):
                # a run of lines in the same file, in file order, read with one pread
                first = spans[run][0]
                low = _position(first)
                high = low + spans[run][1]
                end = run + 1
                while end < len(spans):
                    offset, length = spans[end]
                    position = _position(offset)
                    if (offset < 0) != (first < 0) or position < high or position + length - low > READ_CHUNK:
                        break
                    high = position + length
                    end += 1
                block = self._read(first, high - low)
                for index in range(run, end):
                    number = seq + index
                    hit = cached.get(number)
                    if hit is not None:
                        yield hit
                        continue
                    offset, length = spans[index]
                    at = _position(offset) - low
                    yield self._decode(number, block[at : at + length])
                run = end
            seq = batch.stop

    def _read(self, offset: int, length: int) -> bytes:
        if offset < 0:
            assert self._own is not None
            return os.pread(self._own, length, -1 - offset)
        assert self._backing is not None
        return os.pread(self._backing, length, offset)

    def _decode(self, seq: int, line: bytes) -> TrafficEvent:
        event = event_from_line(line, seq, self.started_mono)
        with self._lock:
            request, response = self._request[seq], self._response[seq]
            latency, method = self._latency[seq], self._method[seq]
            late = self._late_flags.get(seq)
        event.request_seq = None if request < 0 else request
        event.response_seq = None if response < 0 else response
        event.latency = None if math.isnan(latency) else latency
        event.method = self._methods[method - 1] if method else None
        if late:
            event.flags.extend(late)
        return event

    def close(self) -> None:
        """Close the temporary file (the backing recording belongs to the caller)."""
        self._own = None
        if self._closer is not None:
            self._closer()


def _wider(values: array[int], typecode: str, value: int) -> array[int]:
    """`values` copied into an array of a wider `typecode`, with `value` appended."""
    wide = array(typecode, values)
    wide.append(value)
    return wide


def _position(offset: int) -> int:
    """Where a stored offset points in its file (own-file offsets are stored as -1 - offset)."""
    return -1 - offset if offset < 0 else offset
