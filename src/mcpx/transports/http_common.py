"""What the two HTTP transports share: the httpx client behind a traffic tap (with mcpx's redirect and
cookie rules), its timeouts, the POST they send and how a reply is logged. The inbox their readers fill is
`inbox.py`; the errors a user reads, `http_errors.py`.
"""

from __future__ import annotations

import os
import urllib.request
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import httpx

from mcpx.__about__ import __version__
from mcpx.errors import (
    ConnectError,
    UsageError,
)
from mcpx.transports.tap import TrafficTap
from mcpx.wire import (
    Decoded,
    ErrorResponse,
    JsonId,
    Malformed,
    Message,
    Response,
    TrafficEvent,
    TrafficLog,
    decode,
)
from mcpx.wire.secret_policy import HARMLESS_HEADERS, mask_url

# Connecting gets a bound; reading does not, since an answer may wait on a tool that runs for minutes or on
# a human (the request's own timeout, kept by the peer, is the bound that matters there).
DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=None, write=30.0, pool=None)
# A POST that only hands a message over (a notification, an answer, anything on HTTP+SSE) should be
# accepted at once; a server that holds on to one must not hold up the caller.
HANDOVER_TIMEOUT = httpx.Timeout(connect=10.0, read=30.0, write=30.0, pool=30.0)
MAX_REDIRECTS = 5
JSON_TYPES = ("application/json",)


class Reply(Protocol):
    """What the transports read of a reply: httpx's `Response`, or `lean_post.LeanReply` (no httpx
    objects for a plain POST's reply)."""

    @property
    def status_code(self) -> int: ...

    @property
    def reason_phrase(self) -> str: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    async def aread(self) -> bytes: ...

    async def aclose(self) -> None: ...


#: `MCPX_ALLOW_CROSS_ORIGIN_REDIRECTS=1`: follow a POST redirected to another origin (without credentials)
ALLOW_CROSS_ORIGIN = "MCPX_ALLOW_CROSS_ORIGIN_REDIRECTS"
#: what a request to another origin than the one the user named may still carry
_PORTABLE_HEADERS = HARMLESS_HEADERS - {"mcp-session-id", "last-event-id"}


def client_for(
    url: str,
    traffic: TrafficLog,
    *,
    secret_headers: Iterable[str] = (),
    inner: httpx.AsyncBaseTransport | None = None,
    auth: httpx.Auth | None = None,
    timeout: httpx.Timeout = DEFAULT_TIMEOUT,
    cross_origin_redirects: bool | None = None,
) -> httpx.AsyncClient:
    """An httpx client whose every hop passes the traffic tap.

    httpx would route proxied URLs through transports of its own, past the tap, so the proxy is chosen
    here from the environment (HTTP(S)_PROXY, NO_PROXY) and given to the tapped transport instead.

    Redirects: httpx strips only Authorization (and re-builds Cookie) when a redirect leaves the origin, so
    a user's `X-Api-Key` and the POSTed body would follow. Here a request to any origin other than `url`'s
    carries only harmless headers, and a POST redirected to another origin is refused in one sentence
    unless `cross_origin_redirects` (default: `$MCPX_ALLOW_CROSS_ORIGIN_REDIRECTS`) says to follow it.
    """
    if inner is None:
        inner = default_transport(url)
    traffic.secrets.name_headers(secret_headers)
    if cross_origin_redirects is None:
        cross_origin_redirects = os.environ.get(ALLOW_CROSS_ORIGIN, "") not in ("", "0")
    home = _origin(httpx.URL(url))

    async def strip_for_other_origins(request: httpx.Request) -> None:
        if _origin(request.url) != home:
            for name in [n for n in request.headers if n.lower() not in _PORTABLE_HEADERS]:
                del request.headers[name]

    async def refuse_cross_origin_posts(response: httpx.Response) -> None:
        request = response.request
        if not response.has_redirect_location or request.method != "POST" or cross_origin_redirects:
            return
        target = request.url.join(response.headers["location"])
        if _origin(target) != _origin(request.url):
            raise ConnectError(
                f"{mask_url(str(request.url))} redirected a POST to another origin "
                f"({target.scheme}://{target.netloc.decode('ascii', 'replace')}), which mcpx does not "
                f"follow so that neither the request nor your credentials go there "
                f"(--allow-cross-origin-redirects or {ALLOW_CROSS_ORIGIN}=1 follows it, without credentials)",
                url=mask_url(str(request.url)),
                location=mask_url(str(target)),
            )

    return _Client(
        transport=TrafficTap(inner, traffic),
        auth=auth,
        timeout=timeout,
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        trust_env=False,
        headers={"User-Agent": f"mcpx/{__version__}"},
        event_hooks={"request": [strip_for_other_origins], "response": [refuse_cross_origin_posts]},
    )


