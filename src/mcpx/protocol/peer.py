"""A symmetric JSON-RPC endpoint over one transport.

The client uses it, and so do the demo and mock servers in the server role. It owns request ids, the
map of pending requests, per-request timeouts (reset by progress), cancellation (which sends
`notifications/cancelled`), progress routing and the dispatch of incoming requests and notifications.
It holds components for the parts that stand alone: `pending.Deadlines` (one timer for every request's
deadlines), `answering.Answering` (the other side's requests) and `racing.send_racing` (a send that lasts
until its answer has streamed in, over HTTP).

What the other side gets wrong — a response to an id never sent, a second response, a malformed frame —
is flagged on its traffic event (the log is the one truth; `problems` only reads the flags back); it is
never raised into the caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
from collections.abc import Callable
from typing import Any, Literal

from mcpx.errors import ConnectError, McpxError, ProtocolError, RequestTimeoutError, RpcError
from mcpx.protocol.answering import Answering
from mcpx.protocol.answering import IncomingRequest as IncomingRequest  # where callers import it from
from mcpx.protocol.answering import RequestHandler as RequestHandler
from mcpx.protocol.pending import Deadlines, Pending
from mcpx.protocol.pending import ProgressCallback as ProgressCallback  # where callers import it from
from mcpx.protocol.racing import send_racing
from mcpx.transports.base import PushReceiving, StreamingSend, Transport
from mcpx.wire import (
    ErrorResponse,
    JsonId,
    Malformed,
    Notification,
    Request,
    Response,
    TrafficEvent,
    encode,
)
from mcpx.wire.waiting import ended

NotificationHandler = Callable[[Notification, TrafficEvent], Any]


#: the peer whose request this context is sending (seen by the layers a send passes through)
_SENDING: contextvars.ContextVar[Peer | None] = contextvars.ContextVar("mcpx_peer_sending", default=None)


#: the response event of the last request `Peer.request()` completed in this task (contexts are per
#: task, so concurrent requests never see each other's)
_ANSWERED: contextvars.ContextVar[TrafficEvent | None] = contextvars.ContextVar("mcpx_answered", default=None)


def answered_event() -> TrafficEvent | None:
    """The traffic event that carried the answer to this task's last request (None before any): the right
    event to flag a problem found in that answer on, whatever else the log received meanwhile."""
    return _ANSWERED.get()


def waiting_on_a_person() -> contextlib.AbstractContextManager[None]:
    """For code running inside a request's send over HTTP that waits on a person (an OAuth sign-in in the
    browser): the sending peer's timers are held meanwhile (`Peer.hold_timers`). Elsewhere it does
    nothing."""
    peer = _SENDING.get()
    return peer.hold_timers() if peer is not None else contextlib.nullcontext()


class Peer:
    """One end of a JSON-RPC conversation.

    `request()` sends and awaits a result (raising `RpcError` for an error reply), `notify()` sends a
    notification, `send_raw()` writes any text at all (for deliberate misbehaviour). Handlers registered
    with `on_request` answer the other side's requests; `ping` is answered out of the box and unknown
    methods get -32601.
    """

    def __init__(
        self, transport: Transport, *, timeout: float | None = 60.0, max_total_timeout: float | None = None
    ) -> None:
        self.transport = transport
        self.traffic = transport.traffic
        self.default_timeout = timeout
        #: the most one request may take in all, however much progress the server reports (None: no bound)
        self.max_total_timeout = max_total_timeout
        self._ids = itertools.count(1)
        self._pending: dict[JsonId, Pending] = {}
        self._progress: dict[JsonId, Pending] = {}
        self._notification_handlers: dict[str, list[NotificationHandler]] = {}
        self._any_notification: list[NotificationHandler] = []
        #: the other side's requests: their handlers and the tasks answering them
        self._answering = Answering(self._send_reply)
        #: notification handlers that returned a coroutine, running
        self._handler_tasks: set[asyncio.Task[None]] = set()
        self._reader: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: one timer for every request's deadlines (pending.py says why)
        self._deadlines = Deadlines(self._pending)
        self._ended: McpxError | None = None
        self.closed = asyncio.Event()
        #: requests we gave up on (timed out), so a late answer is named as such
        self._expired: dict[JsonId, str] = {}
        #: those of them that were probes (not cancelled on timeout): their late answers are expected
        self._probes: set[JsonId] = set()
        self._send_streams_answer = isinstance(transport, StreamingSend) and transport.send_streams_answer

    # -- lifecycle -----------------------------------------------------------------------------------
    async def start(self) -> None:
        # kept: asyncio.get_running_loop() costs a getpid() system call on each use, twice per request
        self._loop = self._deadlines.loop = asyncio.get_running_loop()
        if isinstance(self.transport, PushReceiving):
            # frames reach _dispatch from the transport's read callback; the reader task waits for the end
            self.transport.receive_with(self._dispatch)
        await self.transport.start()
        self._reader = asyncio.create_task(self._read_loop(), name="mcpx-peer-reader")

    async def restart(self) -> None:
        """Close the transport and open it again (a new server process, a new connection)."""
        await self.close()
        self._ended = None
        self.closed = asyncio.Event()
        await self.start()

    async def close(self) -> None:
        await self.transport.close()
        if self._reader is not None and not await ended(self._reader, 1.0):
            self._reader.cancel()
        self._answering.cancel_all()
        for task in list(self._handler_tasks):
            task.cancel()
        self._fail_pending(self._ended or ConnectError("the connection was closed"))
        self._deadlines.cancel()

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    @property
    def ended(self) -> McpxError | None:
        """Why the conversation ended (the transport's explanation), or None while it goes on."""
        return self._ended

    # -- registering ---------------------------------------------------------------------------------
    def on_request(self, method: str, handler: RequestHandler) -> None:
        self._answering.handlers[method] = handler

    def on_any_request(self, handler: RequestHandler | None) -> None:
        """Answer every method without a handler of its own (a mock server); None restores -32601.

        The handler sees the method in `IncomingRequest.method`.
        """
        self._answering.fallback = handler

    def on_notification(self, method: str | None, handler: NotificationHandler) -> Callable[[], None]:
        """Subscribe to one notification method (or to all with None). Returns an unsubscribe function."""
        handlers = (
            self._any_notification if method is None else self._notification_handlers.setdefault(method, [])
        )
        handlers.append(handler)
        return lambda: handlers.remove(handler) if handler in handlers else None

    # -- sending -------------------------------------------------------------------------------------
    def next_id(self) -> int:
        return next(self._ids)

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | Literal["default"] | None = "default",
        on_progress: ProgressCallback | None = None,
        request_id: JsonId | None = None,
    ) -> Any:
        """Send a request and return its result. `timeout=None` waits forever (for a human).

        The answer's traffic event is then `answered_event()` in this task: what a problem found in the
        result is flagged on."""
        event = await self.request_event(
            method, params, timeout=timeout, on_progress=on_progress, request_id=request_id
        )
        return event.message.result  # type: ignore[union-attr]

    async def request_event(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | Literal["default"] | None = "default",
        on_progress: ProgressCallback | None = None,
        request_id: JsonId | None = None,
        cancel_on_timeout: bool = True,
    ) -> TrafficEvent:
        """Send a request and return the traffic event of its (successful) response (which is then
        `answered_event()` in this task, as after `request()`).

        `cancel_on_timeout=False` is for probes: a server that does not know the method yet should not
        also get a cancellation for it.
        """
        if self._ended is not None:
            raise self._ended
        rid: JsonId = next(self._ids) if request_id is None else request_id
        if on_progress is not None:
            params = dict(params or {})
            meta = dict(params.get("_meta") or {})
            meta["progressToken"] = rid
            params["_meta"] = meta
        message = Request(rid, method, params)
        loop = self._loop or asyncio.get_running_loop()
        pending = Pending(
            loop.create_future(),
            method,
            self.default_timeout if timeout == "default" else timeout,
            self.max_total_timeout,
        )
        self._pending[rid] = pending
        if on_progress is not None:
            pending.on_progress = on_progress
            pending.progress_token = rid
            self._progress[rid] = pending
        self._deadlines.arm(pending)
        # only a send over HTTP may run an OAuth sign-in that waits on a person (`waiting_on_a_person`);
        # over a pipe, setting the context variable would be two operations per call for nothing
        sending = _SENDING.set(self) if self._send_streams_answer else None
        event: TrafficEvent | None = None
        try:
            if self._send_streams_answer:
                await send_racing(
                    self.transport.send(encode(message.to_obj()), message),
                    pending.future,
                    self._loop or asyncio.get_running_loop(),
                )
            else:
                await self.transport.send(encode(message.to_obj()), message)
            event = await pending.future
            _ANSWERED.set(event)
            return event
        except RequestTimeoutError as exc:
            self._expired[rid] = method
            if not cancel_on_timeout:
                self._probes.add(rid)  # mcpx's own probe: a late answer is no fault of the server
            self.traffic.unanswered(rid, "timed out", exc.message)
            if cancel_on_timeout and method != "initialize":  # the spec forbids cancelling initialize
                # tell the server before the caller goes on (it may close the connection next)
                after = exc.details.get("timeout") or exc.details.get("max_total_timeout")
                with contextlib.suppress(McpxError, OSError):
                    await self._cancel_remote(rid, f"timed out after {after:g} s")
            raise
        except asyncio.CancelledError:
            # cancelling our task cancelled the future it awaited: an answer that came first is `done()`
            # without being `cancelled()`, and then there is nothing left to cancel on the server
            unanswered = not pending.future.done() or pending.future.cancelled()
            if unanswered:
                self.traffic.unanswered(rid, "cancelled", "the caller cancelled the request")
            if unanswered and method != "initialize" and self._ended is None:
                with contextlib.suppress(Exception):
                    await self._cancel_remote(rid, "the caller cancelled the request")
            raise
        except RpcError:
            raise  # answered, with an error
        except McpxError as exc:
            # the connection ended with the request unanswered (a cancel() recorded its own ending first)
            self.traffic.unanswered(rid, "no answer", exc.message.splitlines()[0])
            raise
        finally:
            if sending is not None:
                _SENDING.reset(sending)
            # retrieved: a timeout that raced our cancellation is no error (an answered call took its
            # result, and skips the three calls this costs)
            if event is None and pending.future.done() and not pending.future.cancelled():
                pending.future.exception()
            self._pending.pop(rid, None)
            if pending.progress_token is not None:
                self._progress.pop(pending.progress_token, None)

    async def notify(self, method: str, params: Any = None) -> None:
        message = Notification(method, params)
        await self.transport.send(encode(message.to_obj()), message)

    async def send_raw(self, text: str) -> TrafficEvent:
        """Write `text` as one frame, whatever it is (malformed on purpose is fine)."""
        from mcpx.wire import decode

        decoded = decode(text.encode("utf-8"))
        return await self.transport.send(text, decoded.message)

    async def cancel(self, request_id: JsonId, reason: str) -> None:
        """Cancel a request of ours that is in flight: tell the server and fail the local waiter."""
        pending = self._pending.get(request_id)
        if pending is None:
            return
        self.traffic.unanswered(request_id, "cancelled", reason)
        await self._cancel_remote(request_id, reason)
        if not pending.future.done():
            pending.future.set_exception(McpxError(f"{pending.method} was cancelled: {reason}"))

    async def _cancel_remote(self, request_id: JsonId, reason: str) -> None:
        await self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})

    # -- timeouts ------------------------------------------------------------------------------------
    def hold_timers(self) -> contextlib.AbstractContextManager[None]:
        """No request of ours times out inside this block; afterwards each one's timeout starts afresh.

        For answers that wait on a person (elicitation, sampling): the request that made the server ask,
        still in flight, must not expire while the user reads the question.
        """
        return self._deadlines.hold()

    # -- receiving -----------------------------------------------------------------------------------
    async def _read_loop(self) -> None:
        try:
            async for event in self.transport:
                self._dispatch(event)
        except asyncio.CancelledError:
            raise
        except McpxError as exc:
            self._ended = exc
        except Exception as exc:  # a transport bug must still end the session cleanly
            self._ended = ConnectError(f"the connection failed: {exc!r}")
        if self._ended is None:
            doing = ", ".join(sorted({p.method for p in self._pending.values()}))
            self._ended = self.transport.ended_error(f"waiting for {doing}" if doing else "")
        self._fail_pending(self._ended)
        self.closed.set()

    def _fail_pending(self, error: McpxError) -> None:
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_exception(error)
        self.closed.set()

    def _unclaimed(self, event: TrafficEvent, rid: JsonId | None) -> None:
        """An answer no caller waits for: late (we gave up), stray, or to a frame sent with send_raw()."""
        if rid is not None and rid in self._probes:
            return  # the log links it to the probe, which shows it timed out; the server did answer
        if rid is not None and rid in self._expired:
            self._problem(event, self._stray(rid))
        elif not event.flags and event.request_seq is None:
            # the log links answers to raw requests and already names duplicates and strays
            self._problem(event, self._stray(rid))

    def _stray(self, rid: JsonId | None) -> str:
        method = self._expired.get(rid) if rid is not None else None
        if method is not None:
            return f"late answer to {method} (id {rid!r}), after mcpx had given up on it"
        return f"response to id {rid!r}, which has no request in flight"

    def _problem(self, event: TrafficEvent, text: str) -> None:
        if text not in event.flags:
            self.traffic.flag(event, text)  # views that already showed the event hear of it too

    @property
    def problems(self) -> list[tuple[TrafficEvent, str]]:
        """Every diagnostic in this conversation's log, as (event, text), read back from the flags.

        A view of the log, built on each read: to follow problems as they come, subscribe to
        `traffic.subscribe_flags` (and to new events that arrive flagged)."""
        return [(event, flag) for event in self.traffic if event.flags for flag in event.flags]

    def _dispatch(self, event: TrafficEvent) -> None:
        message = event.message
        kind = type(message)
        if kind is Response:
            assert isinstance(message, Response)
            pending = self._pending.get(message.id)
            if pending is None or pending.future.done():
                self._unclaimed(event, message.id)
            else:
                pending.future.set_result(event)
        elif kind is ErrorResponse:
            assert isinstance(message, ErrorResponse)
            pending = self._pending.get(message.id) if message.id is not None else None
            if pending is None or pending.future.done():
                self._unclaimed(event, message.id)
            else:
                pending.future.set_exception(
                    RpcError(pending.method, message.code, message.message, message.data)
                )
        elif kind is Notification:
            assert isinstance(message, Notification)
            self._on_notification(message, event)
        elif kind is Request:
            assert isinstance(message, Request)
            self._answering.start(message, event)
        elif kind is Malformed:
            assert isinstance(message, Malformed)  # already flagged by the log
            pending = self._pending.get(message.id) if message.id is not None else None
            if pending is not None and not pending.future.done():
                pending.future.set_exception(
                    ProtocolError(f"the answer to {pending.method} could not be read: {message.reason}")
                )

    def _on_notification(self, message: Notification, event: TrafficEvent) -> None:
        if message.method == "notifications/progress" and isinstance(message.params, dict):
            self._route_progress(message.params, event)
        elif message.method == "notifications/cancelled" and isinstance(message.params, dict):
            # the other side withdrew a request of its own: stop answering it (and send no answer)
            self._answering.withdraw(message.params.get("requestId"))
        for handler in (*self._notification_handlers.get(message.method, ()), *self._any_notification):
            try:
                result = handler(message, event)
                if asyncio.iscoroutine(result):
                    task = asyncio.ensure_future(result)
                    self._handler_tasks.add(task)
                    task.add_done_callback(self._handler_tasks.discard)
            except Exception as exc:
                self._problem(event, f"a handler for {message.method} failed: {exc!r}")

    def _route_progress(self, params: dict[str, Any], event: TrafficEvent) -> None:
        token = params.get("progressToken")
        pending = self._progress.get(token) if isinstance(token, (int, str)) else None
        if pending is None:
            self._problem(event, f"progress for token {token!r}, which no request in flight carries")
            return
        # a later deadline: the peer's timer, set no later than the old one, finds it when it fires
        pending.progressed((self._loop or asyncio.get_running_loop()).time())  # nothing to restart while held
        if pending.on_progress is not None:
            try:
                pending.on_progress(params.get("progress", 0), params.get("total"), params.get("message"))
            except Exception as exc:
                self._problem(event, f"the progress callback failed: {exc!r}")

    async def _send_reply(self, reply: Response | ErrorResponse) -> None:
        await self.transport.send(encode(reply.to_obj()), reply)
