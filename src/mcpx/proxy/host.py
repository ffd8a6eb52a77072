"""The host's end of a stdio proxy: our own stdin (the host's frames) and stdout (the server's, relayed).

Frames are cut at newlines and handed on as the exact bytes the host wrote (a trailing `\\r` included),
from the event loop's read callback itself: no reader task to wake per frame, which is most of what a
relay costs. A relay to a stdio server takes each chunk whole first (`forward`), so the server reads the
host's bytes exactly (blank lines and line endings included) and before the proxy logs them; the server's
chunks come back the same way (`write_raw`). stdin and stdout may be pipes (what hosts use) or anything
else a shell gives (a file, a terminal): the same split as `transports.stdio_server` makes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable, Mapping
from typing import BinaryIO, Protocol

from mcpx.transports.stdio_server import _BlockingWriter, _streams, _Writer
from mcpx.wire import Message

#: one frame of the host's, with the request headers to pass on with it (HTTP hosts; None over stdio)
FrameSink = Callable[[bytes, "Mapping[str, str] | None"], None]
#: the frames of one read of the host's, in order (a relay that forwarded the read whole logs them at once)
FramesSink = Callable[[list[bytes]], None]


class HostEnd(Protocol):
    """What the relay needs of the host's end: stdio (`HostSide`) or HTTP (`listen.HttpHost`)."""

    #: set when the host has gone for good (stdio: our stdin ended)
    gone: asyncio.Event

    async def start(self, on_frame: FrameSink) -> None: ...

    def write(self, frame: bytes, message: Message | None = None) -> bool:
        """Hand the host one frame of the server's (`message`: its decode, when known); False once the
        host no longer reads."""
        ...

    def close_output(self) -> None: ...


class _HostReader(asyncio.Protocol):
    """Cuts the host's bytes into frames (without their `\\n`) and hands each to `on_frame`."""

    def __init__(
        self,
        on_frame: FrameSink,
        on_eof: Callable[[], None],
        on_chunk: Callable[[bytes], None] | None,
        on_frames: FramesSink | None = None,
    ) -> None:
        self._on_frame = on_frame
        self._on_eof = on_eof
        self._on_chunk = on_chunk
        self._on_frames = on_frames
        self._partial: list[bytes] = []

    def data_received(self, data: bytes) -> None:
        if self._on_chunk is not None:  # relayed whole, before it is framed and logged
            self._on_chunk(data)
        start = 0
        end = data.find(b"\n")
        if end >= 0 and self._partial:
            self._partial.append(data[:end])
            line = b"".join(self._partial)
            self._partial.clear()
            self._frame(line)
            start = end + 1
            end = data.find(b"\n", start)
        if self._on_frames is not None and 0 <= end < len(data) - 1:
            # a read of many frames (a pipelining host): handed on in one list, blank lines left out (a
            # read of one frame, a host waiting for each answer, goes the usual way below)
            lines = []
            while end >= 0:
                line = data[start:end]
                if line.strip():
                    lines.append(line)
                start = end + 1
                end = data.find(b"\n", start)
            if lines:
                self._on_frames(lines)
        while end >= 0:
            self._frame(data[start:end])
            start = end + 1
            end = data.find(b"\n", start)
        if start < len(data):
            self._partial.append(data[start:])

    def _frame(self, line: bytes) -> None:
        if line.strip():  # blank lines are no frames (a host may send them between messages)
            self._on_frame(line, None)

    def eof_received(self) -> bool | None:
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._partial:  # the host's last frame had no newline: it still goes on
            line = b"".join(self._partial)
            self._partial.clear()
            self._frame(line)
        self._on_eof()


