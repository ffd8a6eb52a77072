"""Legacy HTTP+SSE (revision 2024-11-05; deprecated, still widely deployed).

The client GETs an event stream; its first event, `endpoint`, names the URL to POST messages to (resolved
against the stream's URL, and refused if it points to another origin). Every message the server sends —
responses, notifications, requests — arrives on that one stream; a POST only gets `202 Accepted`. The
stream is the session: when it ends, the connection has ended, and there is nothing to resume.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urljoin

import httpx
from httpx_sse import EventSource

from mcpx.errors import ConnectError, McpxError, ProtocolError
from mcpx.transports.base import PassedFor
from mcpx.transports.http_common import (
    DEFAULT_TIMEOUT,
    HANDOVER_TIMEOUT,
    client_for,
    merged_headers,
    record_reply,
)
from mcpx.transports.http_errors import content_type, preview, reach_error, status_error
from mcpx.transports.inbox import Inbox
from mcpx.transports.tap import is_event_stream
from mcpx.wire import Message, Request, TrafficEvent, TrafficLog
from mcpx.wire.waiting import cancel_and_wait, within


class SseTransport:
    """A client of one legacy HTTP+SSE server."""

    name = "sse"
    # a POST only hands the message over, but it may hang on a server that lost the session: the peer's
    # timer must not wait for it
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
        endpoint_timeout: float = 10.0,
    ) -> None:
        self.url = url
        self.traffic = traffic
        self.headers = dict(headers or {})
        self.secret_headers = secret_headers
        self.endpoint: str | None = None
        self.endpoint_timeout = endpoint_timeout
        self._http_transport = http_transport
        self._auth = auth
        self._timeout = timeout
        self._client: httpx.AsyncClient | None = None
        self._inbox = Inbox()
        self._reader: asyncio.Task[None] | None = None
        self._endpoint_ready: asyncio.Future[str] | None = None
        self._ended: McpxError | None = None
        self._closing = False
        self._passing: PassedFor | None = None

    # -- lifecycle -----------------------------------------------------------------------------------
    async def start(self) -> None:
        """GET the event stream and wait for its endpoint event (again, after a close: a new session)."""
        self.endpoint, self._ended, self._closing = None, None, False
        self._inbox = Inbox()
        self._client = client_for(
            self.url,
            self.traffic,
            secret_headers=self.secret_headers,
            inner=self._http_transport,
            auth=self._auth,
            timeout=self._timeout,
        )
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._endpoint_ready = ready
        # the stream is opened, read and closed by one task, which owns it for the whole connection
        self._reader = asyncio.create_task(self._read(self._client, ready), name="mcpx-sse-stream")
        try:
            self.endpoint = await within(asyncio.shield(ready), self.endpoint_timeout)
        except asyncio.TimeoutError:
            ready.cancel()
            await self.close()
            raise ConnectError(
                f"{self.url} opened an event stream but sent no endpoint event within "
                f"{self.endpoint_timeout:g} s (an HTTP+SSE server sends one first)",
                url=self.url,
            ) from None
        except McpxError:
            await self.close()
            raise

    def __aiter__(self) -> AsyncIterator[TrafficEvent]:
        return self._inbox.events()

    async def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        try:  # a close cancelled on the way (a quit) still ends the inbox its reader waits on
            if self._reader is not None:
                await cancel_and_wait(self._reader)
            if self._client is not None:
                await self._client.aclose()
        finally:
            self._inbox.end()

    def describe(self) -> dict[str, object]:
        return {
            "transport": "sse",
            "url": self.url,
            "endpoint": self.endpoint,
            "auth": type(self._auth).__name__ if self._auth is not None else None,
        }

    def ended_error(self, doing: str) -> McpxError:
        reason = (
            self._ended.message if self._ended is not None else f"the connection to {self.url} was closed"
        )
        return ConnectError(reason + (f" while {doing}" if doing else ""), url=self.url)

    # -- sending -------------------------------------------------------------------------------------
    def pass_headers(self, headers_for: PassedFor | None) -> None:
        """Ask `headers_for` about each message POSTed: headers to send with it on top of ours."""
        self._passing = headers_for

    async def send(self, text: str, message: Message) -> TrafficEvent:
        client, endpoint = self._client, self.endpoint
        if client is None or endpoint is None or self._closing:
            raise ConnectError(f"the connection to {self.url} is not open")
        if self._ended is not None:
            raise self.ended_error("")
        event = self.traffic.sent(text, message, "http", {"url": endpoint})
        rid = message.id if isinstance(message, Request) else None
        doing = getattr(message, "method", "answering the server")
        headers = merged_headers({"Content-Type": "application/json", "Accept": "*/*"}, self.headers)
        passed = self._passing(message) if self._passing is not None else None
        if passed:  # the host's own, over ours; the user's --header over both
            headers = merged_headers(merged_headers(headers, passed), self.headers)
        try:
            response = await client.post(
                endpoint, content=text.encode("utf-8"), headers=headers, timeout=HANDOVER_TIMEOUT
            )
        except httpx.HTTPError as exc:
            raise reach_error(exc, endpoint, doing) from None
        if 200 <= response.status_code < 300:
            return event
        record_reply(
            self.traffic,
            response.content,
            rid,
            {"status": response.status_code},
            f"HTTP {response.status_code}",
        )
        if response.status_code == 404:
            raise ConnectError(
                f"{endpoint} no longer knows this HTTP+SSE session (HTTP 404 to {doing}); reconnect to "
                "start a new one",
                url=endpoint,
                status=404,
            )
        raise status_error(response, response.content, endpoint, doing)

    # -- the stream ----------------------------------------------------------------------------------
    async def _read(self, client: httpx.AsyncClient, ready: asyncio.Future[str]) -> None:
        error: McpxError
        try:
            headers = merged_headers(
                {"Accept": "text/event-stream", "Cache-Control": "no-store"}, self.headers
            )
            async with client.stream("GET", self.url, headers=headers) as response:
                self._check_stream(response, await _body_if_not_stream(response))
                async for sse in EventSource(response).aiter_sse():
                    self._on_event(sse.event or "message", sse.data, sse.id, sse.retry, ready)
            error = ConnectError(f"the server closed the event stream at {self.url}", url=self.url)
        except asyncio.CancelledError:
            raise
        except McpxError as exc:
            error = exc
        except httpx.HTTPError as exc:
            error = reach_error(exc, self.url, "")
        self._ended = error
        if not ready.done():
            ready.set_exception(error)
        else:
            self.traffic.info(error.message, "sse", event="stream-ended")
        self._inbox.end()

    def _check_stream(self, response: httpx.Response, body: bytes | None) -> None:
        status = response.status_code
        if body is None:
            return
        if status in (404, 405):
            raise ConnectError(
                f"{self.url} has no HTTP+SSE endpoint: GET answered HTTP {status} {response.reason_phrase}",
                url=self.url,
                status=status,
            )
        if status != 200:
            raise status_error(response, body, self.url, "opening the event stream")
        raise ProtocolError(
            f"{self.url} answered GET with {content_type(response) or 'no content type'}, not an event "
            f"stream: {preview(body, 200)!r}",
            url=self.url,
        )

    def _on_event(
        self, kind: str, data: str, sse_id: str, retry: int | None, ready: asyncio.Future[str]
    ) -> None:
        facts: dict[str, Any] = {"stream": "sse", "sse_event": kind}
        if sse_id:
            facts["sse_id"] = sse_id
        if retry is not None:
            facts["retry_ms"] = retry
        if kind == "endpoint":
            self._on_endpoint(data.strip(), ready, facts)
            return
        if not data:
            self.traffic.info(f"SSE {kind} event without data", "sse", **facts)
            return
        event = self.traffic.received(data.encode("utf-8"), "sse", facts)
        if kind != "message":
            self.traffic.flag(event, f"SSE event type {kind!r}; HTTP+SSE sends messages as 'message'")
        if not ready.done():
            self.traffic.flag(event, "a message before the endpoint event")
        self._inbox.put(event)

    def _on_endpoint(self, data: str, ready: asyncio.Future[str], facts: dict[str, Any]) -> None:
        endpoint = urljoin(self.url, data)
        ours, theirs = httpx.URL(self.url), httpx.URL(endpoint)
        if (theirs.scheme, theirs.host, theirs.port) != (ours.scheme, ours.host, ours.port):
            # posting our messages (and headers, tokens) to another origin is not something to do silently
            raise ProtocolError(
                f"the endpoint event names {endpoint}, on another origin than {self.url}; mcpx will not "
                "post there"
            )
        if ready.done():
            self.traffic.info(
                f"the server named a new endpoint: {endpoint}", "sse", endpoint=endpoint, **facts
            )
            self.endpoint = endpoint
            return
        self.traffic.info(f"endpoint {endpoint}", "sse", event="endpoint", endpoint=endpoint, **facts)
        ready.set_result(endpoint)


async def _body_if_not_stream(response: httpx.Response) -> bytes | None:
    """The body of a reply that is not an event stream (to say what came instead), else None."""
    if response.status_code == 200 and is_event_stream(response):
        return None
    return await response.aread()
