"""Reading a recording back into a `TrafficLog`, forgivingly.

Every complete line is kept. A line that is not JSON, or not an event, is skipped and named in
`problems` with its line number; a last line without its newline that does not parse is the mark of a
recording cut off mid-write (mcpx was killed), and is reported as such. Only a file that is not a
recording at all, or one from a newer mcpx, is refused (`RecordingError`, one sentence).

The events go through the log's own append methods with the recorded times, so a response finds its
request and its latency exactly as it did live; the flags recorded with each event replace whatever
re-linking finds.

A recording is read as a stream and indexed, not loaded: the log holds its newest events as objects and
the older ones stay where they are in the file (`ColdEvents.over`: an offset and the links per event),
decoded again when asked for. So a 200 MB recording takes memory for a screenful of events plus 26 bytes
an event, and what the summary counts (requests by method, the opening) is counted as the lines go by.
"""

from __future__ import annotations

import gc
import os
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcpx.record.format import EVENT_UPGRADES, FORMAT_VERSION, MAGIC, RecordingError, check_header
from mcpx.wire.jsonrpc import Decoded, Request, Response, decode_text
from mcpx.wire.spill import ColdEvents
from mcpx.wire.traffic import CHANNELS, DIRECTIONS, TrafficEvent, TrafficLog

#: events of a recording held as objects (the rest are read from the file when asked for). The replay
#: indexes events as they are appended (`Timeline.follow`) and the event lists hold what they have not
#: taken in yet themselves, so this only needs the replay's first screen (`FIRST_EVENTS`, 500) not to be
#: read back from the file: 1,400 held ~2.5 MB more of a 200 MB recording's steady RSS
KEEP_EVENTS = 512
KEEP_BYTES = 16 << 20
#: the file is read in blocks of this size
BLOCK = 1 << 20
#: (line number, offset in the file, the line without its newline, whether it had one)
_Line = tuple[int, int, bytes, bool]


