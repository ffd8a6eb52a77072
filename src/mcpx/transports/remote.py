"""Which HTTP transport a URL gets: `--transport http`, `sse`, or `auto`, which probes.

`auto` follows the spec's backwards-compatibility section: the first message (initialize) is POSTed as
Streamable HTTP; if that POST is answered 404 or 405, or 400 with a body that is not a JSON-RPC error, the
server has no Streamable HTTP endpoint there, so mcpx GETs the same URL and waits for an HTTP+SSE
`endpoint` event. Which transport was found, and why, goes into the traffic log.

A handshake-free probe (`server/discover`, 2026-07-28) that meets 404 or 405 is not yet a reason to leave
Streamable HTTP: the refusal goes to the era, which falls back to `initialize` over the same POSTs, and
only a refused `initialize` leads to HTTP+SSE (the spec's order: modern, handshake, then HTTP+SSE).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from mcpx.errors import AuthRequiredError, ConnectError, McpxError, UsageError
from mcpx.transports.base import (
    HeaderMirroring,
    HeaderPassing,
    HeadersFor,
    PassedFor,
    ProtocolVersionAware,
    Transport,
)
from mcpx.transports.http import HttpTransport, NoStreamableHttpError
from mcpx.transports.http_common import check_url
from mcpx.transports.sse import SseTransport
from mcpx.wire import Message, Request, TrafficEvent, TrafficLog


def open_url(
    url: str, transport: str, secret_headers: Sequence[str], traffic: TrafficLog, **options: Any
) -> Transport:
    """The transport for a URL (not started). `options` go to the transports (headers, auth,
    http_transport)."""
    url = check_url(url)
    common: dict[str, Any] = {"traffic": traffic, "secret_headers": tuple(secret_headers), **options}
    if transport == "http":
        return HttpTransport(url, **common)
    if transport == "sse":
        return SseTransport(url, **common)
    if transport == "auto":
        return AutoTransport(url, **common)
    raise UsageError(f"{url} is a URL: use --transport http, sse or auto, not {transport}")


class AutoTransport:
    """Streamable HTTP, or HTTP+SSE when the first POST shows there is no Streamable HTTP endpoint."""

    send_streams_answer = True

    def __init__(self, url: str, *, traffic: TrafficLog, **options: Any) -> None:
        self.url = url
        self.traffic = traffic
        self._options = options
        self._http = HttpTransport(url, traffic=traffic, **options)
        self.chosen: Transport | None = None
        #: "auto" until the first POST decides, then "http" or "sse"
        self.name = "auto"
        self._decided = asyncio.Event()
        self._closed = False
        self._mirror: HeadersFor | None = None
        self._passing: PassedFor | None = None

    async def start(self) -> None:
        """Start the chosen transport (again, after a close), or get ready to probe."""
        self._closed = False
        if self.chosen is not None:
            await self.chosen.start()
        else:
            self._decided.clear()
            await self._http.start()

    async def send(self, text: str, message: Message) -> TrafficEvent:
        if self.chosen is not None:
            return await self.chosen.send(text, message)
        try:
            event = await self._http.send(text, message)
        except NoStreamableHttpError as refused:
            # 404/405 say no endpoint takes POSTs here. A 400 is ambiguous — a Streamable HTTP server may
            # refuse a probe that way — so, as the spec words it, only a refused initialize counts. A
            # handshake-free message is never the last word: the era tries the handshake next.
            is_handshake = isinstance(message, Request) and message.method == "initialize"
            handshake_free = self._mirror is not None and self._mirror(message) is not None
            if not handshake_free and (refused.status in (404, 405) or is_handshake):
                return await self._fall_back(refused, text, message)
            raise
        self._choose(self._http, "the server answered a POST as Streamable HTTP")
        return event

    async def _fall_back(self, refused: NoStreamableHttpError, text: str, message: Message) -> TrafficEvent:
        self.traffic.info(
            f"{self.url} answered the first POST with HTTP {refused.status}: no Streamable HTTP there; "
            "trying the legacy HTTP+SSE transport (GET, waiting for an endpoint event)",
            "http",
            event="transport-fallback",
            status=refused.status,
        )
        await self._http.close()
        sse = SseTransport(self.url, traffic=self.traffic, **self._options)
        sse.pass_headers(self._passing)
        try:
            await sse.start()
        except AuthRequiredError:
            raise
        except McpxError as exc:
            raise ConnectError(
                f"{self.url} speaks neither Streamable HTTP (POST answered HTTP {refused.status}) nor "
                f"HTTP+SSE ({exc.message})",
                url=self.url,
            ) from None
        self._choose(sse, "it sent an HTTP+SSE endpoint event")
        return await sse.send(text, message)

    def _choose(self, transport: Transport, why: str) -> None:
        self.chosen = transport
        self.name = transport.name
        self.traffic.info(
            f"transport: {'Streamable HTTP' if transport.name == 'http' else 'HTTP+SSE'} ({why})",
            "http",
            event="transport-chosen",
            transport=transport.name,
        )
        self._decided.set()

    def receive_with(self, sink: Callable[[TrafficEvent], None] | None) -> None:
        """Streamable HTTP hands its events to `sink` as they are read; HTTP+SSE, if chosen, still queues
        them for the iterator."""
        self._http.receive_with(sink)

    def set_protocol_version(self, version: str) -> None:
        # before the first POST has returned, only Streamable HTTP can have answered (a reader handed the
        # handshake's answer over while that POST still ran)
        target = self.chosen or self._http
        if isinstance(target, ProtocolVersionAware):
            target.set_protocol_version(version)

    def mirror_headers(self, headers_for: HeadersFor | None) -> None:
        self._mirror = headers_for
        self._http.mirror_headers(headers_for)
        if isinstance(self.chosen, HeaderMirroring):
            self.chosen.mirror_headers(headers_for)

    def pass_headers(self, headers_for: PassedFor | None) -> None:
        self._passing = headers_for
        self._http.pass_headers(headers_for)
        if isinstance(self.chosen, HeaderPassing):
            self.chosen.pass_headers(headers_for)

    async def __aiter__(self) -> AsyncIterator[TrafficEvent]:
        await self._decided.wait()
        if self.chosen is None:
            return
        async for event in self.chosen:
            yield event

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.chosen is not None:
            await self.chosen.close()
        else:
            await self._http.close()
        self._decided.set()

    def describe(self) -> dict[str, object]:
        facts = (self.chosen or self._http).describe()
        return {**facts, "chosen_by": "auto", "transport": self.name}

    def ended_error(self, doing: str) -> McpxError:
        return (self.chosen or self._http).ended_error(doing)
