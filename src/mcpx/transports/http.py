"""Streamable HTTP (revisions 2025-03-26 … 2025-11-25): every message a POST to one endpoint.

A POST answers with one JSON body or an event stream that may carry notifications and server→client
requests before the response. `send()` covers the whole exchange — the POST, its reply, and resuming the
reply's stream with GET + `Last-Event-ID` when it ends early — so whatever goes wrong is raised to the one
request it belongs to. Every frame read is logged and queued for the peer the moment it arrives, so the
peer answers a server's request (with its own POST) while the stream that carried it is still open.

After the handshake (`set_protocol_version`, which the client calls once initialize is done) a GET stream
listens for messages the server sends unprompted; it is re-opened when it drops, after the server's `retry`
interval (with a floor, backoff and caps: `mcpx.transports.backoff`), with `Last-Event-ID`. A 404 to a request
that carried a session id means the session is gone: the transport forgets it and raises
`SessionExpiredError`, and the client opens a new one. Closing sends DELETE with the session id.

The handshake-free era (2026-07-28) uses the same POSTs without any of that state: the layer above names,
per message, the headers that mirror it (`mirror_headers`), and such an exchange carries no session id,
takes none from its reply, and is not resumed when its stream breaks (`StreamLostError`: that era has no
resumability, so the request is lost and must be sent anew). No GET stream is opened for it (the client
calls `set_protocol_version` only after a handshake) and, with no session, nothing is deleted on close.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING

import httpx

from mcpx.errors import ConnectError, McpxError, ProtocolError
from mcpx.transports.backoff import SessionBudget
from mcpx.transports.base import HeadersFor, Mirrored, PassedFor, StreamLostError
from mcpx.transports.http_common import (
    DEFAULT_TIMEOUT,
    HANDOVER_TIMEOUT,
    JSON_TYPES,
    Reply,
    answers,
    client_for,
    merged_headers,
    post_request,
    record_reply,
)
from mcpx.transports.http_errors import content_type, reach_error, unexpected_body_error
from mcpx.transports.http_refusals import NoStreamableHttpError, Refused, refuse_post
from mcpx.transports.http_streams import EventStreams, Exchange, StreamEnd
from mcpx.transports.inbox import Inbox
from mcpx.wire import JsonId, Message, TrafficEvent, TrafficLog
from mcpx.wire.waiting import cancel_and_wait

if TYPE_CHECKING:
    from mcpx.transports.lean_post import LeanPost

POST_ACCEPT = "application/json, text/event-stream"
#: how long the first request after the handshake waits for the server to answer the GET stream
LISTEN_SETTLE_SECONDS = 1.0


class HttpTransport(EventStreams):
    """A client of one Streamable HTTP endpoint."""

    name = "http"
    send_streams_answer = True

    def __init__(
        self,
        url: str,
        *,
        traffic: TrafficLog,
        headers: Mapping[str, str] | None = None,
        secret_headers: tuple[str, ...] = (),
        http_transport: httpx.AsyncBaseTransport | None = None,
        auth: httpx.Auth | None = None,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
    ) -> None:
        self.url = url
        #: parsed once: httpx parses a URL given as text on every request it builds (~10 µs)
        self._target = httpx.URL(url)
        self.traffic = traffic
        self.headers = dict(headers or {})
        self.secret_headers = secret_headers
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.listening = False
        self._http_transport = http_transport
        self._auth = auth
        self._timeout = timeout
        self._client: httpx.AsyncClient | None = None
        #: the peer's dispatch, when it takes events as they are read (`receive_with`)
        self._sink: Callable[[TrafficEvent], None] | None = None
        self._inbox = Inbox()
        # kept across start(): a server that drops streams does not get a fresh budget by ending sessions
        self._budget = SessionBudget()
        self._listener: asyncio.Task[None] | None = None
        #: set once the GET stream just started has its answer (or failed); None when nothing waits for it
        self._listen_settled: asyncio.Event | None = None
        self._waiting: dict[JsonId, asyncio.Event] = {}
        self._closing = False
        self._contacted = False
        self._mirror: HeadersFor | None = None
        self._passing: PassedFor | None = None
        self._post_cache: tuple[tuple[object, ...], httpx.Headers] | None = None
        #: plain POSTs made past httpx's client when the lean transport was given (`lean_post`)
        self._lean_post: LeanPost | None = None

    # -- lifecycle -----------------------------------------------------------------------------------
    async def start(self) -> None:
        """Get ready to POST (again, after a close: a new connection and, later, a new session).

        Nothing goes on the wire yet: the first POST is the first contact.
        """
        self.session_id = self.protocol_version = None
        self.listening = self._closing = self._contacted = False
        self._inbox = Inbox(self._sink)
        self._listener = None
        self._listen_settled = None
        self._client = client_for(
            self.url,
            self.traffic,
            secret_headers=self.secret_headers,
            inner=self._http_transport,
            auth=self._auth,
            timeout=self._timeout,
        )
        if self._http_transport is not None and self._lean_post is None:
            from mcpx.transports.lean_http import LeanHttpTransport

            if isinstance(self._http_transport, LeanHttpTransport):
                from mcpx.transports.lean_post import LeanPost

                self._lean_post = LeanPost(self._http_transport, self.traffic, self._target)

    def set_protocol_version(self, version: str) -> None:
        """The handshake is done: mirror the version into headers and start listening on GET.

        The next POST waits (at most `LISTEN_SETTLE_SECONDS`) until the server has answered that GET: what
        the server sends unprompted while the request runs goes to the GET stream, and a server only has one
        to send it to once the stream is open.
        """
        self.protocol_version = version
        if self._listener is not None:
            self._listener.cancel()
        self._listen_settled = asyncio.Event()
        self._listener = asyncio.create_task(self._listen(), name="mcpx-http-get-stream")

    def mirror_headers(self, headers_for: HeadersFor | None) -> None:
        """Ask `headers_for` about each message: the headers of a handshake-free exchange, or None."""
        self._mirror = headers_for

    def pass_headers(self, headers_for: PassedFor | None) -> None:
        """Ask `headers_for` about each message POSTed: headers to send with it on top of ours."""
        self._passing = headers_for

    def receive_with(self, sink: Callable[[TrafficEvent], None] | None) -> None:
        """Hand each received event to `sink` as it is read (see `PushReceiving`): the peer's dispatch runs
        in the task that read the frame, which for a JSON reply is the request's own, so no reader task
        wakes and the caller does not wait a loop iteration for its answer."""
        self._sink = sink
        self._inbox.use_sink(sink)

    def __aiter__(self) -> AsyncIterator[TrafficEvent]:
        return self._inbox.events()

    async def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        try:  # a close cancelled on the way (a quit) still ends the inbox its reader waits on
            if self._listener is not None:
                await cancel_and_wait(self._listener)
            client = self._client
            if client is not None:
                if self.session_id is not None:
                    await self._delete_session(client)
                await client.aclose()
        finally:
            self._inbox.end()

    def describe(self) -> dict[str, object]:
        return {
            "transport": "http",
            "url": self.url,
            "session_id": self.session_id,
            "protocol_version": self.protocol_version,
            "listening": self.listening,
            # which httpx.Auth signs the requests (e.g. McpOAuth), if any
            "auth": type(self._auth).__name__ if self._auth is not None else None,
        }

    def ended_error(self, doing: str) -> McpxError:
        return ConnectError(f"the connection to {self.url} was closed" + (f" while {doing}" if doing else ""))

    # -- sending -------------------------------------------------------------------------------------
    async def send(self, text: str, message: Message) -> TrafficEvent:
        client = self._require_client()
        ex = Exchange.of(message)
        mirrored = self._mirror(message) if self._mirror is not None else None
        if mirrored is not None and mirrored.skip is not None:
            # logged in its place, so the log shows what was meant and why nothing went
            return self.traffic.info(
                f"{ex.doing} not sent: {mirrored.skip}", "http", event="not-sent", method=ex.method
            )
        if self._listen_settled is not None:
            await self._await_listening()
        event = self.traffic.sent(text, message, "http")
        if ex.rid is not None:
            self._waiting[ex.rid] = asyncio.Event()
        try:
            passed = self._passing(message) if self._passing is not None else None
            end = await self._post(client, text, ex, mirrored, passed)
            if end is not None and not end.answered and ex.rid is not None:
                if mirrored is not None:
                    raise StreamLostError(
                        f"the event stream of {ex.doing} ended before its answer; in the handshake-free "
                        "era a stream cannot be resumed, so the request is lost",
                        url=self.url,
                    )
                await self._resume(client, ex, end)
        except httpx.HTTPError as exc:
            raise reach_error(exc, self.url, ex.doing) from None
        finally:
            if ex.rid is not None:
                self._waiting.pop(ex.rid, None)
        return event

    async def _await_listening(self) -> None:
        settled = self._listen_settled
        if settled is None:
            return
        # not wait_for: before Python 3.12 it can swallow a cancel that comes as the event is set
        waiter = asyncio.ensure_future(settled.wait())
        try:
            done, _ = await asyncio.wait({waiter}, timeout=LISTEN_SETTLE_SECONDS)
        finally:
            waiter.cancel()
        if not done:
            self.traffic.info(
                f"the GET stream had no answer after {LISTEN_SETTLE_SECONDS:g} s; requests go on without it",
                "http",
                event="listen-slow",
            )
        if self._listen_settled is settled:
            self._listen_settled = None

    async def _post(
        self,
        client: httpx.AsyncClient,
        text: str,
        ex: Exchange,
        mirrored: Mirrored | None = None,
        passed: Mapping[str, str] | None = None,
    ) -> StreamEnd | None:
        """POST one frame and take its reply. Returns how a request's event stream ended (None: no stream).

        `mirrored` makes it an exchange of the handshake-free era: its headers, and no session.
        """
        rid, doing = ex.rid, ex.doing
        stateless = mirrored is not None
        had_session = None if stateless else self.session_id
        lean = self._lean_post
        fast = lean is not None and lean.usable(client, self._auth)
        if mirrored is None:
            headers = self._post_headers(passed, copy=not fast)  # (nothing changes them on the lean way)
        else:
            headers = self._headers(POST_ACCEPT, content=True, mirrored=mirrored)
            if passed:  # the host's own, over ours; the user's --header over both
                headers = merged_headers(merged_headers(headers, passed), self.headers)
        first_contact = not self._contacted
        # a request's reply may take as long as the tool (the peer's timer bounds it); a notification or an
        # answer is only handed over, and a server that holds on to it must not hold up the caller
        timeout = self._timeout if rid is not None else HANDOVER_TIMEOUT
        content = text.encode("utf-8")
        response: Reply | None = None
        if fast:
            assert lean is not None
            response = await lean.post(client, content, headers, timeout)
        if response is None:
            # `client.stream()` written out: its context manager is two generator frames more per POST
            request = post_request(client, self._target, content, headers, timeout)
            response = await client.send(request, stream=True)
        try:
            status = response.status_code
            # a refused handshake-free probe says nothing yet: the handshake that follows is the first
            # contact that decides whether a Streamable HTTP endpoint is there at all
            self._contacted = self._contacted or not stateless or 200 <= status < 300
            if not 200 <= status < 300:
                body = await response.aread()
                refuse_post(
                    self.traffic,
                    self.url,
                    Refused(response, body, ex, had_session, first_contact),
                    answer=self._inbox.put,
                    forget_session=self._forget_session,
                )
                return None  # the JSON-RPC error answer is queued for the peer
            if not stateless:
                self._note_session(response)  # a handshake-free server's session id means nothing
            if status in (202, 204):
                await response.aread()
                if rid is not None and stateless:
                    raise ProtocolError(
                        f"{self.url} accepted {doing} with HTTP {status} and no answer; in the "
                        "handshake-free era the answer can come nowhere else",
                        status=status,
                    )
                if rid is not None:
                    self.traffic.info(
                        f"the server accepted {doing} with HTTP {status} and no answer; the answer can only "
                        "come on the GET stream",
                        "http",
                        event="accepted-request",
                        request_id=rid,
                    )
                return None
            kind = content_type(response)  # once: each look-up decodes every header of the reply
            if kind == "text/event-stream":
                assert isinstance(response, httpx.Response)  # (`lean_post` hands a stream on as one)
                return await self._read_events(response, rid, "post")
            body = await response.aread()
            if not body.strip() and rid is None:
                return None  # 200 with nothing for a notification: the server meant 202
            facts = {"status": status, "content_type": kind}
            is_json = (
                kind in JSON_TYPES
                or kind.endswith("+json")
                or (not kind and body.lstrip()[:1] in (b"{", b"["))
            )
            if not is_json:
                reply = record_reply(
                    self.traffic, body, rid, facts, f"HTTP {status} {kind or 'without a type'}"
                )
                self.traffic.flag(reply, f"the reply's content type is {kind or 'missing'}, not JSON")
                raise unexpected_body_error(response, body, self.url, doing)
            reply = record_reply(self.traffic, body, rid, facts, f"HTTP {status} JSON body")
            self._inbox.put(reply)
            if rid is not None and not answers(reply.message, rid):
                raise ProtocolError(
                    f"{self.url} answered {doing} with a JSON body that is not its response ({reply.kind})",
                    status=status,
                )
            return None
        finally:
            await response.aclose()

    # -- helpers -------------------------------------------------------------------------------------
    def _require_client(self) -> httpx.AsyncClient:
        if self._client is None or self._closing:
            raise ConnectError(f"the connection to {self.url} is not open")
        return self._client

    def _headers(
        self,
        accept: str,
        *,
        content: bool = False,
        last_event_id: str | None = None,
        mirrored: Mirrored | None = None,
    ) -> httpx.Headers:
        base = {"Accept": accept}
        if content:
            base["Content-Type"] = "application/json"
        if mirrored is not None:
            base.update(mirrored.headers)
        else:
            if self.session_id is not None:
                base["Mcp-Session-Id"] = self.session_id
            if self.protocol_version is not None:
                base["MCP-Protocol-Version"] = self.protocol_version
        if last_event_id is not None:
            base["Last-Event-ID"] = last_event_id
        return merged_headers(base, self.headers)

    def _post_headers(self, passed: Mapping[str, str] | None = None, *, copy: bool = True) -> httpx.Headers:
        """`_headers()` of a handshake-era POST with `passed` (a proxied host's headers) over them and the
        user's over both, built again only when what goes into it changed (the session, the version,
        the user's or the host's headers): each build normalises every header anew."""
        passing = tuple(passed.items()) if passed else ()
        key = (self.session_id, self.protocol_version, tuple(self.headers.items()), passing)
        cached = self._post_cache
        if cached is None or cached[0] != key:
            headers = self._headers(POST_ACCEPT, content=True)
            if passed:
                headers = merged_headers(merged_headers(headers, passed), self.headers)
            cached = self._post_cache = (key, headers)
        return httpx.Headers(cached[1]) if copy else cached[1]  # a copy: whoever sends it may change it

    def _note_session(self, response: Reply) -> None:
        session = response.headers.get("mcp-session-id")
        if not session or session == self.session_id:
            return
        if self.session_id is None:
            self.traffic.info(f"session {session} started", "http", event="session", session_id=session)
        else:
            self.traffic.info(
                f"the server changed the session id from {self.session_id} to {session}",
                "http",
                event="session",
                session_id=session,
                previous=self.session_id,
            )
        self.session_id = session

    def _forget_session(self, session: str, status: int, doing: str) -> None:
        if self.session_id == session:
            self.session_id = None
            self.protocol_version = None
        self.traffic.info(
            f"session {session} is gone (HTTP {status} to {doing})",
            "http",
            event="session-expired",
            session_id=session,
            status=status,
        )

    async def _delete_session(self, client: httpx.AsyncClient) -> None:
        session = self.session_id
        try:
            response = await client.delete(self.url, headers=self._headers("*/*"), timeout=2.0)
        except httpx.HTTPError as exc:
            self.traffic.info(f"DELETE of session {session} failed: {exc or type(exc).__name__}", "http")
            return
        if response.status_code == 405:
            self.traffic.info(
                f"the server does not let clients end sessions (HTTP 405); {session} stays", "http"
            )
        self.session_id = None


__all__ = ["HttpTransport", "NoStreamableHttpError", "StreamLostError"]
