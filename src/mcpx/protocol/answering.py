"""`Answering`: the other side's requests to a `Peer` — a handler per method, the tasks answering them, and
their withdrawal.

Every incoming request is answered in a task of its own (a handler may wait on a person for minutes
while other traffic goes on); `ping` is answered out of the box and a method nobody handles gets -32601.
When the other side withdraws a request (`notifications/cancelled`) its task is cancelled and no answer
is sent. The answer goes out through the `send` callable the peer passes in; nothing here reads frames.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcpx.errors import McpxError, RpcError
from mcpx.wire import ErrorResponse, JsonId, Request, Response, TrafficEvent
from mcpx.wire.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND


@dataclass(slots=True)
class IncomingRequest:
    """What a request handler gets besides the params: which request, and the event that carried it."""

    id: JsonId
    method: str
    event: TrafficEvent


RequestHandler = Callable[[Any, IncomingRequest], Awaitable[Any]]
#: sends one reply (the peer's transport, encoded)
SendReply = Callable[[Response | ErrorResponse], Awaitable[Any]]


async def _answer_ping(params: Any, request: IncomingRequest) -> dict[str, Any]:
    return {}


class Answering:
    """Handlers for the other side's requests, and the tasks running them."""

    def __init__(self, send: SendReply) -> None:
        self._send = send
        self.handlers: dict[str, RequestHandler] = {"ping": _answer_ping}
        #: answers every method without a handler of its own (a mock server); None: -32601
        self.fallback: RequestHandler | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        #: requests being answered, by id (so the other side's notifications/cancelled reaches them)
        self._by_id: dict[JsonId, asyncio.Task[None]] = {}

    def start(self, message: Request, event: TrafficEvent) -> None:
        """Answer `message` in a task of its own."""
        task = asyncio.create_task(self._answer(message, event))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        rid = message.id
        if rid is not None and rid not in self._by_id:
            self._by_id[rid] = task
            task.add_done_callback(lambda _: self._by_id.pop(rid, None))

    def withdraw(self, rid: object) -> None:
        """The other side cancelled request `rid`: stop answering it (and send no answer)."""
        task = self._by_id.get(rid) if isinstance(rid, (int, str)) else None
        if task is not None:
            task.cancel()

    def cancel_all(self) -> None:
        for task in list(self.tasks):
            task.cancel()

    async def _answer(self, message: Request, event: TrafficEvent) -> None:
        handler = self.handlers.get(message.method, self.fallback)
        reply: Response | ErrorResponse
        if handler is None:
            reply = ErrorResponse(message.id, METHOD_NOT_FOUND, f"Method not found: {message.method}")
        else:
            try:
                result = await handler(message.params, IncomingRequest(message.id, message.method, event))
                reply = Response(message.id, result)
            except RpcError as exc:
                reply = ErrorResponse(message.id, exc.error_code, exc.error_message, exc.data)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                reply = ErrorResponse(message.id, INTERNAL_ERROR, f"mcpx failed to answer: {exc}")
        # even when our reading has ended (stdin closed after a piped request), the answer can still go out
        with contextlib.suppress(McpxError, OSError, RuntimeError):
            await self._send(reply)
