"""The recorder: a tap on the traffic log that appends every event to a file as it happens.

It subscribes to the `TrafficLog` (with replay, so events logged before it was attached are kept too) and
writes each event as one line on an unbuffered descriptor opened for appending. Inside an event loop the
lines of one loop step are written together, with one `write(2)`, as soon as the step's ready callbacks
have run — before mcpx waits on anything again, and after the frame that was just logged has gone to the
server, so the writing overlaps the server's work instead of delaying it (this keeps recording under
10 % of the echo-throughput benchmark). Nothing is held longer than that and nothing waits in a
user-space buffer: a `kill -9` of mcpx leaves a file readable up to its last complete line, missing at
most the events of the loop step it was killed in. Outside a loop each event is written at once.
Secrets are masked as events are written unless the user asked for them.

A recorder that cannot write (a full disk) stops, keeps the error in `error` and tells `on_error` once;
it never breaks the connection it watches.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from mcpx.__about__ import __version__
from mcpx.record.format import SUFFIX, dumps, event_obj, header_obj
from mcpx.transports.spec import ServerSpec
from mcpx.wire.event_line import plain_lines
from mcpx.wire.private_files import private_dir
from mcpx.wire.secret_policy import SecretPolicy
from mcpx.wire.traffic import TrafficEvent, TrafficLog

ErrorCallback = Callable[[OSError], None]
#: events held for one loop step at most; a step that logs more (a flood of stderr) writes as it goes
MAX_PENDING = 512


class Recorder:
    """Appends a header and then every event of `log` to `path` (see `start_recording`)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        header: dict[str, Any],
        *,
        started_mono: float,
        redactor: SecretPolicy | None,
        on_error: ErrorCallback | None = None,
    ) -> None:
        self.path = Path(path)
        self.redactor = redactor
        self.on_error = on_error
        self.started_mono = started_mono
        self.error: OSError | None = None
        self.events = 0
        self._unsubscribe: Callable[[], None] | None = None
        self._pending: list[TrafficEvent] = []
        self._scheduled = False
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        # masked or not, a recording holds a session's traffic: its owner's alone (0600), even when the
        # file existed with a wider mode
        try:
            self._fd: int | None = os.open(self.path, flags, 0o600)
            if self.path.is_file():
                os.fchmod(self._fd, 0o600)
        except OSError as exc:
            from mcpx.errors import UsageError

            why = exc.strerror or str(exc)
            raise UsageError(f"cannot write the recording {str(self.path)!r}: {why}") from None
        self._write(dumps(header))

    # -- the tap -------------------------------------------------------------------------------------
    def attach(self, log: TrafficLog) -> Recorder:
        """Subscribe to `log`, writing the events it already holds first."""
        self._unsubscribe = log.subscribe(self, replay=True, batch=self.write_batch)
        return self

    def __call__(self, event: TrafficEvent) -> None:
        if self._fd is None:
            return
        self._pending.append(event)
        if self._scheduled:
            if len(self._pending) >= MAX_PENDING:
                self.flush()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self._scheduled = True
        loop.call_soon(self._hop, loop)

    def _hop(self, loop: asyncio.AbstractEventLoop) -> None:
        # scheduled once more, so the callbacks made ready by this step (the caller resuming with a
        # response, and sending its next request) run first: then one write covers them all
        loop.call_soon(self.flush)

    def flush(self) -> None:
        """Write the events logged since the last write (`close()` does this too)."""
        self._scheduled = False
        events, self._pending = self._pending, []
        self.write_events(events)

    def write_events(self, events: list[TrafficEvent]) -> None:
        """Write these events now, with one `write(2)`."""
        if not events or self._fd is None:
            return
        self._write(b"".join([self._line(event) for event in events]))
        self.events += len(events)

    def write_batch(self, events: list[TrafficEvent]) -> None:
        """The frames of one read of a relay's (`TrafficLog.frames`), written now with what is pending, in
        one write: the relay passed their bytes on before logging them, so nothing waits on this."""
        if self._fd is None:
            return
        if self._pending:
            events = self._pending + events
            self._pending = []
        redactor = self.redactor
        if redactor is not None and not redactor.untouched("\n".join([e.raw for e in events])):
            self.write_events(events)  # something to mask in a frame: event by event
            return
        # no frame has anything to mask: lines from a template, an event with facts (masked) as usual
        self._write(plain_lines(events, self.started_mono, self._line))
        self.events += len(events)

    def _line(self, event: TrafficEvent) -> bytes:
        raw, facts = event.raw, event.facts
        redacted = False
        if self.redactor is not None:
            raw = self.redactor.text(raw)
            if facts:
                facts = self.redactor.facts(facts)
            redacted = raw != event.raw or facts is not event.facts
        return dumps(event_obj(event, self.started_mono, raw, facts, redacted))

    def _write(self, data: bytes) -> None:
        fd = self._fd
        if fd is None:
            return
        try:
            written = os.write(fd, data)
            if written < len(data):  # rare: a signal or a full disk interrupted the write
                view = memoryview(data)[written:]
                while view:
                    view = view[os.write(fd, view) :]
        except OSError as exc:
            self.error = exc
            self.close()
            if self.on_error is not None:
                self.on_error(exc)

    # -- ending --------------------------------------------------------------------------------------
    def close(self) -> None:
        """Write what is pending, stop listening and close the file (safe to call twice)."""
        self.flush()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> Recorder:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def target_info(spec: ServerSpec, redactor: SecretPolicy | None) -> dict[str, Any]:
    """What the header says about the server: how it was started or reached (secrets masked)."""

    def text(value: str) -> str:
        return redactor.text(value) if redactor is not None else value

    info: dict[str, Any] = {"label": text(spec.label)}
    if spec.command is not None:
        info["command"] = [text(word) for word in spec.command]
    if spec.url is not None:
        info["url"] = redactor.url(spec.url) if redactor is not None else spec.url
    if spec.cwd:
        info["cwd"] = text(spec.cwd)
    if spec.env:
        info["env"] = redactor.env(spec.env) if redactor is not None else dict(spec.env)
    if spec.headers:
        headers = dict(spec.headers)
        info["headers"] = redactor.headers(headers, request=True) if redactor is not None else headers
    if spec.name:
        info["name"] = spec.name
    if spec.source:
        info["source"] = spec.source
    return info


