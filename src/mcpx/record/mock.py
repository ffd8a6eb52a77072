"""A mock MCP server that answers from a recording, on mcpx's own peer and stdio server transport.

An incoming request is matched to a recorded one by method and params, ids and `_meta` ignored (the
recorded request's `_meta` envelope is another client's); the recorded response is sent back with the new
id. What the server sent while the recorded request was in flight goes out first — notifications (with
a progress token rewritten to the new request's), and in the legacy era its own requests to the client,
whose answers are awaited and set aside — and the notifications recorded after the response (up to the
client's next message) follow it. A method asked more often than recorded gets its last answer again.

The opening is answered in the recording's era: `initialize` from the recorded handshake (whatever the
client offers), `server/discover` from the recorded one; the other era's opening gets the error a server
of the recorded era gives (-32601, or -32022 naming the recorded versions), so clients that probe find
the right era. A request with no recorded counterpart gets a JSON-RPC error that says so, except the
few every server answers with an empty result (`logging/setLevel`, `resources/(un)subscribe`), which get
that: clients send them unasked (the official inspector sets a log level as soon as it connects).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcpx.errors import McpxError, RpcError
from mcpx.protocol.peer import IncomingRequest, Peer
from mcpx.record.reader import Recording
from mcpx.record.session import OPENING
from mcpx.transports.base import Transport
from mcpx.wire.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, ErrorResponse, Notification, Request, Response
from mcpx.wire.traffic import TrafficEvent, TrafficLog

NO_MATCH = -32602
#: requests every server answers with an empty result: answered so even when the recording lacks them
ACKNOWLEDGED = ("logging/setLevel", "resources/subscribe", "resources/unsubscribe")
UNSUPPORTED_VERSION = -32022
#: methods a client may send to a server (answered from the recording when it has them)
CLIENT_METHODS = (
    "initialize",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/cancel",
)


def canonical(method: str, params: Any, drop: tuple[str, ...] = ()) -> bytes:
    """A request's identity for matching: params without `_meta` (and `drop`), keys sorted; a key whose
    value is null or `{}` counts as absent (`"arguments": {}` is no arguments)."""
    if isinstance(params, dict):
        params = {
            k: v for k, v in params.items() if k != "_meta" and k not in drop and v is not None and v != {}
        }
    if params in (None, {}):
        params = None
    return method.encode("utf-8") + b" " + orjson.dumps(params, option=orjson.OPT_SORT_KEYS, default=str)


@dataclass(slots=True)
class Reply:
    """One recorded response and what the server sent around it."""

    response: TrafficEvent
    during: list[TrafficEvent] = field(default_factory=list)
    after: list[TrafficEvent] = field(default_factory=list)
    progress_token: Any = None


@dataclass(slots=True)
class _Entry:
    replies: list[Reply] = field(default_factory=list)
    served: int = 0

    def next(self) -> Reply:
        reply = self.replies[min(self.served, len(self.replies) - 1)]
        self.served += 1
        return reply


class MockTable:
    """Recorded client requests → what answered them, looked up by `canonical()` keys."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self.era = recording.era
        self.exact: dict[bytes, _Entry] = {}
        self.loose: dict[bytes, _Entry] = {}  # without the modern era's inputResponses
        self.by_method: dict[str, list[Any]] = {}
        self.opening: Reply | None = None
        self._build()

    def _build(self) -> None:
        log = self.recording.log
        events = list(log)
        opening = self.recording.opening()
        for event in events:
            message = event.message
            if event.direction != "out" or not isinstance(message, Request):
                continue
            response = log.find_response(event)
            if response is None:
                continue
            reply = Reply(response, progress_token=_progress_token(message.params))
            reply.during = [e for e in events[event.seq + 1 : response.seq] if _from_server(e)]
            for index in range(response.seq + 1, len(events)):  # up to the client's next message
                later = events[index]
                if later.direction == "out" and later.message is not None:
                    break
                if later.direction == "in" and isinstance(later.message, Notification):
                    reply.after.append(later)
            if message.method in OPENING:
                if response is opening:
                    self.opening = reply
                continue
            self.exact.setdefault(canonical(message.method, message.params), _Entry()).replies.append(reply)
            loose = canonical(message.method, message.params, ("inputResponses",))
            self.loose.setdefault(loose, _Entry()).replies.append(reply)
            self.by_method.setdefault(message.method, []).append(message.params)

    @property
    def methods(self) -> set[str]:
        return set(self.by_method)

    def find(self, method: str, params: Any) -> Reply | None:
        entry = self.exact.get(canonical(method, params))
        if entry is None:
            entry = self.loose.get(canonical(method, params, ("inputResponses",)))
        return entry.next() if entry is not None else None


