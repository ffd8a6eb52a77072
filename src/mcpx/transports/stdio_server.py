"""stdio from the server's side: read requests from our own stdin, answer on our own stdout.

Used by mcpx's servers (the demo server, the mock built from a recording) with the same peer the client
uses. Every frame goes through the traffic log like on the client side.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import BinaryIO

from mcpx.errors import ConnectError
from mcpx.transports.stdio import LINE_LIMIT
from mcpx.wire import Message, TrafficEvent, TrafficLog


class StdioServerTransport:
    name = "stdio"

    def __init__(
        self, *, traffic: TrafficLog, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
    ) -> None:
        self.traffic = traffic
        self._stdin = stdin or sys.stdin.buffer
        self._stdout = stdout or sys.stdout.buffer
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.WriteTransport | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        reader = self._reader = asyncio.StreamReader(limit=LINE_LIMIT)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), self._stdin)
        transport, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, self._stdout)
        self._writer = transport

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
