"""stdio from the server's side: read requests from our own stdin, answer on our own stdout.

Used by mcpx's servers (the demo server, the mock built from a recording) with the same peer the client
uses. Every frame goes through the traffic log like on the client side.

stdin and stdout may be anything a shell can give: a pipe (what MCP clients use), a socket, a regular file
(`mcpx mock REC < requests.jsonl > out.txt`), `/dev/null` or a terminal. asyncio's pipe transports take
only pipes and sockets (uvloop aborts on a file, and switching a terminal to non-blocking would change it
for every process sharing it), so each end uses the transport that fits its kind: the pipe transports for
pipes and sockets; for the rest, plain blocking writes (a file or /dev/null never blocks; a terminal blocks
briefly at most) and a reader thread feeding the same stream reader.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
import threading
from collections.abc import AsyncIterator
from typing import BinaryIO, Protocol

from mcpx.errors import ConnectError
from mcpx.transports.stdio import LINE_LIMIT
from mcpx.wire import Message, TrafficEvent, TrafficLog


class _Writer(Protocol):
    def write(self, data: bytes) -> None: ...
    def is_closing(self) -> bool: ...
    def close(self) -> None: ...


def _streams(fd: int) -> bool:
    """Whether asyncio's pipe transports take this fd (a pipe or a socket; not a file, tty or device)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _BlockingWriter:
    """Writes straight to a file, /dev/null or a terminal, whole frames at a time."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._closed = False

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._fd, view) :]
            except BlockingIOError:  # someone else left the terminal non-blocking: wait until it drains
                import select

                select.select([], [self._fd], [], 1.0)
            except OSError:  # the reader went away (EPIPE, EIO on a closed terminal): the client has gone
                self._closed = True
                return

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True


def _read_in_thread(fd: int, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> None:
    """Feed `reader` from a file or a terminal (no pipe transport takes them) until end of file."""

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                import select

                select.select([fd], [], [], 1.0)
                continue
            except OSError:
                chunk = b""
            try:
                if not chunk:
                    loop.call_soon_threadsafe(reader.feed_eof)
                    return
                loop.call_soon_threadsafe(reader.feed_data, chunk)
            except RuntimeError:  # the loop has closed: nobody is listening any more
                return

    threading.Thread(target=pump, name="mcpx-stdin", daemon=True).start()


class StdioServerTransport:
    name = "stdio"

    def __init__(
        self, *, traffic: TrafficLog, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
    ) -> None:
        self.traffic = traffic
        self._stdin = stdin or sys.stdin.buffer
        self._stdout = stdout or sys.stdout.buffer
        self._reader: asyncio.StreamReader | None = None
        self._writer: _Writer | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        reader = self._reader = asyncio.StreamReader(limit=LINE_LIMIT)
        if _streams(self._stdin.fileno()):
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), self._stdin)
        else:
            _read_in_thread(self._stdin.fileno(), reader, loop)
        if _streams(self._stdout.fileno()):
            transport, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, self._stdout)
            self._writer = transport
        else:
            self._writer = _BlockingWriter(self._stdout.fileno())

    def describe(self) -> dict[str, object]:
        return {"transport": "stdio", "role": "server"}

    async def send(self, text: str, message: Message) -> TrafficEvent:
        if self._writer is None or self._writer.is_closing():
            raise ConnectError("the client has gone")
        event = self.traffic.sent(text, message, "stdio")
        self._writer.write(text.encode("utf-8") + b"\n")
        return event

    async def __aiter__(self) -> AsyncIterator[TrafficEvent]:
        assert self._reader is not None, "start() first"
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                if exc.partial.strip():
                    yield self.traffic.received(exc.partial, "stdio", {"unterminated": True})
                return
            except asyncio.LimitOverrunError:
                await self._reader.read(LINE_LIMIT)
                continue
            line = line.rstrip(b"\r\n")
            if line:
                yield self.traffic.received(line, "stdio")

    async def close(self) -> None:
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()

    def ended_error(self, doing: str) -> ConnectError:
        return ConnectError("the client closed the connection" + (f" while {doing}" if doing else ""))