class HostSide:
    """Our stdin and stdout as the host sees them."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._writer: _Writer | None = None
        self._read_transport: asyncio.ReadTransport | None = None
        self._pending: list[bytes] = []
        self._scheduled = False
        #: set when the host has closed our stdin (or its end of our stdout)
        self.gone = asyncio.Event()
        #: told True when the host stops keeping up with what we write, False when it has caught up
        self.on_full: Callable[[bool], None] | None = None
        #: takes each chunk the host writes, whole, before it is framed (set before `start`)
        self.forward: Callable[[bytes], None] | None = None
        #: takes the frames of each read in one list instead of one by one (set before `start`)
        self.frames: FramesSink | None = None

    async def start(self, on_frame: FrameSink) -> None:
        loop = asyncio.get_running_loop()
        protocol = _HostReader(on_frame, self.gone.set, self.forward, self.frames)
        if _streams(self._stdin.fileno()):
            self._read_transport, _ = await loop.connect_read_pipe(lambda: protocol, self._stdin)
        else:
            _read_in_thread(self._stdin.fileno(), protocol, loop)
        if _streams(self._stdout.fileno()):
            transport, _ = await loop.connect_write_pipe(
                lambda: _WriteWatch(self.gone.set, self._full), self._stdout
            )
            self._writer = transport
        else:
            self._writer = _BlockingWriter(self._stdout.fileno())

    def hold_input(self, held: bool) -> None:
        """Stop reading what the host writes (the server is not keeping up), or go on."""
        transport = self._read_transport
        if transport is None or transport.is_closing():
            return
        if held:
            transport.pause_reading()
        else:
            transport.resume_reading()

    def _full(self, full: bool) -> None:
        if self.on_full is not None:
            self.on_full(full)

    def write(self, frame: bytes, message: Message | None = None) -> bool:
        """Write one frame (with its newline); False once the host no longer reads.

        The frames of one loop step go out in one write, after the step's callbacks have run: a read of
        the server's that held many frames costs one system call, not one per frame (a pipelining host
        otherwise makes the proxy spend most of its time in writes)."""
        writer = self._writer
        if writer is None or writer.is_closing():
            self.gone.set()
            return False
        self._pending.append(frame)
        self._pending.append(b"\n")
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)
        return True

    def write_raw(self, data: bytes) -> bool:
        """Write a chunk of the server's as it came, at once (the relay between two stdio ends); False
        once the host no longer reads. A read of the server's that held many frames is one write."""
        writer = self._writer
        if writer is None or writer.is_closing():
            self.gone.set()
            return False
        if self._pending:
            self._flush()
        writer.write(data)
        return True

    def _flush(self) -> None:
        self._scheduled = False
        pending, self._pending = self._pending, []
        writer = self._writer
        if writer is not None and not writer.is_closing() and pending:
            writer.write(b"".join(pending))

    def close_output(self) -> None:
        """End our stdout: the host sees the server's output end, as when a server dies."""
        self._flush()
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()
        if self._read_transport is not None:
            with contextlib.suppress(Exception):
                self._read_transport.close()


class _WriteWatch(asyncio.BaseProtocol):
    """Notices the host closing its end of our stdout (the read end of the pipe), and the host not
    keeping up (the write buffer over its high-water mark, then back under the low one)."""

    def __init__(self, on_lost: Callable[[], None], on_full: Callable[[bool], None]) -> None:
        self._on_lost = on_lost
        self._on_full = on_full

    def connection_lost(self, exc: Exception | None) -> None:
        self._on_lost()

    def pause_writing(self) -> None:
        self._on_full(True)

    def resume_writing(self) -> None:
        self._on_full(False)


def _read_in_thread(fd: int, protocol: _HostReader, loop: asyncio.AbstractEventLoop) -> None:
    """Feed the reader from a file or a terminal (no pipe transport takes them) until end of file."""

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            try:
                if not chunk:
                    loop.call_soon_threadsafe(protocol.connection_lost, None)
                    return
                loop.call_soon_threadsafe(protocol.data_received, chunk)
            except RuntimeError:  # the loop has closed
                return

    threading.Thread(target=pump, name="mcpx-proxy-stdin", daemon=True).start()
