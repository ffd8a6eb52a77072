"""Reading a Streamable HTTP connection's event streams: a POST's reply, a reply resumed with GET and
`Last-Event-ID` after it ended early, and the GET stream that listens for what the server sends unprompted.

Every event with data becomes a received frame in the traffic log and goes to the inbox the peer drains;
events without data (a priming event, SEP-1699) are cursors to resume from and are logged as facts.
`EventStreams` is the part of `HttpTransport` that does this (split out to keep each module readable).
How long to wait before going back to a stream, and when to stop, is `mcpx.transports.backoff`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import EventSource

from mcpx.errors import ConnectError
from mcpx.transports.backoff import Attempts, Drop, SessionBudget, describe
from mcpx.transports.http_common import answers, record_reply
from mcpx.transports.http_errors import content_type, reach_error, unexpected_body_error
from mcpx.transports.inbox import Inbox
from mcpx.transports.tap import is_event_stream
from mcpx.wire import JsonId, Message, Notification, Request, TrafficLog

STREAM_ACCEPT = "text/event-stream"


@dataclass(frozen=True, slots=True)
class Exchange:
    """The message a POST carries, as far as HTTP needs to know it."""

    rid: JsonId | None
    method: str
    #: how it is named in messages: "tools/call (id 3)"
    doing: str

    @classmethod
    def of(cls, message: Message) -> Exchange:
        if isinstance(message, Request):
            return cls(message.id, message.method, f"{message.method} (id {message.id!r})")
        if isinstance(message, Notification):
            return cls(None, message.method, message.method)
        rid = getattr(message, "id", None)
        return cls(None, "", f"answering the server's request {rid!r}")


@dataclass(slots=True)
class StreamEnd:
    """How reading one event stream ended."""

    answered: bool
    last_id: str | None
    retry_ms: int | None
    #: how long the stream was open, and how many messages it carried
    seconds: float = 0.0
    frames: int = 0

    def drop(self, previous_id: str | None) -> Drop:
        new_id = self.last_id is not None and self.last_id != previous_id
        return Drop(self.seconds, self.frames, new_id, self.retry_ms)


class EventStreams:
    """Event-stream reading for `HttpTransport`, which provides the state and helpers declared here."""

    url: str
    traffic: TrafficLog
    session_id: str | None
    listening: bool
    _inbox: Inbox
    _waiting: dict[JsonId, asyncio.Event]
    _listen_settled: asyncio.Event | None
    _closing: bool
    #: resumes and reconnects of this connection (see mcpx.transports.backoff)
    _budget: SessionBudget

    def _require_client(self) -> httpx.AsyncClient:
        raise NotImplementedError

    def _headers(
        self, accept: str, *, content: bool = False, last_event_id: str | None = None
    ) -> httpx.Headers:
        raise NotImplementedError

    def _fail(
        self,
        response: httpx.Response,
        body: bytes,
        ex: Exchange,
        had_session: str | None,
        first_contact: bool,
    ) -> None:
        raise NotImplementedError

    # -- reading event streams -----------------------------------------------------------------------
    async def _read_events(self, response: httpx.Response, rid: JsonId | None, stream: str) -> StreamEnd:
        """Read an event stream into the inbox until it ends or carries the answer to `rid`."""
        last_id: str | None = None
        retry_ms: int | None = None
        started, frames = time.monotonic(), 0
        try:
            async for sse in EventSource(response).aiter_sse():
                if sse.id:
                    last_id = sse.id
                if sse.retry is not None:
                    retry_ms = sse.retry
                facts: dict[str, Any] = {"stream": stream, "sse_event": sse.event or "message"}
                if sse.id:
                    facts["sse_id"] = sse.id
                if sse.retry is not None:
                    facts["retry_ms"] = sse.retry
                if not sse.data:
                    # a priming event (SEP-1699): only a cursor to resume from, and maybe a retry interval
                    self.traffic.info(f"SSE event {sse.id or '(no id)'} without data", "sse", **facts)
                    continue
                frames += 1
                event = self.traffic.received(sse.data.encode("utf-8"), "sse", facts)
                if sse.event not in ("", "message"):
                    self.traffic.flag(
                        event, f"SSE event type {sse.event!r}; Streamable HTTP sends only 'message'"
                    )
                self._inbox.put(event)
                self._mark_answered(event.message)
                if answers(event.message, rid):
                    # leaving closes the stream: it is done
                    return StreamEnd(True, last_id, retry_ms, time.monotonic() - started, frames)
        except httpx.TransportError as exc:
            self.traffic.info(
                f"the {stream} event stream broke: {exc or type(exc).__name__}", "sse", stream=stream
            )
        return StreamEnd(False, last_id, retry_ms, time.monotonic() - started, frames)

    def _mark_answered(self, message: Message | None) -> None:
        rid = getattr(message, "id", None)
        if rid is not None and not isinstance(message, (Request, Notification)):
            waiter = self._waiting.get(rid)
            if waiter is not None:
                waiter.set()

    async def _resume(self, client: httpx.AsyncClient, ex: Exchange, end: StreamEnd) -> None:
        """A request's stream ended before its answer: GET with Last-Event-ID until the answer comes."""
        rid, doing = ex.rid, ex.doing
        assert rid is not None
        last_id, retry_ms = end.last_id, end.retry_ms
        attempts = Attempts(self._budget)
        attempts.ended(end.drop(None))
        waiter = self._waiting.get(rid)
        while waiter is None or not waiter.is_set():
            if last_id is None:
                raise ConnectError(
                    f"the server closed the event stream of {doing} before answering, and gave no event id "
                    "to resume it from",
                    url=self.url,
                )
            refusal = attempts.refusal()
            if refusal is not None:
                raise ConnectError(
                    f"the server ended the event stream of {doing} before its answer {len(attempts.drops)} "
                    f"times ({describe(attempts.drops)}); {refusal}",
                    url=self.url,
                    behaviour="resume-loop",
                )
            delay_ms = attempts.next_delay_ms(retry_ms)
            self.traffic.info(
                f"the event stream of {doing} ended before its answer; resuming in {delay_ms} ms with "
                f"Last-Event-ID {last_id}",
                "sse",
                event="resume",
                request_id=rid,
                last_event_id=last_id,
                delay_ms=delay_ms,
            )
            await asyncio.sleep(delay_ms / 1000)
            had_session = self.session_id
            headers = self._headers(STREAM_ACCEPT, last_event_id=last_id)
            async with client.stream("GET", self.url, headers=headers) as response:
                if response.status_code != 200:
                    resuming = Exchange(None, ex.method, f"resuming {doing}")
                    self._fail(response, await response.aread(), resuming, had_session, False)
                if not is_event_stream(response):
                    body = await response.aread()
                    record_reply(self.traffic, body, None, {"status": 200, "stream": "resume"})
                    raise unexpected_body_error(response, body, self.url, f"resuming {doing}")
                again = await self._read_events(response, rid, "resume")
            if again.answered:
                return
            attempts.ended(again.drop(last_id))
            last_id = again.last_id or last_id
            retry_ms = again.retry_ms if again.retry_ms is not None else retry_ms

    # -- the GET listening stream --------------------------------------------------------------------
    async def _listen(self) -> None:
        """Listen for what the server sends unprompted; reopen the stream when it drops."""
        settled = self._listen_settled
        try:
            await self._listen_until_done(settled)
        finally:
            if settled is not None:
                settled.set()

    async def _listen_until_done(self, settled: asyncio.Event | None) -> None:
        client = self._require_client()
        last_id: str | None = None
        retry_ms: int | None = None
        attempts = Attempts(self._budget)
        failure = ""
        while not self._closing:
            session = self.session_id
            opened = time.monotonic()
            try:
                async with client.stream(
                    "GET", self.url, headers=self._headers(STREAM_ACCEPT, last_event_id=last_id)
                ) as response:
                    status = response.status_code
                    if settled is not None:
                        settled.set()  # the server has answered: requests may go
                    if status != 200 or not is_event_stream(response):
                        await response.aread()
                        self._stop_listening(status, session, response)
                        return
                    self.listening, failure = True, ""
                    end = await self._read_events(response, None, "get")
                attempts.ended(end.drop(last_id))
                last_id = end.last_id or last_id
                retry_ms = end.retry_ms if end.retry_ms is not None else retry_ms
            except httpx.HTTPError as exc:
                failure = reach_error(exc, self.url, "").message
                attempts.ended(Drop(time.monotonic() - opened, 0, False, None))
            self.listening = False
            if self._closing:
                return
            refusal = attempts.refusal()
            if refusal is not None:
                what = (
                    f"failed: {failure}"
                    if failure
                    else f"was closed by the server ({describe(attempts.drops)})"
                )
                self.traffic.info(
                    f"stopped listening on the GET stream: it {what} {len(attempts.drops)} times; {refusal}",
                    "sse",
                    event="listen-stopped",
                )
                return
            delay_ms = attempts.next_delay_ms(retry_ms)
            self.traffic.info(
                f"the GET stream closed; reopening in {delay_ms} ms"
                + (f" with Last-Event-ID {last_id}" if last_id else ""),
                "sse",
                event="reconnect",
                last_event_id=last_id,
                delay_ms=delay_ms,
            )
            await asyncio.sleep(delay_ms / 1000)

    def _stop_listening(self, status: int, session: str | None, response: httpx.Response) -> None:
        self.listening = False
        if status == 405:
            text = "the server offers no GET stream (HTTP 405): it sends messages only in replies to POSTs"
        elif status == 404 and session is not None:
            text = f"the GET stream found session {session} gone (HTTP 404); the next request opens a new one"
        elif status == 200:
            kind = content_type(response) or "without a content type"
            text = f"the GET stream answered {kind}, not an event stream"
        else:
            text = f"the server refused the GET stream (HTTP {status} {response.reason_phrase})"
        self.traffic.info(text, "http", event="listen-refused", status=status)
