"""`--misbehave MODE`: the demo server breaks one rule on purpose, so a user can see how a client reports it.

The faults live in a transport wrapped around the real one — the server itself stays correct and never
knows. Each mode imitates a fault met in real servers:

- `garbage`: stray text on stdout (a `print()` at start-up and before every answer), next to valid frames;
- `crash`: the process dies (exit 1, a traceback on stderr) in the middle of a `tools/call`;
- `hang`: it answers the opening request (`initialize` or `server/discover`), then nothing ever again;
- `slow-start`: it reads nothing for a while after starting (like a server loading a model);
- `unknown-ids`: every answer is preceded by a response to an id that was never sent, and `tools/call`
  is answered under the wrong id (so the real call never gets its answer);
- `huge`: every `tools/call` answer is replaced by one very large text result.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from mcpx.transports.base import Transport
from mcpx.wire import ErrorResponse, JsonId, Message, Notification, Request, Response, TrafficEvent, encode
from mcpx.wire.jsonrpc import decode

MODES: dict[str, str] = {
    "garbage": "writes non-JSON text on stdout at start-up and before every answer",
    "crash": "dies (exit code 1) in the middle of a tools/call",
    "hang": "answers the opening request, then never answers again",
    "slow-start": "reads nothing for a few seconds after starting",
    "unknown-ids": "answers with ids that were never sent; tools/call never gets its own answer",
    "huge": "answers every tools/call with a very large text result",
}
SLOW_START_SECONDS = float(os.environ.get("MCPX_DEMO_SLOW_START", "5"))
HUGE_MEGABYTES = float(os.environ.get("MCPX_DEMO_HUGE_MB", "20"))
STRAY_ID_BASE = 900_000


def _say(line: str) -> None:
    sys.stderr.write(f"[mcpx-demo] misbehaving: {line}\n")
    sys.stderr.flush()


def huge_text(megabytes: float) -> str:
    line = "{:08d} the demo server was asked to answer with a huge result; here it is, line after line.\n"
    count = max(1, int(megabytes * 1024 * 1024 / len(line.format(0))))
    return "".join(line.format(i) for i in range(count))


class MisbehavingTransport:
    """Wraps a server transport and bends what crosses it according to `mode`."""

    def __init__(self, inner: Transport, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown misbehaviour {mode!r}")
        self.inner = inner
        self.mode = mode
        self.name = inner.name
        self.traffic = inner.traffic
        self._opened = False
        self._calls: set[JsonId] = set()
        self._strays = 0

    async def start(self) -> None:
        if self.mode == "slow-start":
            _say(f"sleeping {SLOW_START_SECONDS:g} s before reading anything")
            await asyncio.sleep(SLOW_START_SECONDS)
        await self.inner.start()
        if self.mode == "garbage":
            await self._raw("mcpx demo server starting... (a print() that went to stdout)")

    def describe(self) -> dict[str, object]:
        return {**self.inner.describe(), "misbehaving": self.mode}

    async def _raw(self, text: str) -> TrafficEvent:
        return await self.inner.send(text, decode(text.encode("utf-8")).message)

    async def send(self, text: str, message: Message) -> TrafficEvent:
        if isinstance(message, (Response, ErrorResponse)):
            if self.mode == "garbage":
                await self._raw(f"DEBUG answering request {message.id!r}")
            elif self.mode == "unknown-ids":
                self._strays += 1
                stray = Response(STRAY_ID_BASE + self._strays, {"note": "an answer to a request nobody sent"})
                await self.inner.send(encode(stray.to_obj()), stray)
                if isinstance(message, Response) and message.id in self._calls:
                    message = Response(f"not-{message.id}", message.result)
                    text = encode(message.to_obj())
            elif self.mode == "huge" and isinstance(message, Response) and message.id in self._calls:
                message = Response(message.id, self._huge(message.result))
                text = encode(message.to_obj())
        return await self.inner.send(text, message)

    def _huge(self, result: Any) -> Any:
        base = (
            {k: v for k, v in result.items() if k != "structuredContent"} if isinstance(result, dict) else {}
        )
        _say(f"answering with {HUGE_MEGABYTES:g} MB")
        return {**base, "content": [{"type": "text", "text": huge_text(HUGE_MEGABYTES)}], "isError": False}

    async def __aiter__(self) -> AsyncIterator[TrafficEvent]:
        async for event in self.inner:
            message = event.message
            if isinstance(message, Request):
                if self.mode == "hang" and self._opened:
                    _say(f"ignoring {message.method} (id {message.id!r})")
                    continue
                self._opened = True
                if message.method == "tools/call":
                    self._calls.add(message.id)
                    if self.mode == "crash":
                        await self._crash_soon(message)
                        continue
            yield event

    async def _crash_soon(self, request: Request) -> None:
        """Show some life first (progress, when asked for), then die before answering."""
        params = request.params if isinstance(request.params, dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        token = meta.get("progressToken") if meta else None
        if token is not None:
            note = Notification("notifications/progress", {"progressToken": token, "progress": 1, "total": 3})
            await self.inner.send(encode(note.to_obj()), note)
        asyncio.get_running_loop().call_later(0.3, self._crash, params.get("name"))

    @staticmethod
    def _crash(tool: Any) -> None:
        sys.stderr.write(
            "Traceback (most recent call last):\n"
            '  File "mcpx/demo/tools.py", line 1, in call\n'
            f"RuntimeError: the demo server crashed while running {tool!r} (--misbehave crash)\n"
        )
        sys.stderr.flush()
        os._exit(1)

    async def close(self) -> None:
        await self.inner.close()

    def ended_error(self, doing: str) -> Any:
        return self.inner.ended_error(doing)
