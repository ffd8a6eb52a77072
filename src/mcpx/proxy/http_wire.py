"""HTTP/1.1 for the proxy's listening end, by hand: requests cut out of a connection's bytes, answers
written as bytes (`listen.py` uses it on an asyncio protocol).

h11 did this at ~100 µs of CPU a request on the benchmark machine, a tenth of what the proxy may add to
a message; this is the part of HTTP/1.1 a Streamable HTTP host uses, strictly parsed, at a few µs:
a request line and header fields (no obsolete line folding), a body by Content-Length or chunked
(trailers read and dropped), `Expect: 100-continue`, keep-alive unless `Connection: close` or HTTP/1.0,
and answers with a length or, for event streams, chunked. Anything else is a `BadRequest` with the
status to answer (and the connection is closed after it).
"""

from __future__ import annotations

from dataclasses import dataclass

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
STREAM_END = b"0\r\n\r\n"
_TOKEN = b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


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


@dataclass(slots=True)
class _Head:
    method: str
    target: str
    headers: list[tuple[str, str]]
    close: bool
    #: the body's length, or -1: chunked
    length: int
    expects_continue: bool
    size: int


class RequestReader:
    """Cuts requests out of a connection's bytes, one at a time, as they become whole."""

    def __init__(self, max_body: int) -> None:
        self.buffer = bytearray()
        self.max_body = max_body
        self._head: _Head | None = None
        #: `Expect: 100-continue` was answered for the request being read
        self.continued = False

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next(self) -> HttpRequest | None:
        """The next whole request, or None until more bytes come (raises `BadRequest`)."""
        head = self._head
        if head is None:
            head = self._head = self._read_head()
            if head is None:
                return None
        buffer = self.buffer
        if head.length >= 0:
            end = head.size + head.length
            if len(buffer) < end:
                return None
            body = bytes(buffer[head.size : end])
        else:
            found = _chunked(buffer, head.size, self.max_body)
            if found is None:
                return None
            body, end = found
        del buffer[:end]
        self._head = None
        self.continued = False
        return HttpRequest(head.method, head.target, head.headers, body, head.close)

    def waits_for_continue(self) -> bool:
        """A head that asked for `100 Continue` and has not had it (its client waits to send the body)."""
        return self._head is not None and self._head.expects_continue and not self.continued

    def _read_head(self) -> _Head | None:
        buffer = self.buffer
        while buffer[:2] == b"\r\n":  # blank lines between requests are allowed (RFC 9112 §2.2)
            del buffer[:2]
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(buffer) > MAX_HEAD:
                raise BadRequest(431, "the request's head is too long")
            return None
        lines = bytes(buffer[:end]).split(b"\r\n")
        parts = lines[0].split(b" ")
        if len(parts) != 3 or not parts[0] or not _is_token(parts[0]) or not parts[1]:
            raise BadRequest(400, "a malformed request line")
        version = parts[2]
        if version not in (b"HTTP/1.1", b"HTTP/1.0"):
            raise BadRequest(400, "not an HTTP/1.x request")
        headers: list[tuple[str, str]] = []
        length, chunked, close = 0, False, version == b"HTTP/1.0"
        lengths: set[int] = set()
        expects = False
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if not sep or not name or not _is_token(name):
                raise BadRequest(400, "a malformed header line")
            value = value.strip(b" \t")
            low = name.lower()
            if low == b"content-length":
                if not value.isdigit():
                    raise BadRequest(400, "a malformed Content-Length")
                lengths.add(int(value))
            elif low == b"transfer-encoding":
                if value.lower() != b"chunked":
                    raise BadRequest(501, "a transfer coding other than chunked")
                chunked = True
            elif low == b"connection":
                tokens = {t.strip() for t in value.lower().split(b",")}
                close = b"close" in tokens or (close and b"keep-alive" not in tokens)
            elif low == b"expect" and value.lower() == b"100-continue":
                expects = True
            headers.append((name.decode("latin-1"), value.decode("latin-1")))
        if len(lengths) > 1 or (chunked and lengths):
            raise BadRequest(400, "conflicting body lengths")
        if lengths:
            length = lengths.pop()
        if length > self.max_body:
            raise BadRequest(413, "the request's body is too large")
        return _Head(
            parts[0].decode("ascii"),
            parts[1].decode("latin-1"),
            headers,
            close,
            -1 if chunked else length,
            expects,
            end + 4,
        )


def _is_token(name: bytes) -> bool:
    return not name.translate(None, _TOKEN)  # (what is left once every token character is deleted)


def _chunked(buffer: bytearray, start: int, limit: int) -> tuple[bytes, int] | None:
    """A whole chunked body from `start` (with its trailers), and where it ends; None while incomplete."""
    parts: list[bytes] = []
    size_total = 0
    at = start
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            if len(buffer) - at > MAX_HEAD:
                raise BadRequest(400, "a chunk's size line is too long")
            return None
        size_text = bytes(buffer[at:line_end]).split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise BadRequest(400, "a malformed chunk size") from None
        if size == 0:  # then trailers (dropped) up to an empty line: the first CRLF CRLF from here
            trailers_end = buffer.find(b"\r\n\r\n", line_end)
            if trailers_end < 0:
                return None
            return b"".join(parts), trailers_end + 4
        size_total += size
        if size_total > limit:
            raise BadRequest(413, "the request's body is too large")
        data_start = line_end + 2
        if len(buffer) < data_start + size + 2:
            return None
        if buffer[data_start + size : data_start + size + 2] != b"\r\n":
            raise BadRequest(400, "a chunk without its CRLF")
        parts.append(bytes(buffer[data_start : data_start + size]))
        at = data_start + size + 2


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
