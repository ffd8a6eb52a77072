"""A Streamable HTTP POST over the lean transport without httpx's client: `mcpx proxy`'s upstream path.

`mcpx proxy` in front of an HTTP server makes one POST per message of the host's. Under `HttpTransport`
that POST went through httpx's client (the request built, the auth, redirect and cookie layers, the
response and its three async generators), the traffic tap and the lean transport (`lean_http`): about
60 % of the proxy's CPU a message, of which the lean exchange itself was a sixth. Here the same bytes go
out — the request line, `Host`, the client's and the POST's headers merged as httpx merges them,
`Content-Length`, the body, in one write — and the same facts go into the traffic log as the tap writes
(`http-request`, `http-response` with masked headers, `http-failed`, and `stream-closed` for an event
stream), with no httpx object made for a JSON or an empty reply.

Only a plain POST takes this way (`usable`): no `httpx.Auth` (an OAuth sign-in signs each request), no
cookie in the client's jar, no credentials in the URL, nothing httpx would add of its own. A reply that
redirects turns the way off for good and the POST is made again through httpx's client, which follows
the redirect by mcpx's rules (the log shows that first redirect twice); a reply that sets a cookie is
given to the client's jar, and the POSTs after it go httpx's way. An event stream is handed on as an
`httpx.Response` (its body read as it arrives, as the tap's), and so is a compressed body (httpx decodes
it), everything else as a `LeanReply`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

import httpx

from mcpx.transports.lean_connection import Connection
from mcpx.transports.lean_http import Body, LeanHttpTransport, origin_of
from mcpx.transports.tap import MEMO_LIMIT, watched
from mcpx.wire import TrafficLog

#: header names httpx sets itself on a request: a POST carrying one of them goes httpx's way
_SET_BY_HTTPX = frozenset({b"host", b"content-length", b"transfer-encoding", b"cookie"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class ReplyHeaders(Mapping[str, str]):
    """A response's header lines as httpx's `Headers` reads them: by case-insensitive name, a repeated
    header's values joined with `, `."""

    __slots__ = ("_by_name", "raw")

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self.raw = raw
        self._by_name: dict[str, str] | None = None

    def _names(self) -> dict[str, str]:
        by_name = self._by_name
        if by_name is None:
            by_name = self._by_name = {}
            for key, value in self.raw:
                name, text = _text(key).lower(), _text(value)
                by_name[name] = f"{by_name[name]}, {text}" if name in by_name else text
        return by_name

    def __getitem__(self, name: str) -> str:
        return self._names()[name.lower()]

    def get(self, name: str, default: Any = None) -> Any:  # (Mapping's goes through a KeyError)
        return self._names().get(name.lower(), default)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


class LeanReply:
    """The reply to a POST, read as `HttpTransport` reads one (status, headers, the whole body)."""

    def __init__(
        self,
        owner: LeanHttpTransport,
        origin: tuple[str, str, int],
        connection: Connection,
        status: int,
        reason: bytes,
        raw: list[tuple[bytes, bytes]],
        timeout: float | None,
    ) -> None:
        self.status_code = status
        self.reason = reason
        #: as httpx's `Response.reason_phrase` reads the lean transport's
        self.reason_phrase = reason.decode("ascii", "ignore")
        self.headers = ReplyHeaders(raw)
        self._body = Body(owner, origin, connection, None, timeout)
        self._content: bytes | None = None

    async def aread(self) -> bytes:
        if self._content is None:
            connection = self._body.connection
            if connection.complete:  # (the usual reply: its body came with its head, in one read)
                self._content = connection.take() if connection.body else b""
                self._body.done = True
            else:
                self._content = b"".join([chunk async for chunk in self._body])
        return self._content

    async def aclose(self) -> None:
        await self._body.aclose()