class _Cookies(httpx.Cookies):
    """httpx's cookie jar, which looks at a response only when the response sets a cookie: httpx hands
    every response to it, and it wraps the response and its request in urllib objects (parsing the URL
    again, copying the headers) to find no Set-Cookie in an MCP server's answer — a third of httpx's
    client-side CPU per request. (`Set-Cookie2` is ignored either way: the jar's policy is RFC 6265's.)"""

    def extract_cookies(self, response: httpx.Response) -> None:
        for name, _ in response.headers.raw:
            if name.lower() == b"set-cookie":
                super().extract_cookies(response)
                return


class _Client(httpx.AsyncClient):
    """httpx's client with `_Cookies` for its jar."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._jar = _Cookies(options.get("cookies"))

    @property
    def cookies(self) -> httpx.Cookies:
        return self._jar

    @cookies.setter
    def cookies(self, cookies: Any) -> None:
        self._jar = _Cookies(cookies)


#: what `post_request` merged lately: (the client's header lines, the request's) -> the merged lines
_MERGED: dict[tuple[tuple[tuple[bytes, bytes], ...], ...], list[tuple[bytes, bytes]]] = {}
_SET_BY_HTTPX = frozenset({b"host", b"content-length", b"transfer-encoding", b"cookie"})


def post_request(
    client: httpx.AsyncClient, url: httpx.URL, content: bytes, headers: httpx.Headers, timeout: Any
) -> httpx.Request:
    """The request `client.build_request("POST", url, content=content, headers=headers, timeout=timeout)`
    makes, header for header, built without its merges: in a proxy's loop that call cost ~90 µs of CPU a
    POST (a sixth of a proxied message's), most of it in header look-ups that decode every header. The
    client's and the request's headers are merged once per distinct pair; a client with cookies, a base
    URL or query parameters, or headers that httpx would set itself, goes the usual way."""
    if client.cookies or client.params or str(client.base_url) or url.is_relative_url:
        return client.build_request("POST", url, content=content, headers=headers, timeout=timeout)
    key = (tuple(client.headers.raw), tuple(headers.raw))
    merged = _MERGED.get(key)
    if merged is None:
        both = httpx.Headers(client.headers)
        both.update(headers)
        merged = both.raw
        if any(name.lower() in _SET_BY_HTTPX for name, _ in merged):
            return client.build_request("POST", url, content=content, headers=headers, timeout=timeout)
        if len(_MERGED) > 64:
            _MERGED.clear()
        _MERGED[key] = merged
    request = httpx.Request(
        "POST",
        url,
        headers=[(b"Host", url.netloc), *merged, (b"Content-Length", b"%d" % len(content))],
        stream=httpx.ByteStream(content),
        extensions={"timeout": httpx.Timeout(timeout).as_dict()},
    )
    request.read()
    return request


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return (url.scheme, url.host, url.port or default)


def tapped_transport(
    url: str,
    traffic: TrafficLog,
    *,
    secret_headers: Iterable[str] = (),
    inner: httpx.AsyncBaseTransport | None = None,
) -> TrafficTap:
    """The tapped httpx transport `client_for` uses, for clients built elsewhere (the OAuth client)."""
    if inner is None:
        inner = default_transport(url)
    traffic.secrets.name_headers(secret_headers)
    return TrafficTap(inner, traffic)


def default_transport(url: str) -> httpx.AsyncBaseTransport:
    """The exchange under the tap: the lean HTTP/1.1 transport (`lean_http`: one write a request, llhttp's
    parsing, half a bare httpx loop's CPU a call), or httpx's own where an HTTP(S) proxy applies, or when
    `MCPX_HTTP_TRANSPORT=httpx` asks for it (a way back should a server need what only httpcore does)."""
    if os.environ.get("MCPX_HTTP_TRANSPORT", "") != "httpx":
        from mcpx.transports.lean_http import lean_transport_for

        lean = lean_transport_for(url)
        if lean is not None:
            return lean
    return httpx.AsyncHTTPTransport(proxy=_proxy_for(url), trust_env=True, retries=0)


def _proxy_for(url: str) -> str | None:
    parsed = httpx.URL(url)
    host = parsed.host
    if host in ("localhost", "127.0.0.1", "::1") or urllib.request.proxy_bypass(host):
        return None
    proxy: str | None = urllib.request.getproxies().get(parsed.scheme)
    return proxy


def check_url(url: str) -> str:
    """Raise `UsageError` in one sentence for a URL that cannot work."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise UsageError(f"{url!r} is not a valid URL: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise UsageError(f"{url!r} is not an http:// or https:// URL with a host")
    return url


def answers(message: Message | None, request_id: JsonId | None) -> bool:
    """Is `message` the answer (result, error or unreadable attempt at one) to `request_id`?"""
    if request_id is None or message is None:
        return False
    if isinstance(message, (Response, ErrorResponse, Malformed)):
        return message.id is not None and message.id == request_id and type(message.id) is type(request_id)
    return False


def record_reply(
    traffic: TrafficLog,
    body: bytes,
    request_id: JsonId | None,
    facts: dict[str, Any],
    why: str | None = None,
    *,
    expected: bool = False,
) -> TrafficEvent:
    """Log an HTTP body that came back as the answer to a POST, exactly as it came.

    A body that is not a JSON-RPC message (an HTML error page, `Method Not Allowed`) is still what the
    server answered to that request: it is logged as a malformed frame carrying the request's id, so the
    log pairs them and the request does not look unanswered. `expected` marks a refusal mcpx's own probe
    counts on (no Streamable HTTP endpoint here): logged the same, but not a problem of the server's.
    """
    decoded = decode(body)
    message = decoded.message
    if isinstance(message, Malformed) and message.id is None and request_id is not None:
        reason = f"{why}: {message.reason}" if why else message.reason
        decoded = Decoded(decoded.text, Malformed(reason, request_id, message.obj), decoded.flags)
    return traffic.received_decoded(decoded, "http", facts, malformed_is_problem=not expected)


def merged_headers(base: Mapping[str, str], user: Mapping[str, str]) -> httpx.Headers:
    """`base` then the user's headers on top: a debugger must be able to send anything it is told to.

    (As `Headers(dict(base))` and then `headers[name] = value` for each of the user's: a name the user
    sets replaces the base's in its place, in the user's spelling. Written out, as httpx's own way cost
    ~10 µs a POST: each look-up and assignment scans and decodes every header.)"""
    items = list(base.items())  # (an httpx.Headers gives lower-case names, repeated ones joined)
    where: dict[str, list[int]] = {}
    for i, (name, _) in enumerate(items):
        where.setdefault(name.lower(), []).append(i)
    pairs: list[tuple[str, str] | None] = list(items)
    for name, value in user.items():
        found = where.get(name.lower())
        if found is None:
            where[name.lower()] = [len(pairs)]
            pairs.append((name, value))
            continue
        pairs[found[0]] = (name, value)
        for i in found[1:]:  # (a plain dict may hold one name in two spellings: both go)
            pairs[i] = None
        del found[1:]
    return httpx.Headers([pair for pair in pairs if pair is not None])
