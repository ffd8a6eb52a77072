"""The connections a check run talks over, and one exchange on them as data.

A `Session` is one server connection with its own traffic log and a label ("modern", "legacy", or the
id of the check that needed a fresh process). `Session.ask()` sends one request and returns a `Reply`
that never raises: the answer, the JSON-RPC error, or what went wrong (no answer, the server died), with
the traffic events of the exchange so a finding can point at them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcpx.check.model import ExchangeRef, Incomplete
from mcpx.errors import McpxError, RequestTimeoutError, RpcError
from mcpx.protocol.client import Client
from mcpx.protocol.peer import Peer, ProgressCallback
from mcpx.wire import (
    ErrorResponse,
    JsonId,
    Malformed,
    Notification,
    Request,
    Response,
    TrafficEvent,
    TrafficLog,
)
from mcpx.wire.waiting import within

#: seconds a new process may take to give its first answer, whatever --timeout says
START_GRACE = 10.0


@dataclass(slots=True)
class Reply:
    """One request and what came of it."""

    session: Session
    id: JsonId
    method: str
    request: TrafficEvent | None = None
    response: TrafficEvent | None = None
    result: Any = None
    error: ErrorResponse | None = None
    #: no answer in time, the server ended, the answer could not be read
    failure: McpxError | None = None

    @property
    def ok(self) -> bool:
        return self.response is not None and self.error is None and self.failure is None

    @property
    def local(self) -> bool:
        """No answer, and not because the server ended: mcpx's own timeout or an HTTP failure (a check
        that meets one cannot judge its rule)."""
        if self.response is not None or self.failure is None:
            return False
        return self.session.alive or bool(self.session.extra.get("silent"))

    @property
    def ref(self) -> ExchangeRef:
        seqs = [e.seq for e in (self.request, self.response) if e is not None]
        return ExchangeRef(self.session.label, tuple(seqs))

    def describe(self) -> str:
        """What came back, in a few words."""
        if self.error is not None:
            return f"error {self.error.code} ({self.error.message})"
        if self.failure is not None:
            return self.failure.message.split("\n")[0]
        if self.response is not None:
            return "a result"
        return "nothing"


@dataclass(slots=True)
class Session:
    """One connection to the server: its client (or bare peer), its log, its era."""

    label: str
    log: TrafficLog
    peer: Peer
    client: Client | None = None
    #: "legacy" or "modern" once opened; "" for a bare, unopened process
    era: str = ""
    version: str = ""
    timeout: float = 10.0
    extra: dict[str, Any] = field(default_factory=dict)
    #: replies that met mcpx's own error (no answer in time, an HTTP failure), newest last; the runner
    #: reads those of each check
    local_failures: list[Reply] = field(default_factory=list)

    @property
    def alive(self) -> bool:
        return not self.peer.closed.is_set()

    def wrap(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        """Dress params as this session's era does (the modern `_meta` envelope); bare sessions don't."""
        if self.client is None or not self.era:
            return params
        return self.client.era.wrap(method, params)

    async def ask(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        envelope: bool = True,
        request_id: JsonId | None = None,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        cancel_on_timeout: bool = True,
        deadline: float | None = None,
    ) -> Reply:
        """Send one request. `timeout` is the peer's (progress resets it); `deadline` caps the whole wait
        whatever progress comes (the request is then cancelled)."""
        if self.extra.get("silent"):
            raise Incomplete(
                f"the {self.label} connection stopped answering earlier ({self.extra['silent']})"
            )
        rid = request_id if request_id is not None else self.peer.next_id()
        if timeout is None and not self.extra.get("answered"):
            # a process's first answer includes its start-up, which may take longer than one answer
            timeout = max(self.timeout, START_GRACE)
        sent = self.wrap(method, params) if envelope else params
        mark = len(self.log)
        reply = Reply(self, rid, method)
        asking = asyncio.ensure_future(
            self.peer.request_event(
                method,
                sent,
                timeout=timeout if timeout is not None else self.timeout,
                request_id=rid,
                on_progress=on_progress,
                cancel_on_timeout=cancel_on_timeout,
            )
        )
        try:
            event = await within(asyncio.shield(asking), deadline) if deadline else await asking
            reply.result = event.message.result  # type: ignore[union-attr]
        except RpcError:
            pass  # the error event is found below
        except McpxError as exc:
            reply.failure = exc
        except asyncio.TimeoutError:
            asking.cancel()  # the peer tells the server (notifications/cancelled)
            with contextlib.suppress(BaseException):
                await asking
            reply.failure = RequestTimeoutError(
                f"{method} got no answer within {deadline:g} s; mcpx cancelled it", method=method
            )
        reply.request = self.find_request(rid, mark)
        if reply.request is not None and reply.request.response_seq is not None:
            reply.response = self.log[reply.request.response_seq]
            if isinstance(reply.response.message, ErrorResponse):
                reply.error = reply.response.message
        elif reply.request is not None and reply.failure is None and reply.result is None:
            # over HTTP a server may refuse the POST with an error whose id is null (it names no request,
            # but the HTTP exchange ties it to this one): that error is the answer
            for event in self.incoming(reply.request.seq):
                if isinstance(event.message, ErrorResponse) and event.message.id is None:
                    reply.response, reply.error = event, event.message
                    break
        if reply.response is not None:
            self.extra["answered"] = True
        if reply.local:
            self.local_failures.append(reply)
        timed_out = isinstance(reply.failure, RequestTimeoutError) and deadline is None
        if reply.response is None and timed_out and self.alive:
            await self._diagnose(reply)
        return reply

    async def _diagnose(self, reply: Reply) -> None:
        """A request went unanswered: does the server answer anything at all? One harmless request tells.
        A server that stopped answering is stopped (mcpx starts it again for the next check) and the
        reason kept, so the silence is diagnosed once instead of charged to every later request."""
        if self.extra.get("diagnosing") or self.extra.get("own") or not self.era:
            return
        method = "server/discover" if self.era == "modern" else "ping"
        self.extra["diagnosing"] = True
        try:
            alive = await self.ask(method, timeout=min(self.timeout, 5.0))
        finally:
            self.extra.pop("diagnosing", None)
        if alive.response is not None:
            return
        self.extra["silent"] = f"{reply.method} got no answer, nor did {method} after it"
        self.log.info(f"mcpx check: the server stopped answering ({self.extra['silent']})", "process")
        with contextlib.suppress(McpxError, OSError):
            await self.peer.close()

    async def send_raw(self, text: str) -> TrafficEvent:
        return await self.peer.send_raw(text)

    async def notify(self, method: str, params: Any = None) -> None:
        await self.peer.notify(method, params)

    def find_request(self, rid: JsonId, since: int = 0) -> TrafficEvent | None:
        for event in self.log.since(since):
            message = event.message
            if (
                event.direction == "out"
                and isinstance(message, Request)
                and message.id == rid
                and type(message.id) is type(rid)
            ):
                return event
        return None

    def incoming(self, since: int, until: int | None = None) -> list[TrafficEvent]:
        """Frames the server wrote on the protocol channel (not stderr, not facts) in [since, until)."""
        events = self.log.since(since) if until is None else self.log.since(since)[: until - since]
        return [e for e in events if e.direction == "in" and e.channel != "stderr" and e.message is not None]

    def ref(self, *events: TrafficEvent | None) -> ExchangeRef:
        return ExchangeRef(self.label, tuple(sorted({e.seq for e in events if e is not None})))

    def mark(self) -> int:
        return len(self.log)

    async def settle(self, seconds: float) -> None:
        """Give the server `seconds` to say anything more (a late or unwanted frame)."""
        await asyncio.sleep(seconds)

    async def close(self) -> None:
        with contextlib.suppress(McpxError, OSError):
            if self.client is not None:
                await self.client.close()
            else:
                await self.peer.close()


def raw_object(event: TrafficEvent) -> Any:
    """The frame as parsed JSON (to see members the typed view drops, such as an explicit `"id": null`)."""
    try:
        return json.loads(event.raw)
    except ValueError:
        return None


def is_reply(event: TrafficEvent) -> bool:
    return isinstance(event.message, (Response, ErrorResponse))


def is_junk(event: TrafficEvent) -> bool:
    """A frame on stdout that is not a JSON-RPC message."""
    return event.direction == "in" and event.channel == "stdio" and isinstance(event.message, Malformed)


def notifications(session: Session, method: str, since: int = 0) -> list[TrafficEvent]:
    return [
        e
        for e in session.log.since(since)
        if e.direction == "in" and isinstance(e.message, Notification) and e.message.method == method
    ]


Predicate = Callable[[TrafficEvent], bool]
