"""A symmetric JSON-RPC endpoint over one transport.

The client uses it, and so do the demo and mock servers in the server role. It owns request ids, the
map of pending requests, per-request timeouts (reset by progress), cancellation (which sends
`notifications/cancelled`), progress routing and the dispatch of incoming requests and notifications.

What the other side gets wrong — a response to an id never sent, a second response, a malformed frame —
is flagged on its traffic event (the log is the one truth; `problems` only reads the flags back); it is
never raised into the caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any, Literal

from mcpx.errors import ConnectError, McpxError, ProtocolError, RequestTimeoutError, RpcError
from mcpx.protocol.answering import Answering
from mcpx.protocol.answering import IncomingRequest as IncomingRequest  # where callers import it from
from mcpx.protocol.answering import RequestHandler as RequestHandler
from mcpx.protocol.pending import Pending
from mcpx.protocol.pending import ProgressCallback as ProgressCallback  # where callers import it from
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

NotificationHandler = Callable[[Notification, TrafficEvent], Any]
#: seconds by which a deadline counts as passed when the timer fires (see `Peer._expire_due`)
TIMER_SLACK = 0.002
#: seconds an exchange may go on after its request was answered before the peer cuts it short
ANSWERED_GRACE = 0.1


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
    """For code running inside a request's send that waits on a person (an OAuth sign-in in the browser):
    the sending peer's timers are held meanwhile (`Peer.hold_timers`). Elsewhere it does nothing."""
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
        #: while above zero, pending requests do not time out (someone is waiting on a human)
        self._holds = 0
        self._reader: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: one timer for every request's deadlines (pending.py says why), set for the earliest of them
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf
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
        self._loop = asyncio.get_running_loop()
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
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(self._reader, timeout=1.0)
            self._reader.cancel()
        self._answering.cancel_all()
        for task in list(self._handler_tasks):
            task.cancel()
        self._fail_pending(self._ended or ConnectError("the connection was closed"))
        if self._timer is not None:
            self._timer.cancel()
            self._timer, self._timer_at = None, math.inf

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
        self._arm(pending)
        sending = _SENDING.set(self)
        try:
            if self._send_streams_answer:
                await self._send_racing(message, pending)
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
            _SENDING.reset(sending)
            if pending.future.done() and not pending.future.cancelled():
                pending.future.exception()  # retrieved: a timeout that raced our cancellation is no error
            self._pending.pop(rid, None)
            if pending.progress_token is not None:
                self._progress.pop(pending.progress_token, None)

    async def _send_racing(self, message: Request, pending: Pending) -> None:
        """Send over a transport whose `send()` lasts until the answer has streamed in (HTTP).

        The request's timer, a cancellation or the answer must not wait for the exchange to end; when one
        of them comes first the exchange is cancelled, which over HTTP closes the request's stream.

        The exchange runs in the caller's own task, as `asyncio.timeout()` runs its block: when the future
        settles first, a callback cancels this task, and the cancellation is taken back (`uncancel`) once
        it has ended the exchange — unless someone else cancelled the task too. A task and `asyncio.wait`
        per request cost each call a task made and scheduled (a loop iteration) and a waiter. An answer
        cuts the exchange only if it is still going `ANSWERED_GRACE` later: over a transport that hands
        frames over as it reads them, the answer arrives inside the exchange that carries it, which then
        ends by itself.
        """
        task = asyncio.current_task()
        # Python 3.10: no way to take a cancel back. By version, not hasattr: pytest-asyncio's Runner
        # backport gives 3.10 tasks an `uncancel` that does not take one back (the CancelledError leaked)
        if task is None or sys.version_info < (3, 11):
            return await self._send_in_task(message, pending)
        sending = True
        interrupted = False
        grace: asyncio.TimerHandle | None = None

        def cut() -> None:
            nonlocal interrupted
            if sending and not interrupted:
                interrupted = True
                task.cancel()

        def interrupt(done: asyncio.Future[TrafficEvent]) -> None:
            nonlocal grace
            if not sending or interrupted:
                return
            if done.cancelled() or done.exception() is not None:
                cut()  # timed out, cancelled, or the connection failed: at once
            elif grace is None:
                # answered: the exchange that carried the answer (a transport handing frames over as it
                # reads them) is about to end by itself, and cutting it in its last steps would cost the
                # connection; one that goes on after its answer came (another way) is cut after a moment
                grace = (self._loop or asyncio.get_running_loop()).call_later(ANSWERED_GRACE, cut)

        future = pending.future
        future.add_done_callback(interrupt)
        cancelled = False
        try:
            await self.transport.send(encode(message.to_obj()), message)
        except asyncio.CancelledError:
            cancelled = True
            if not interrupted or task.uncancel():
                raise  # not ours, or not only ours
        except Exception:
            if not future.done():
                raise  # the exchange ended before the answer came: its error is the request's
            # an exchange that lost the race may still end in an error; it is this request's no longer
        finally:
            sending = False
            future.remove_done_callback(interrupt)
            if grace is not None:
                grace.cancel()
        if interrupted and not cancelled:
            task.uncancel()  # the exchange swallowed our cancellation: take it back all the same

    async def _send_in_task(self, message: Request, pending: Pending) -> None:
        """`_send_racing` where a task cannot take a cancellation back: the exchange gets a task of its
        own, raced against the future."""
        sending = asyncio.ensure_future(self.transport.send(encode(message.to_obj()), message))
        sending.add_done_callback(_seen)
        try:
            await asyncio.wait((sending, pending.future), return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not sending.done():
                sending.cancel()
        if not pending.future.done():
            sending.result()  # the exchange ended before the answer came: its error is the request's

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
    @contextlib.contextmanager
    def hold_timers(self) -> Iterator[None]:
        """No request of ours times out inside this block; afterwards each one's timeout starts afresh.

        For answers that wait on a person (elicitation, sampling): the request that made the server ask,
        still in flight, must not expire while the user reads the question.
        """
        self._holds += 1
        if self._holds == 1:
            now = asyncio.get_running_loop().time()
            for pending in self._pending.values():
                pending.pause(now)
        try:
            yield
        finally:
            self._holds -= 1
            if self._holds == 0:
                for pending in list(self._pending.values()):
                    if not pending.future.done():
                        self._arm(pending)

    def _arm(self, pending: Pending) -> None:
        if not self._holds:
            loop = self._loop or asyncio.get_running_loop()
            due = pending.arm(loop.time())
            if due is not None and due < self._timer_at:
                self._wake_at(due, loop)

    def _wake_at(self, when: float, loop: asyncio.AbstractEventLoop) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = loop.call_at(when, self._expire_due), when

    def _expire_due(self) -> None:
        """The one timer fired: fail the requests whose deadline has passed, then wait for the next."""
        self._timer, self._timer_at = None, math.inf
        if self._holds:
            return  # nothing expires meanwhile; the release arms every request afresh
        loop = self._loop or asyncio.get_running_loop()
        # a loop may run a timer a little early (uvloop counts in milliseconds): that is not early enough
        # to matter, and re-arming for the same instant would spin until it came
        now = loop.time() + TIMER_SLACK
        earliest = math.inf
        for pending in list(self._pending.values()):
            if pending.expire_if_due(now):
                continue
            due = pending.due_at()
            if due is not None and due < earliest and not pending.future.done():
                earliest = due
        if earliest < math.inf:
            self._wake_at(earliest, loop)

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


def _seen(task: asyncio.Future[Any]) -> None:
    # an exchange that lost the race may still end in an error; it is this request's no longer
    if not task.cancelled():
        task.exception()
