"""An httpx tap: every HTTP exchange an HTTP transport makes, as facts in the traffic log.

The tap wraps the real httpx transport (taps, not patches: a test or a replay swaps the inner transport,
nothing is monkey-patched). It sits below httpx's redirect and auth handling, so each hop — a redirect, an
auth retry — shows as its own request/response pair. It never decodes or rewrites a body: it counts the
bytes of event streams as they pass and says when a stream closed and who closed it. The JSON-RPC frames
themselves are logged by the transports from the very bytes they read.

Secrets never reach the log in clear: Authorization, Proxy-Authorization, Cookie, Set-Cookie and any header
the user names as secret are masked (`Bearer ••••1a2b`), and so are OAuth secrets in URLs — the `code`
of an authorization redirect (in a URL or a `Location` header), verifiers, tokens, client secrets.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx

from mcpx.wire import TrafficLog

SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
#: query parameters (and form fields) whose values are secrets: OAuth codes, verifiers, tokens, secrets
SECRET_PARAMS = frozenset(
    {
        "code",
        "code_verifier",
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "token",
        "assertion",
        "client_assertion",
        "subject_token",
        "password",
    }
)
_MASK = "••••"
_SECRET_PARAM = re.compile(
    r"(?P<lead>[?&#]|^)(?P<name>"
    + "|".join(sorted(SECRET_PARAMS, key=len, reverse=True))
    + r")=(?P<value>[^&#\s]*)"
)


def mask_url(url: str) -> str:
    """A URL (or a form body) with the values of secret parameters masked: `?code=••••` ."""
    if "=" not in url:
        return url

    def masked(match: re.Match[str]) -> str:
        value = match.group("value")
        return f"{match.group('lead')}{match.group('name')}={mask_value(value) if value else ''}"

    return _SECRET_PARAM.sub(masked, url)


def mask_value(value: str) -> str:
    """`Bearer abcdef…1a2b` → `Bearer ••••1a2b`; short secrets show nothing of themselves."""
    scheme, sep, secret = value.partition(" ")
    if not sep or not scheme.isalpha():
        scheme, secret = "", value
    # four characters of a long secret help tell tokens apart; of a short one they give too much away
    tail = secret[-4:] if len(secret) >= 12 else ""
    return f"{scheme} {_MASK}{tail}" if scheme else f"{_MASK}{tail}"


def mask_headers(headers: httpx.Headers, secret: frozenset[str] = SECRET_HEADERS) -> dict[str, str]:
    """Headers as a plain dict (lower-case names, repeated headers joined) with secret values masked."""
    out: dict[str, str] = {}
    for name, value in headers.multi_items():
        shown = mask_value(value) if name in secret else mask_url(value) if name == "location" else value
        out[name] = f"{out[name]}, {shown}" if name in out else shown
    return out


def secret_names(extra: Iterable[str] = ()) -> frozenset[str]:
    return SECRET_HEADERS | {name.strip().lower() for name in extra}


def is_event_stream(response: httpx.Response) -> bool:
    kind: str = response.headers.get("content-type", "")
    return kind.partition(";")[0].strip().lower() == "text/event-stream"


class TrafficTap(httpx.AsyncBaseTransport):
    """Wrap `inner` and log each request, response (status, headers, timing) and event-stream close."""

    def __init__(
        self, inner: httpx.AsyncBaseTransport, traffic: TrafficLog, secret: frozenset[str] = SECRET_HEADERS
    ) -> None:
        self.inner = inner
        self.traffic = traffic
        self.secret = secret

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        method, url = request.method, mask_url(str(request.url))
        facts: dict[str, Any] = {
            "event": "http-request",
            "method": method,
            "url": url,
            "headers": mask_headers(request.headers, self.secret),
        }
        if isinstance(request.stream, httpx.ByteStream):
            # a redirected request has its body only as a stream (request.content would raise)
            facts["bytes"] = sum(len(chunk) for chunk in request.stream)
        self.traffic.info(f"{method} {url}", "http", **facts)
        started = time.monotonic()
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.HTTPError as exc:
            self.traffic.info(
                f"{method} {url} failed: {exc or type(exc).__name__}",
                "http",
                event="http-failed",
                method=method,
                url=url,
                error=type(exc).__name__,
            )
            raise
        elapsed_ms = round((time.monotonic() - started) * 1000, 1)
        reason = response.extensions.get("reason_phrase", b"")
        reason_text = reason.decode("ascii", "replace") if isinstance(reason, bytes) else str(reason)
        content_type = response.headers.get("content-type", "")
        streaming = is_event_stream(response)
        self.traffic.info(
            f"HTTP {response.status_code} {reason_text} for {method} {url}"
            + (f" ({content_type})" if content_type else ""),
            "http",
            event="http-response",
            method=method,
            url=url,
            status=response.status_code,
            headers=mask_headers(response.headers, self.secret),
            elapsed_ms=elapsed_ms,
            stream=streaming,
        )
        if not streaming:
            return response
        # an event stream lives on after this call returns: wrap its body to see it end
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_WatchedStream(response.stream, self.traffic, url, started),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


class _WatchedStream(httpx.AsyncByteStream):
    """An event stream's body, passed through untouched, counted, and reported when it closes."""

    def __init__(self, inner: httpx.AsyncByteStream, traffic: TrafficLog, url: str, started: float) -> None:
        self.inner = inner
        self.traffic = traffic
        self.url = url
        self.started = started
        self.bytes = 0
        self.ended_by_server = False
        self.error: str | None = None
        self.reported = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.inner:
                self.bytes += len(chunk)
                yield chunk
        except httpx.HTTPError as exc:
            self.error = str(exc) or type(exc).__name__
            raise
        self.ended_by_server = True

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            if not self.reported:
                self.reported = True
                if self.error is not None:
                    how = f"broke ({self.error})"
                elif self.ended_by_server:
                    how = "was closed by the server"
                else:
                    how = "was closed by mcpx"
                self.traffic.info(
                    f"event stream from {self.url} {how} after {self.bytes} bytes",
                    "sse",
                    event="stream-closed",
                    url=self.url,
                    bytes=self.bytes,
                    by="server" if self.ended_by_server else "mcpx",
                    error=self.error,
                    duration_ms=round((time.monotonic() - self.started) * 1000, 1),
                )