def _header(
    log: TrafficLog, spec: ServerSpec, era: str, protocol_version: str | None, redactor: SecretPolicy | None
) -> dict[str, Any]:
    transport = spec.transport
    if transport == "auto":
        transport = "stdio" if spec.command is not None else "auto"
    return header_obj(
        mcpx_version=__version__,
        started_wall=log.started_wall,
        target=target_info(spec, redactor),
        transport=transport,
        era=era,
        protocol_version=protocol_version,
        secrets="masked" if redactor is not None else "included",
    )


def _policy(log: TrafficLog, spec: ServerSpec, record_secrets: bool) -> SecretPolicy | None:
    """The log's own secret policy (what the live views mask), taught this server's secrets."""
    if record_secrets:
        return None
    spec.teach(log.secrets)
    return log.secrets


def start_recording(
    path: str | os.PathLike[str],
    log: TrafficLog,
    spec: ServerSpec,
    *,
    era: str = "auto",
    protocol_version: str | None = None,
    record_secrets: bool = False,
    on_error: ErrorCallback | None = None,
) -> Recorder:
    """Write a recording of `log` to `path`, from the events it already holds to the end of the session.

    `era` is the era asked for (`auto` until the connection chose; the reader finds the chosen one in
    the traffic). With `record_secrets`, nothing is masked. The file is readable by its owner only (0600).
    """
    redactor = _policy(log, spec, record_secrets)
    recorder = Recorder(
        path,
        _header(log, spec, era, protocol_version, redactor),
        started_mono=log.started_mono,
        redactor=redactor,
        on_error=on_error,
    )
    return recorder.attach(log)


def write_recording(
    path: str | os.PathLike[str],
    log: TrafficLog,
    spec: ServerSpec,
    *,
    count: int | None = None,
    era: str = "auto",
    record_secrets: bool = False,
) -> int:
    """Write the first `count` events of `log` (all it holds by default) as a finished recording, masked
    as `start_recording` masks; returns the number of events written. Safe to run in a thread while the
    log grows: it reads only the events that were there when it was called."""
    count = len(log) if count is None else min(count, len(log))
    redactor = _policy(log, spec, record_secrets)
    recorder = Recorder(
        path,
        _header(log, spec, era, None, redactor),
        started_mono=log.started_mono,
        redactor=redactor,
    )
    try:
        for start in range(0, count, MAX_PENDING):
            batch = [log[seq] for seq in range(start, min(start + MAX_PENDING, count))]
            recorder.write_events(batch)
    finally:
        recorder.close()
    if recorder.error is not None:
        from mcpx.errors import UsageError

        why = recorder.error.strerror or str(recorder.error)
        raise UsageError(f"cannot write the recording {str(recorder.path)!r}: {why}")
    return recorder.events


def recording_path(directory: str | os.PathLike[str], label: str, when: float | None = None) -> Path:
    """A new file name in `directory` (made if missing) for a session with `label`."""
    folder = private_dir(directory)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when if when is not None else time.time()))
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", os.path.basename(label.split(" ")[-1] if label else "server"))
    slug = slug.strip("-.")[:40] or "server"
    path = folder / f"{stamp}-{slug}{SUFFIX}"
    counter = 1
    while path.exists():
        counter += 1
        path = folder / f"{stamp}-{slug}-{counter}{SUFFIX}"
    return path
