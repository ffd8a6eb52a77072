"""An httpx tap: every HTTP exchange an HTTP transport makes, as facts in the traffic log.

The tap wraps the real httpx transport (taps, not patches: a test or a replay swaps the inner transport,
nothing is monkey-patched). It sits below httpx's redirect and auth handling, so each hop — a redirect, an
auth retry — shows as its own request/response pair. It never decodes or rewrites a body: it counts the
bytes of event streams as they pass and says when a stream closed and who closed it. The JSON-RPC frames
themselves are logged by the transports from the very bytes they read.

Secrets never reach the log's facts in clear: request headers are masked unless known to be harmless, and
Set-Cookie and the headers the user names as secret in responses (`Bearer ••••1a2b`); URLs lose their
userinfo and secret query values (the `code` of an authorization redirect, in a URL or a `Location`
header). Each masked request header value becomes a secret the session's policy knows, so a server that
echoes it back is masked too. The rules are `mcpx.wire.secret_policy`'s.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

from mcpx.wire import TrafficLog
from mcpx.wire.secret_policy import SecretPolicy, mask_url

__all__ = ["TrafficTap", "is_event_stream", "mask_url", "watched"]

#: header lines and URLs remembered as shown before the memory starts again
MEMO_LIMIT = 512


def is_event_stream(response: httpx.Response) -> bool:
    kind: str = response.headers.get("content-type", "")
    return kind.partition(";")[0].strip().lower() == "text/event-stream"


class TrafficTap(httpx.AsyncBaseTransport):
    """Wrap `inner` and log each request, response (status, headers, timing) and event-stream close."""

    def __init__(self, inner: httpx.AsyncBaseTransport, traffic: TrafficLog) -> None:
        self.inner = inner
        self.traffic = traffic
        # Headers and URLs as shown (masked), remembered while the policy stays as it was: a session POSTs
        # the same few headers and URL again and again, and passing each through the policy every time
        # (decoded, lowered, learned, masked) was most of the tap's cost per request.
        #: request headers (True) and response headers (False): a raw header line -> (name, value as shown)
        self._shown: dict[bool, dict[tuple[bytes, bytes], tuple[str, str]]] = {True: {}, False: {}}
        self._urls: dict[str, str] = {}
        self._generation: tuple[object, object] = (None, None)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        policy = self.traffic.secrets
        self._still_fresh(policy)
        method, raw_url = request.method, str(request.url)
        raw_headers = request.headers.raw
        url = self._urls.get(raw_url)
        if url is None or not self._shown[True].keys() >= set(raw_headers):
            # what this request carries (a token the OAuth flow just got, a custom header) is known before
            # anything is logged, so no view ever sees it echoed in clear
            policy.learn_headers(request.headers.multi_items())
            policy.learn_url(raw_url)
            self._still_fresh(policy)
            if len(self._urls) > MEMO_LIMIT:
                self._urls.clear()
            url = self._urls[raw_url] = policy.url(raw_url)
        facts: dict[str, Any] = {
            "event": "http-request",
            "method": method,
            "url": url,
            "headers": self._headers(request.headers, raw_headers, request=True),
        }
        if isinstance(request.stream, httpx.ByteStream):
            # a redirected request has its body only as a stream (request.content would raise)
            facts["bytes"] = sum(map(len, request.stream))
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
        streaming = content_type.partition(";")[0].strip().lower() == "text/event-stream"
        self._still_fresh(policy)
        self.traffic.info(
            f"HTTP {response.status_code} {reason_text} for {method} {url}"
            + (f" ({content_type})" if content_type else ""),
            "http",
            event="http-response",
            method=method,
            url=url,
            status=response.status_code,
            headers=self._headers(response.headers, response.headers.raw, request=False),
            elapsed_ms=elapsed_ms,
            stream=streaming,
        )
        if not streaming:
            return response
        return watched(response, self.traffic, url, started)

    def _still_fresh(self, policy: SecretPolicy) -> None:
        """Forget what was masked under an older policy (it may know more secrets now)."""
        ordered, named = policy.generation
        if ordered is not self._generation[0] or named is not self._generation[1]:
            self._shown[True].clear()
            self._shown[False].clear()
            self._urls.clear()
            self._generation = (ordered, named)

    def _headers(
        self, headers: httpx.Headers, raw: list[tuple[bytes, bytes]], *, request: bool
    ) -> dict[str, str]:
        """`policy.headers(headers.multi_items(), request=…)`, from memory where these headers were seen."""
        shown = self._shown[request]
        if not shown.keys() >= set(raw):  # (in C: any() over a generator resumes a frame per header)
            if len(shown) > MEMO_LIMIT:
                shown.clear()
            policy = self.traffic.secrets
            for pair, (name, value) in zip(raw, headers.multi_items(), strict=True):
                shown[pair] = (name, policy.header(name, value, request=request))
        out: dict[str, str] = {}
        for pair in raw:
            name, value = shown[pair]
            out[name] = f"{out[name]}, {value}" if name in out else value
        return out

    async def aclose(self) -> None:
        await self.inner.aclose()


def watched(response: httpx.Response, traffic: TrafficLog, url: str, started: float) -> httpx.Response:
    """An event stream's response whose body says when it ends (`stream-closed`): it lives on after the
    exchange that logged its head returns."""
    assert isinstance(response.stream, httpx.AsyncByteStream)
    return httpx.Response(
        status_code=response.status_code,
        headers=response.headers,
        stream=_WatchedStream(response.stream, traffic, url, started),
        extensions=response.extensions,
    )


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