@dataclass(slots=True, frozen=True)
class LineProblem:
    """A line of the file that could not be used, and why (line numbers start at 1)."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(slots=True)
class Recording:
    """A recording read back: its header, its events as a traffic log, and what was wrong with it."""

    path: Path
    header: dict[str, Any]
    log: TrafficLog
    problems: list[LineProblem] = field(default_factory=list)
    #: the file ended in the middle of a line (the recording process was killed while writing)
    truncated: bool = False
    #: events whose raw text or facts had secrets masked when they were written
    redacted: set[int] = field(default_factory=set)
    #: client requests by method, and the events that opened the session, counted as events are read
    requests: dict[str, int] = field(default_factory=dict)
    _initialized: int | None = None
    _discovered: int | None = None

    @property
    def events(self) -> list[TrafficEvent]:
        return list(self.log)

    @property
    def target(self) -> str:
        target = self.header.get("target")
        label = target.get("label") if isinstance(target, dict) else None
        return label if isinstance(label, str) else "?"

    @property
    def duration(self) -> float:
        return self.log.elapsed(self.log[len(self.log) - 1]) if len(self.log) else 0.0

    @property
    def era(self) -> str:
        """legacy or modern, as the recorded session opened (the header's wish when it never did)."""
        opened = self.opening()
        if opened is not None:
            return "legacy" if opened.method == "initialize" else "modern"
        era = self.header.get("era")
        return era if isinstance(era, str) else "auto"

    @property
    def protocol_version(self) -> str | None:
        """The revision the recorded session spoke, when the recording shows it."""
        response = self.opening()
        if response is None or not isinstance(response.message, Response):
            return None
        result = response.message.result
        if response.method == "initialize":
            version = result.get("protocolVersion") if isinstance(result, dict) else None
            return version if isinstance(version, str) else None
        request = self.log.find_request(response)
        message = request.message if request is not None else None
        params = message.params if isinstance(message, Request) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
        return version if isinstance(version, str) else None

    def opening(self) -> TrafficEvent | None:
        """The successful response that opened the session (the first `initialize`, else the last
        `server/discover`), as far as the recording has been read."""
        seq = self._initialized if self._initialized is not None else self._discovered
        return None if seq is None else self.log[seq]

    def note(self, event: TrafficEvent) -> None:
        """Count an event just read (what `summary` and `opening` report)."""
        message = event.message
        if event.direction == "out":
            if isinstance(message, Request):
                self.requests[message.method] = self.requests.get(message.method, 0) + 1
        elif (
            event.direction == "in"
            and event.method in ("initialize", "server/discover")
            and isinstance(message, Response)
            and event.request_seq is not None
        ):
            if event.method == "server/discover":
                self._discovered = event.seq
            elif self._initialized is None:
                self._initialized = event.seq

    def summary(self) -> dict[str, Any]:
        """Counts for a one-screen description of the recording."""
        methods = dict(self.requests)
        return {
            "path": str(self.path),
            "target": self.target,
            "started": self.header.get("started"),
            "mcpx_version": self.header.get("mcpx_version"),
            "era": self.era,
            "protocol_version": self.protocol_version,
            "secrets": self.header.get("secrets"),
            "events": len(self.log),
            "duration_s": round(self.duration, 3),
            "requests": methods,
            "problems": [str(p) for p in self.problems],
            "truncated": self.truncated,
        }


def read_recording(path: str | os.PathLike[str]) -> Recording:
    """Read a whole recording (raises `RecordingError` only when it is not one, or is too new)."""
    loader = open_recording(path)
    loader.load()
    return loader.recording


def parse_recording(data: bytes, where: str = "the recording") -> Recording:
    """Parse a recording's bytes (see `read_recording`)."""
    loader = RecordingLoader(_lines(data), where)
    loader.load()
    return loader.recording


def open_recording(
    path: str | os.PathLike[str], *, follow: Callable[[], bool] | None = None
) -> RecordingLoader:
    """Read the header now and the events as asked (`loader.load(500)`): a first screen at once.

    `follow` reads a recording that is still being written (a live proxied session): while it returns
    True, reaching the end of the file leaves the loader `waiting` instead of `done`."""
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise RecordingError(f"the recording {where!r} does not exist") from None
    except IsADirectoryError:
        raise RecordingError(f"{where!r} is a directory, not a recording") from None
    except OSError as exc:
        raise RecordingError(f"cannot read the recording {where!r}: {exc.strerror or exc}") from None
    if os.path.isdir(path):
        os.close(fd)
        raise RecordingError(f"{where!r} is a directory, not a recording")
    try:
        return RecordingLoader(_file_lines(fd, where, follow), where, fd)
    except BaseException:
        os.close(fd)
        raise


class RecordingLoader:
    """Reads a recording's events into its log in batches; the header is checked on construction.

    With `fd` (the file the lines come from) the log keeps only its newest events as objects and reads
    older ones back from the file; without, they spill to a temporary file like any long log's."""

    def __init__(self, lines: Iterator[_Line | None], where: str, fd: int | None = None) -> None:
        self._lines = lines
        first = next(self._lines, None)
        if first is None:
            raise RecordingError(f"{where} is empty: not an mcpx recording")
        try:
            header_raw = orjson.loads(first[2])
        except orjson.JSONDecodeError:
            raise RecordingError(
                f"{where} is not an mcpx recording (its first line is not a recording header)"
            ) from None
        header = check_header(header_raw, where)
        self._version: int = header_raw[MAGIC]
        started_wall = header.get("started_wall")
        self._clock = _Clock(started_wall if isinstance(started_wall, (int, float)) else 0.0)
        # older formats are upgraded line by line: their events spill as rewritten lines instead
        self._cold: ColdEvents | None = None
        if fd is not None:
            # the file stays open while something may read it: the cold events, else this loader
            if self._version == FORMAT_VERSION:
                self._cold = ColdEvents.over(fd)
            weakref.finalize(self._cold if self._cold is not None else self, os.close, fd)
        log = TrafficLog(
            clock=self._clock.mono,
            wall=self._clock.now,
            keep=KEEP_EVENTS,
            keep_bytes=KEEP_BYTES,
            cold=self._cold,
        )
        self.recording = Recording(Path(where), header, log)
        self.done = False
        #: the last `load()` stopped at the end of a recording still being written (`open_recording`'s
        #: follow): more may come, ask again later
        self.waiting = False
        self._previous: int | None = None  # the seq of the last event read, when the line before was good

    def load(self, count: int | None = None) -> bool:
        """Add up to `count` more events (all with None); True while there are more to read."""
        # a long recording makes millions of small objects and no cyclic garbage: the cyclic collector
        # would run hundreds of times for nothing (it more than doubles the time)
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._load(count)
        finally:
            if enabled:
                gc.enable()
        return not self.done

    def _load(self, count: int | None) -> None:
        recording, log, clock, cold = self.recording, self.recording.log, self._clock, self._cold
        problems = recording.problems
        loaded = 0
        self.waiting = False
        for item in self._lines:
            if item is None:  # the live end of a recording still being written
                self.waiting = True
                return
            number, offset, line, complete = item
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                if not complete:
                    recording.truncated = True
                    problems.append(
                        LineProblem(
                            number,
                            f"cut off after {len(line)} bytes (the recording process was probably killed "
                            f"while writing it); the {len(log)} events before it are complete",
                        )
                    )
                else:
                    problems.append(LineProblem(number, f"not valid JSON ({exc}); skipped"))
                self._previous = None
                continue
            for old in range(self._version, FORMAT_VERSION):
                obj = EVENT_UPGRADES[old](obj)
            problem = _add(log, clock, obj, recording)
            if problem is not None:
                problems.append(LineProblem(number, problem))
                self._previous = None
                continue
            if cold is not None:
                cold.origin(len(log) - 1, offset, len(line))
            recording.note(log[len(log) - 1])
            seq = obj.get("seq")
            previous = self._previous
            if previous is not None and isinstance(seq, int) and seq != previous + 1:
                problems.append(
                    LineProblem(
                        number, f"event {seq} follows event {previous}: the events between are missing"
                    )
                )
            self._previous = seq if isinstance(seq, int) else None
            loaded += 1
            if count is not None and loaded >= count:
                return
        self.done = True


def _lines(data: bytes) -> Iterator[_Line]:
    """(line number, offset, line without its newline, whether it had one); blank lines are skipped."""
    start = 0
    number = 0
    size = len(data)
    while start < size:
        number += 1
        end = data.find(b"\n", start)
        if end < 0:
            line = data[start:]
            if line.strip():
                yield number, start, line, False
            return
        line = data[start:end]
        if line.strip():
            yield number, start, line, True
        start = end + 1


def _file_lines(fd: int, where: str, follow: Callable[[], bool] | None = None) -> Iterator[_Line | None]:
    """`_lines` of a file read in blocks (a line may span blocks): memory for a block and a line.

    The blocks are read into one buffer, reused (a 200 MB recording read into a new 1 MB block each
    time mapped and faulted in 200 MB of fresh pages, or left holes in the heap); it grows for a line
    longer than itself. With `follow` (a recording still being written: `follow()` says whether its
    writer still runs), the end of the file is not the end: None is yielded there ("nothing more yet"),
    a last line without its newline is held back as one still being written, and the file is read on
    from where it stopped."""
    number = 0
    position = 0  # file offset of the buffer's first byte
    buffer = bytearray(BLOCK)
    held = 0  # bytes at the buffer's start that are the beginning of a line not read whole yet
    while True:
        if held == len(buffer):  # a line longer than the buffer: twice the room, not a copy per block
            buffer.extend(bytes(len(buffer)))
        try:
            with memoryview(buffer) as view:
                size = held + os.preadv(fd, [view[held:]], position + held)
        except OSError as exc:
            raise RecordingError(f"cannot read the recording {where!r}: {exc.strerror or exc}") from None
        if size == held:
            if follow is not None and follow():
                yield None
                continue
            break
        start = 0
        while True:
            end = buffer.find(b"\n", start, size)
            if end < 0:
                break
            number += 1
            line = bytes(buffer[start:end])
            if line.strip():
                yield number, position + start, line, True
            start = end + 1
        held = size - start
        buffer[:held] = buffer[start:size]
        position += start
    pending = bytes(buffer[:held])
    if pending.strip():
        yield number + 1, position, pending, False


class _Clock:
    """Hands the log the recorded time of the event being added."""

    __slots__ = ("t", "wall")

    def __init__(self, started_wall: float) -> None:
        self.t = 0.0
        self.wall = started_wall

    def mono(self) -> float:
        return self.t

    def now(self) -> float:
        return self.wall


def _decode(raw: str) -> Decoded:
    """The live decoder's verdict on a recorded frame (the same rules: big integers exact, NaN, junk)."""
    return decode_text(raw)


def _add(log: TrafficLog, clock: _Clock, obj: Any, recording: Recording) -> str | None:
    if not isinstance(obj, dict):
        return "not an event object; skipped"
    raw = obj.get("raw")
    direction = obj.get("direction")
    channel = obj.get("channel")
    if not isinstance(raw, str) or direction not in DIRECTIONS or channel not in CHANNELS:
        return "an event without raw text, a direction or a channel; skipped"
    t = obj.get("t")
    wall = obj.get("wall")
    clock.t = float(t) if isinstance(t, (int, float)) else clock.t
    clock.wall = float(wall) if isinstance(wall, (int, float)) else clock.wall
    facts = obj.get("facts")
    facts = facts if isinstance(facts, dict) else {}
    flags = obj.get("flags")
    if direction == "info":
        event = log.info(raw, channel, **facts)  # (a request-ended fact links to its request again)
    elif channel == "stderr":
        event = log.stderr(raw)
    elif direction == "in":
        event = log.received_decoded(_decode(raw), channel, facts)
    else:
        event = log.sent(raw, _decode(raw).message, channel, facts)
    if flags or event.flags:
        event.flags[:] = [str(f) for f in flags] if isinstance(flags, list) else []
    if obj.get("redacted"):
        recording.redacted.add(event.seq)
    return None