class LeanPost:
    """POSTs to one URL the lean way, logged as the tap logs them (see the module's docstring)."""

    def __init__(self, lean: LeanHttpTransport, traffic: TrafficLog, url: httpx.URL) -> None:
        self.lean = lean
        self.traffic = traffic
        self.url = url
        self.origin = origin_of(url)
        self.raw_url = str(url)
        #: False once a reply redirected: every later POST goes through httpx's client
        self.on = not url.userinfo and not url.is_relative_url
        self._client_checked: httpx.AsyncClient | None = None
        #: (the client's header lines, the POST's) -> the request's head up to its Content-Length value
        #: and the names and values as the tap decodes them (None: httpx's way)
        self._heads: dict[object, tuple[bytes, list[tuple[str, str]]] | None] = {}
        #: the last POST's headers and client (by identity: `HttpTransport` hands the same unchanged
        #: objects on while its session, version and headers stay) and their key in `_heads`
        self._last: tuple[object, object, object] = (None, None, None)
        #: (url as shown, header lines as shown) by the POST's header lines, under one secret policy
        self._shown: dict[object, tuple[str, dict[str, str]]] = {}
        #: header lines as shown: the request's (True: its Content-Length) and the replies' (False)
        self._lines: dict[bool, dict[tuple[bytes, bytes], tuple[str, str]]] = {True: {}, False: {}}
        self._generation: tuple[object, object] = (None, None)

    def usable(self, client: httpx.AsyncClient, auth: httpx.Auth | None) -> bool:
        if not self.on or auth is not None or client.cookies:
            return False
        if self._client_checked is not client:  # (a client's base URL and params do not change)
            if client.params or str(client.base_url) or client.auth is not None:
                return False
            self._client_checked = client
        return True

    async def post(
        self, client: httpx.AsyncClient, content: bytes, headers: httpx.Headers, timeout: httpx.Timeout
    ) -> LeanReply | httpx.Response | None:
        """POST `content` and read the reply's head; None when this POST must go httpx's way (it has not
        been sent then, or it was redirected: see the module's docstring)."""
        if headers is self._last[0] and client is self._last[1]:  # (`HttpTransport`'s cached headers)
            key = self._last[2]
        else:
            key = (tuple(client.headers.raw), tuple(headers.raw))
            self._last = (headers, client, key)
        if key in self._heads:
            head = self._heads[key]
        else:
            if len(self._heads) > MEMO_LIMIT:
                self._heads.clear()
            head = self._heads[key] = self._head(client, headers)
        if head is None:
            return None
        prefix, lines = head
        url, shown = self._request_shown(key, lines)
        traffic = self.traffic
        length = b"%d" % len(content)
        facts = dict(shown)
        facts["content-length"] = self._reply_line((b"content-length", length), request=True)[1]
        traffic.info(
            f"POST {url}", "http", event="http-request", method="POST", url=url, headers=facts,
            bytes=len(content),
        )  # fmt: skip
        started = time.monotonic()
        data = b"%s%s\r\n\r\n%s" % (prefix, length, content)
        try:
            connection, status, reason, raw = await self.lean.exchange(
                self.origin, data, timeout.connect, timeout.read
            )
        except httpx.HTTPError as exc:
            traffic.info(
                f"POST {url} failed: {exc or type(exc).__name__}", "http", event="http-failed",
                method="POST", url=url, error=type(exc).__name__,
            )  # fmt: skip
            raise
        elapsed_ms = round((time.monotonic() - started) * 1000, 1)
        reply = LeanReply(self.lean, self.origin, connection, status, reason, raw, timeout.read)
        kind = reply.headers.get("content-type", "")
        streaming = kind.partition(";")[0].strip().lower() == "text/event-stream"
        traffic.info(
            f"HTTP {status} {reason.decode('ascii', 'replace')} for POST {url}"
            + (f" ({kind})" if kind else ""),
            "http", event="http-response", method="POST", url=url, status=status,
            headers=self._reply_shown(raw), elapsed_ms=elapsed_ms, stream=streaming,
        )  # fmt: skip
        if status in _REDIRECTS and "location" in reply.headers:
            # httpx's client follows it by mcpx's rules (`http_common.client_for`): this POST is made
            # again that way (a redirect is a refusal to take it here), and every later one too
            self.on = False
            await reply.aclose()
            return None
        if any(name.lower() == b"set-cookie" for name, _ in raw):
            client.cookies.extract_cookies(self._as_httpx(reply, raw, None, headers, content))
        if streaming:
            return watched(self._as_httpx(reply, raw, reply._body, headers, content), traffic, url, started)
        if reply.headers.get("content-encoding", "identity").strip().lower() != "identity":
            # a compressed body (the client asks for gzip, as httpx's does): httpx's response decodes it
            return self._as_httpx(reply, raw, reply._body, headers, content)
        return reply

    def _head(
        self, client: httpx.AsyncClient, headers: httpx.Headers
    ) -> tuple[bytes, list[tuple[str, str]]] | None:
        both = httpx.Headers(client.headers)
        both.update(headers)
        if any(name.lower() in _SET_BY_HTTPX for name, _ in both.raw):
            return None
        url = self.url
        lines = [(b"Host", url.netloc), *both.raw]
        out = [b"POST ", url.raw_path, b" HTTP/1.1\r\n"]
        for name, value in lines:
            out += (name, b": ", value, b"\r\n")
        out.append(b"Content-Length: ")
        # as the tap reads them (httpx's Headers: lower-case names, values in its encoding)
        request = httpx.Headers([*lines, (b"Content-Length", b"0")])
        return b"".join(out), request.multi_items()[:-1]

    def _fresh(self) -> None:
        """Forget what was masked under an older policy (it may know more secrets now)."""
        generation = self.traffic.secrets.generation
        if generation[0] is not self._generation[0] or generation[1] is not self._generation[1]:
            self._shown.clear()
            self._lines[True].clear()
            self._lines[False].clear()
            self._generation = generation

    def _request_shown(self, key: object, lines: list[tuple[str, str]]) -> tuple[str, dict[str, str]]:
        self._fresh()
        shown = self._shown.get(key)
        if shown is not None:
            return shown
        policy = self.traffic.secrets
        # what the request carries is known before anything is logged, so no view sees it echoed in clear
        policy.learn_headers(lines)
        policy.learn_url(self.raw_url)
        self._fresh()
        out: dict[str, str] = {}
        for name, value in lines:
            value = policy.header(name, value, request=True)
            out[name] = f"{out[name]}, {value}" if name in out else value
        if len(self._shown) > MEMO_LIMIT:
            self._shown.clear()
        shown = self._shown[key] = (policy.url(self.raw_url), out)
        return shown

    def _reply_shown(self, raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
        self._fresh()
        out: dict[str, str] = {}
        for line in raw:
            name, value = self._reply_line(line)
            out[name] = f"{out[name]}, {value}" if name in out else value
        return out

    def _reply_line(self, line: tuple[bytes, bytes], *, request: bool = False) -> tuple[str, str]:
        """A header line as shown (name lower-cased, value masked), from memory while the policy holds."""
        memo = self._lines[request]
        shown = memo.get(line)
        if shown is None:
            if len(memo) > MEMO_LIMIT:
                memo.clear()
            name = _text(line[0]).lower()
            shown = memo[line] = (name, self.traffic.secrets.header(name, _text(line[1]), request=request))
        return shown

    def _as_httpx(
        self,
        reply: LeanReply,
        raw: list[tuple[bytes, bytes]],
        stream: Body | None,
        headers: httpx.Headers,
        content: bytes,
    ) -> httpx.Response:
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1", "reason_phrase": reply.reason}
        response = httpx.Response(reply.status_code, headers=raw, stream=stream, extensions=extensions)
        response.request = httpx.Request("POST", self.url, headers=headers, content=content)
        return response


def _text(value: bytes) -> str:
    try:
        return value.decode("ascii")
    except UnicodeDecodeError:
        return value.decode("utf-8", "replace") if _utf8(value) else value.decode("latin-1")


def _utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
