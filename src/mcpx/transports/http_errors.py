"""The one-sentence errors of the HTTP transports, for what a user hits: refused, DNS, timeouts, too many
redirects, 401/403 with the server's challenge, a 5xx, an HTML page where JSON was due."""

from __future__ import annotations

from typing import Any

import httpx

from mcpx.errors import (
    AuthRequiredError,
    ConnectError,
    McpxError,
    ProtocolError,
    ServerFailedError,
    UsageError,
)
from mcpx.transports.http_common import DEFAULT_TIMEOUT, MAX_REDIRECTS, Reply
from mcpx.wire import ErrorResponse, decode

PREVIEW_BYTES = 2048


def reach_error(exc: httpx.HTTPError, url: str, doing: str) -> McpxError:
    """An httpx failure as one sentence a user can act on."""
    while_doing = f" while {doing}" if doing else ""
    text = str(exc)
    if isinstance(exc, httpx.TooManyRedirects):
        return ConnectError(
            f"{url} redirected more than {MAX_REDIRECTS} times{while_doing}; mcpx stopped following"
        )
    if isinstance(exc, httpx.ConnectTimeout):
        return ConnectError(
            f"cannot reach {url}: no connection within {DEFAULT_TIMEOUT.connect:g} s", url=url
        )
    if isinstance(exc, httpx.TimeoutException):
        return ConnectError(f"{url} stopped answering{while_doing} (timed out)", url=url)
    if isinstance(exc, httpx.ConnectError):
        lowered = " ".join(str(cause) for cause in _causes(exc)).lower()
        if "refused" in lowered or any(isinstance(cause, ConnectionRefusedError) for cause in _causes(exc)):
            why = "connection refused (is the server running on that port?)"
        elif any(
            s in lowered
            for s in (
                "name or service not known",
                "nodename nor servname",
                "getaddrinfo",
                "name resolution",
                "no address associated",
            )
        ):
            why = f"the host name {httpx.URL(url).host!r} could not be resolved"
        else:
            why = text or type(exc).__name__
        return ConnectError(f"cannot reach {url}: {why}", url=url)
    if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
        return UsageError(f"cannot use {url}: {text}")
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return ConnectError(
            f"the connection to {url} broke{while_doing}: {text or type(exc).__name__}", url=url
        )
    return ConnectError(f"HTTP failure talking to {url}{while_doing}: {text or type(exc).__name__}", url=url)


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception and what caused it (httpcore and anyio wrap the OS error: "All connection attempts
    failed" hides a ConnectionRefusedError)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def content_type(response: Reply) -> str:
    kind: str = response.headers.get("content-type", "")
    return kind.partition(";")[0].strip().lower()


def preview(body: bytes, limit: int = PREVIEW_BYTES) -> str:
    text = body[:limit].decode("utf-8", "replace").strip()
    return text + ("…" if len(body) > limit else "")


def status_error(response: Reply, body: bytes, url: str, doing: str) -> McpxError:
    """The error for a non-2xx answer that carries no JSON-RPC answer to the request."""
    status = response.status_code
    while_doing = f" while {doing}" if doing else ""
    details: dict[str, Any] = {"status": status, "url": url}
    if status in (401, 403):
        challenge = response.headers.get("www-authenticate")
        what = "requires authorization" if status == 401 else "refused access"
        message = f"{url} {what} (HTTP {status}){while_doing}"
        message += (
            f"; it asks for: WWW-Authenticate: {challenge}" if challenge else "; it sent no WWW-Authenticate"
        )
        return AuthRequiredError(message, www_authenticate=challenge, **details)
    error = decode(body).message
    # a 5xx is the server failing, whatever it says; a 4xx with a JSON-RPC error is our request refused
    failed = ServerFailedError if status >= 500 else ProtocolError
    if isinstance(error, ErrorResponse):
        return failed(
            f"{url} answered HTTP {status}{while_doing}: {error.message} (JSON-RPC error {error.code})",
            rpc_code=error.code,
            data=error.data,
            **details,
        )
    kind = content_type(response) or "no content type"
    shown = preview(body)
    body_part = f" ({kind}): {shown}" if shown else f" ({kind}, empty body)"
    return ServerFailedError(
        f"{url} answered HTTP {status} {_reason(response)}{while_doing}{body_part}", **details
    )


def unexpected_body_error(response: Reply, body: bytes, url: str, doing: str) -> ProtocolError:
    kind = content_type(response) or "no content type"
    return ServerFailedError(
        f"{url} answered {doing} with HTTP {response.status_code} {kind}, which is neither JSON nor an event "
        f"stream; it begins: {preview(body, 200)!r}",
        status=response.status_code,
        content_type=kind,
        url=url,
    )


def _reason(response: Reply) -> str:
    return response.reason_phrase or ""