def _from_server(event: TrafficEvent) -> bool:
    return event.direction == "in" and isinstance(event.message, (Notification, Request))


def _progress_token(params: Any) -> Any:
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get("progressToken") if isinstance(meta, dict) else None


class MockServer:
    """Serve `recording` over `transport` until the client goes away."""

    def __init__(
        self, recording: Recording, transport: Transport, *, ask_timeout: float | None = 60.0
    ) -> None:
        self.table = MockTable(recording)
        self.peer = Peer(transport, timeout=ask_timeout)
        self.unmatched: list[tuple[str, Any]] = []
        #: requests answered with {} because the recording had no answer for them
        self.acknowledged: list[str] = []
        self._tasks: set[asyncio.Future[None]] = set()
        for method in sorted(self.table.methods | set(CLIENT_METHODS)):
            self.peer.on_request(method, self._handler(method))

    @property
    def traffic(self) -> TrafficLog:
        return self.peer.traffic

    def _handler(self, method: str) -> Callable[[Any, IncomingRequest], Any]:
        async def handle(params: Any, request: IncomingRequest) -> Any:
            return await self.answer(method, params, request)

        return handle

    async def answer(self, method: str, params: Any, request: IncomingRequest) -> Any:
        reply = self._opening(method) if method in OPENING else self.table.find(method, params)
        if reply is None:
            if method in ACKNOWLEDGED:
                self.acknowledged.append(method)
                return {}
            self.unmatched.append((method, params))
            raise self._no_match(method, params)
        await self._during(reply, _progress_token(params))
        message = reply.response.message
        if reply.after:
            # the peer writes the response as soon as this returns, without yielding to the loop: what
            # is scheduled now goes out after it
            asyncio.get_running_loop().call_soon(self._send_after, reply.after)
        if isinstance(message, Response):
            return message.result
        if isinstance(message, ErrorResponse):
            raise RpcError(method, message.code, message.message, message.data)
        raise RpcError(method, INTERNAL_ERROR, "mcpx mock: the recorded answer could not be read")

    def _opening(self, method: str) -> Reply | None:
        opening = self.table.opening
        recorded = opening.response.method if opening is not None else None
        if opening is not None and recorded == method:
            return opening
        if method == "initialize" and recorded == "server/discover":
            versions = _versions(opening)
            raise RpcError(
                method,
                UNSUPPORTED_VERSION,
                f"mcpx mock: this recording speaks {', '.join(versions) or 'a modern revision'}, "
                "which has no initialize handshake",
                {"supported": versions},
            )
        raise RpcError(
            method,
            METHOD_NOT_FOUND,
            f"Method not found: {method} (mcpx mock: the recording opened with {recorded or 'nothing'})",
        )

    def _no_match(self, method: str, params: Any) -> RpcError:
        recorded = self.table.by_method.get(method)
        if not recorded:
            return RpcError(
                method, METHOD_NOT_FOUND, f"mcpx mock: the recording has no {method} request to answer from"
            )
        shown = [p.get("name") or p.get("uri") for p in recorded if isinstance(p, dict)]
        names = sorted({str(s) for s in shown if s})
        hint = f" (recorded: {', '.join(names[:10])})" if names else ""
        return RpcError(
            method,
            NO_MATCH,
            f"mcpx mock: no recorded {method} request has these params{hint}",
            {"method": method, "params": params, "recorded": recorded[:20]},
        )

    async def _during(self, reply: Reply, token: Any) -> None:
        for event in reply.during:
            message = event.message
            if isinstance(message, Notification):
                params = message.params
                if message.method == "notifications/progress" and isinstance(params, dict):
                    if token is None:
                        continue
                    if params.get("progressToken") == reply.progress_token:
                        params = {**params, "progressToken": token}
                await self._notify(message.method, params)
            elif isinstance(message, Request) and message.method != "ping":
                with contextlib.suppress(McpxError):
                    await self.peer.request(message.method, message.params)

    def _send_after(self, events: list[TrafficEvent]) -> None:
        async def send() -> None:
            for event in events:
                if isinstance(event.message, Notification):
                    await self._notify(event.message.method, event.message.params)

        task = asyncio.ensure_future(send())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _notify(self, method: str, params: Any) -> None:
        with contextlib.suppress(McpxError, OSError):
            await self.peer.notify(method, params)

    async def serve(self) -> None:
        await self.peer.start()
        try:
            await self.peer.closed.wait()
        finally:
            await self.peer.close()


def _versions(opening: Reply | None) -> list[str]:
    result = getattr(opening.response.message, "result", None) if opening is not None else None
    supported = result.get("supportedVersions") if isinstance(result, dict) else None
    return [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []
