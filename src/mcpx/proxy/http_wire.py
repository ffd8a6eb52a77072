"""HTTP/1.1 for the proxy's listening end: requests parsed out of a connection's bytes by llhttp
(`httptools`), answers written as bytes here (formatting, not parsing; `http_conn` uses both on an asyncio
protocol).

h11 did this at ~100 µs of CPU a request on the benchmark machine, a tenth of what the proxy may add to
a message; llhttp (Node's parser, uvicorn's) does it at ~2 µs, strictly: a request line and header fields
(no obsolete line folding), a body by Content-Length or chunked (trailers dropped), `Expect:
100-continue`, keep-alive unless `Connection: close` or HTTP/1.0. What the proxy does not serve (another
transfer coding, an upgrade, HTTP/0.9 or 2) and what llhttp refuses is a `BadRequest` with the status to
answer (and the connection is closed after it).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import httptools

MAX_HEAD = 1 << 16
REASONS = {
    100: b"Continue",
    200: b"OK",
    202: b"Accepted",
    400: b"Bad Request",
    403: b"Forbidden",
    404: b"Not Found",
    405: b"Method Not Allowed",
    409: b"Conflict",
    411: b"Length Required",
    413: b"Content Too Large",
    431: b"Request Header Fields Too Large",
    501: b"Not Implemented",
}
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
#: the lengths of the header names the reader looks at: Content-Length, Transfer-Encoding, Expect
_WATCHED = frozenset((14, 17, 6))
_TOKEN = b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
STREAM_END = b"0\r\n\r\n"


class BadRequest(Exception):
    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status


@dataclass(slots=True)
class HttpRequest:
    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes
    #: the connection ends after the answer (`Connection: close`, or an HTTP/1.0 client's)
    close: bool

    def header(self, name: str) -> str | None:
        """A header's value (a repeated one joined with `, `), by its case-insensitive name."""
        values = [value for key, value in self.headers if key.lower() == name]
        return ", ".join(values) if values else None


