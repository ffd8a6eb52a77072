"""HTTP exchanges a check makes by hand: one POST (or DELETE) with headers bent on purpose, beside a
connection that is already open.

A probe goes through the connection's own httpx client, so it passes the traffic tap (its request and
response show in that connection's log as HTTP facts) and carries the user's `--header`s and credentials.
The JSON-RPC text it sends and the body that comes back are logged too, exactly as they crossed the wire,
so a finding points at `modern#41,42,43` like any other. A probe never raises: what went wrong is data.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from mcpx.check.model import ExchangeRef, Skip
from mcpx.check.session import Session
from mcpx.protocol.http_headers import message_headers
from mcpx.transports.http import POST_ACCEPT, HttpTransport
from mcpx.transports.http_common import merged_headers, record_reply
from mcpx.transports.http_errors import content_type
from mcpx.wire import ErrorResponse, JsonId, TrafficEvent, decode
from mcpx.wire.waiting import within

#: a host and an origin no local server should take as its own
FOREIGN_HOST = "evil.example.com"
FOREIGN_ORIGIN = f"http://{FOREIGN_HOST}"


@dataclass(slots=True)
class Probe:
    """One hand-made HTTP exchange and what came of it."""

    session: Session
    events: list[TrafficEvent] = field(default_factory=list)
    status: int | None = None
    headers: httpx.Headers = field(default_factory=httpx.Headers)
    kind: str = ""
    #: the JSON-RPC frames of the reply body (one for a JSON body, any number for an event stream)
    frames: list[Any] = field(default_factory=list)
    #: why no HTTP answer came (connection refused, timeout)
    failure: str | None = None

    @property
    def ref(self) -> ExchangeRef:
        return ExchangeRef(self.session.label, tuple(sorted({e.seq for e in self.events})))

    @property
    def error(self) -> dict[str, Any] | None:
        for frame in self.frames:
            error = frame.get("error") if isinstance(frame, dict) else None
            if isinstance(error, dict):
                return error
        return None

    @property
    def code(self) -> Any:
        return self.error.get("code") if self.error is not None else None

    @property
    def rejected(self) -> bool:
        return self.status is not None and 400 <= self.status < 500

    @property
    def answered(self) -> bool:
        """The server took the request: 2xx, and no JSON-RPC error (a result, or nothing to say)."""
        return self.status is not None and 200 <= self.status < 300 and self.error is None

    def describe(self) -> str:
        if self.failure is not None:
            return self.failure
        what = f"HTTP {self.status}"
        if self.error is not None:
            what += f" with error {self.error.get('code')!r} ({str(self.error.get('message', ''))[:80]})"
        elif any(isinstance(f, dict) and "result" in f for f in self.frames):
            what += " with a result"
        elif self.kind:
            what += f" ({self.kind})"
        return what


def http_of(session: Session) -> HttpTransport | None:
    """The session's Streamable HTTP transport (None: stdio, or the legacy HTTP+SSE transport)."""
    transport: Any = session.peer.transport
    chosen = getattr(transport, "chosen", None)
    if chosen is not None or hasattr(transport, "_http"):
        transport = chosen if chosen is not None else transport._http
    return transport if isinstance(transport, HttpTransport) else None


def require_http(session: Session) -> HttpTransport:
    transport = http_of(session)
    if transport is None:
        kind = session.peer.transport.name
        raise Skip(
            "applies to Streamable HTTP servers only"
            if kind != "sse"
            else "the server speaks the deprecated HTTP+SSE transport, not Streamable HTTP"
        )
    return transport


def request_text(method: str, params: Any, rid: JsonId) -> str:
    frame: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        frame["params"] = params
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def headers_for(session: Session, method: str | None, params: Any) -> dict[str, str]:
    """The headers mcpx itself sends with this message on this session (its era's, its session id)."""
    transport = require_http(session)
    headers = {"Accept": POST_ACCEPT, "Content-Type": "application/json"}
    if session.era == "modern":
        if method is None:
            headers["MCP-Protocol-Version"] = session.version
        else:
            headers.update(message_headers(session.version, method, params))
        return headers
    if transport.session_id is not None:
        headers["Mcp-Session-Id"] = transport.session_id
    if transport.protocol_version is not None:
        headers["MCP-Protocol-Version"] = transport.protocol_version
    return headers


async def probe(
    session: Session,
    body: str | None,
    headers: Mapping[str, str | None],
    *,
    verb: str = "POST",
    timeout: float = 10.0,
) -> Probe:
    """Send `body` with exactly these headers (the user's `--header`s beneath them; a None value leaves a
    header out) and log the exchange in the session's traffic log."""
    transport = require_http(session)
    client = transport._require_client()
    found = Probe(session)
    log = session.log
    collect = found.events.append

    def watch(event: TrafficEvent) -> None:
        if event.direction == "info" and event.channel == "http" and event.facts.get("method") == verb:
            collect(event)

    rid: JsonId | None = None
    sent_text = body
    wanted = {k: v for k, v in headers.items() if v is not None}
    merged = merged_headers({}, transport.headers)
    for name, value in wanted.items():
        merged[name] = value
    for name in [k for k, v in headers.items() if v is None]:
        merged.pop(name, None)
    unsubscribe = log.subscribe(watch)
    try:
        if sent_text is not None:
            decoded = decode(sent_text.encode("utf-8"))
            rid = getattr(decoded.message, "id", None)
            found.events.append(log.sent(sent_text, decoded.message, "http", {"probe": "mcpx check"}))
        content = sent_text.encode("utf-8") if sent_text is not None else None
        try:
            response = await within(
                client.request(verb, transport.url, content=content, headers=merged), timeout
            )
        except (httpx.HTTPError, asyncio.TimeoutError) as exc:
            found.failure = f"no HTTP answer ({type(exc).__name__}: {exc})".replace(": )", ")")
            return found
        found.status, found.headers, found.kind = (
            response.status_code,
            response.headers,
            content_type(response),
        )
        _take_body(found, response.content, rid)
    finally:
        unsubscribe()
    return found


def _take_body(found: Probe, body: bytes, rid: JsonId | None) -> None:
    log = found.session.log
    facts = {"status": found.status, "content_type": found.kind, "probe": "mcpx check"}
    if found.kind == "text/event-stream":
        for line in body.decode("utf-8", "replace").splitlines():
            if line.startswith("data:") and line[5:].strip():
                data = line[5:].strip().encode("utf-8")
                found.events.append(record_reply(log, data, rid, facts, f"HTTP {found.status} event"))
                found.frames.append(_parsed(data))
        return
    if not body.strip():
        return
    event = record_reply(log, body, rid, facts, f"HTTP {found.status} {found.kind or 'without a type'}")
    found.events.append(event)
    found.frames.append(
        _parsed(body) if isinstance(event.message, ErrorResponse) or body[:1] in b"{[" else None
    )


def _parsed(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None