class RequestReader:
    """Requests out of a connection's bytes, parsed by llhttp as they come and handed out whole, in order.

    A parse error is kept and raised (as `BadRequest`) once the requests before it have been handed out;
    nothing is parsed after it, nor after a protocol upgrade (the request that asked for it is answered,
    then the connection closes: none is served here)."""

    def __init__(self, max_body: int) -> None:
        self.max_body = max_body
        self.parser = httptools.HttpRequestParser(self)
        self.ready: deque[HttpRequest] = deque()
        #: bytes held (bodies, targets and header fields): of the requests ready and of the one being read
        self.pending = 0
        self.weights: deque[int] = deque()
        self.error: BadRequest | None = None
        self.stopped = False
        #: `Expect: 100-continue` was answered for the request being read
        self.continued = False
        # -- the request being read --
        self.head_bytes = 0
        self.head_done = False
        self.url: list[bytes] = []
        self.headers: list[tuple[str, str]] = []
        self.body: list[bytes] = []
        self.size = 0
        self.expects = False
        self.in_message = False
        self.completed = 0
        #: the method of a request parsed as a POST (`feed`)
        self.method: str | None = None

    def feed(self, data: bytes) -> None:
        if self.stopped:
            return
        fed, idle, completed = self.pending, not self.in_message, self.completed
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserInvalidMethodError:
            # a method llhttp does not know (it knows the RFCs' and WebDAV's) is still a request: when it
            # opens this read, it is parsed as a POST and keeps its own name, so `listen` answers it
            # (405) and the connection goes on
            known = _as_post(data) if idle and self.completed == completed else None
            if known is None:
                self._refuse(BadRequest(400, "a malformed request method"))
                return
            self.parser = httptools.HttpRequestParser(self)
            self.method, data = known
            self.feed(data)
            return
        except httptools.HttpParserUpgrade:
            self.stopped = True
            if self.head_done or not self.ready:  # (an upgrade with a body: not served either)
                self._refuse(BadRequest(501, "a protocol upgrade"))
            else:
                self.ready[-1].close = True
            return
        except httptools.HttpParserCallbackError as exc:
            context = exc.__context__
            self._refuse(context if isinstance(context, BadRequest) else BadRequest(400, str(context)))
            return
        except httptools.HttpParserError as exc:
            self._refuse(BadRequest(400, f"a malformed request: {exc}"))
            return
        if not self.head_done:
            # a head still coming: what this read brought, less its body bytes (heads of whole requests
            # before it in the same read count too: a slight overcount, on the safe side)
            self.head_bytes += len(data) - max(0, self.pending - fed)
            if self.head_bytes > MAX_HEAD:
                self._refuse(BadRequest(431, "the request's head is too long"))

    def next(self) -> HttpRequest | None:
        """The next whole request, or None until more bytes come (raises `BadRequest`)."""
        if self.ready:
            self.pending -= self.weights.popleft()
            return self.ready.popleft()
        if self.error is not None:
            raise self.error
        return None

    def has_more(self) -> bool:
        """Something for `next` now: a whole request, or the error to answer."""
        return bool(self.ready) or self.error is not None

    def waits_for_continue(self) -> bool:
        """A head that asked for `100 Continue` and has not had it (its client waits to send the body)."""
        return self.head_done and self.expects and not self.continued and self.error is None

    def _refuse(self, error: BadRequest) -> None:
        self.error = error
        self.stopped = True

    # -- httptools' callbacks ------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self.in_message = True
        self.head_bytes = 0
        self.url, self.headers, self.body, self.size, self.expects = [], [], [], 0, False
        self.head_size = 0

    def on_url(self, url: bytes) -> None:
        self.url.append(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        value = value.strip(b" \t")  # (llhttp drops the whitespace before a value, not after)
        self.head_size += len(name) + len(value) + 4
        if len(name) in _WATCHED:  # (a length first: most fields are none of these, and cheaper to pass)
            low = name.lower()
            if low == b"content-length":
                if int(value) > self.max_body:  # (llhttp has checked its digits)
                    raise BadRequest(413, "the request's body is too large")
            elif low == b"transfer-encoding":
                if value.lower() != b"chunked":
                    raise BadRequest(501, "a transfer coding other than chunked")
            elif low == b"expect" and value.lower() == b"100-continue":
                self.expects = True
        self.headers.append((name.decode("latin-1"), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        if self.parser.get_http_version() not in ("1.1", "1.0"):
            raise BadRequest(400, "not an HTTP/1.x request")
        self.head_done = True

    def on_body(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.max_body:
            raise BadRequest(413, "the request's body is too large")
        self.body.append(data)
        self.pending += len(data)

    def on_message_complete(self) -> None:
        body = self.body[0] if len(self.body) == 1 else b"".join(self.body)
        target = self.url[0] if len(self.url) == 1 else b"".join(self.url)
        method = self.method or self.parser.get_method().decode("ascii")
        self.method = None
        close = not self.parser.should_keep_alive()
        self.ready.append(HttpRequest(method, target.decode("latin-1"), self.headers, body, close))
        # (a head counts as held once whole: a host pipelining many small requests is paused too)
        head = len(target) + self.head_size
        self.pending += head
        self.weights.append(self.size + head)
        self.head_done = self.in_message = False
        self.continued = False
        self.completed += 1


def _as_post(data: bytes) -> tuple[str, bytes] | None:
    """A request that opens with an unknown method, as a POST, and its method; None if it is no token."""
    data = data.lstrip(b"\r\n")
    space = data.find(b" ")
    method = data[:space]
    if space <= 0 or method.translate(None, _TOKEN):  # (what is left once the token characters go)
        return None
    return method.decode("ascii"), b"POST" + data[space:]


def response(
    status: int,
    body: bytes = b"",
    headers: list[tuple[str, str]] | None = None,
    *,
    content_type: str | None = None,
    close: bool = False,
) -> bytes:
    """A whole answer with its length."""
    head = [b"HTTP/1.1 %d %s\r\n" % (status, REASONS.get(status, b"")), b"Content-Length: %d\r\n" % len(body)]
    if content_type is not None:
        head.append(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n")
    for name, value in headers or ():
        head.append(f"{name}: {value}\r\n".encode("latin-1"))
    if close:
        head.append(b"Connection: close\r\n")
    head.append(b"\r\n")
    return b"".join(head) + body


def stream_head(headers: list[tuple[str, str]], *, close: bool = False) -> bytes:
    """The head of an event stream, whose body goes in chunks (`chunk`, then `STREAM_END`)."""
    head = [
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        b"Transfer-Encoding: chunked\r\n"
    ]
    for name, value in headers:
        head.append(f"{name}: {value}\r\n".encode("latin-1"))
    if close:
        head.append(b"Connection: close\r\n")
    head.append(b"\r\n")
    return b"".join(head)


def chunk(data: bytes) -> bytes:
    return b"%x\r\n" % len(data) + data + b"\r\n"
