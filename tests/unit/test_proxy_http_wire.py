"""The proxy's HTTP/1.1 request parsing and answers (mcpx.proxy.http_wire), byte by byte."""

from __future__ import annotations

import pytest

from mcpx.proxy.http_wire import STREAM_END, BadRequest, RequestReader, chunk, response, stream_head

POST = (
    b"POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Type: application/json\r\n"
    b"X-Two: a\r\nx-two: b\r\nContent-Length: 8\r\n\r\n"
)


def test_requests_are_cut_as_they_become_whole_and_pipelined_ones_wait_their_turn() -> None:
    reader = RequestReader(max_body=1 << 20)
    whole = POST + b'{"id":1}' + b"\r\n" + POST.replace(b"POST", b"POST", 1) + b'{"id":2}'
    for byte in whole[: len(POST) + 3]:  # a byte at a time: nothing until the body is there
        reader.feed(bytes([byte]))
        assert reader.next() is None
    reader.feed(whole[len(POST) + 3 :])
    first, second = reader.next(), reader.next()
    assert first is not None and second is not None and reader.next() is None
    assert (first.method, first.target, first.body, first.close) == ("POST", "/mcp?x=1", b'{"id":1}', False)
    assert second.body == b'{"id":2}'  # after a blank line between the two, as RFC 9112 allows
    assert first.header("x-two") == "a, b" and first.header("content-type") == "application/json"
    assert first.header("origin") is None


def test_a_chunked_body_with_trailers_and_expect_100_continue() -> None:
    reader = RequestReader(max_body=1 << 20)
    head = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"
    reader.feed(head)
    assert reader.next() is None and reader.waits_for_continue()
    reader.continued = True
    assert not reader.waits_for_continue()
    reader.feed(b'3;ext=1\r\n{"i\r\n5\r\nd":1}\r\n0\r\nX-T: 1\r\n')
    assert reader.next() is None  # the trailers' end has not come
    reader.feed(b"\r\nGET / HTTP/1.0\r\n\r\n")
    posted = reader.next()
    assert posted is not None and posted.body == b'{"id":1}' and not reader.waits_for_continue()
    old = reader.next()
    assert old is not None and old.method == "GET" and old.close  # HTTP/1.0: closed after the answer


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"POST /mcp\r\n\r\n", 400),
        (b"POST /mcp HTTP/2\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nBad Header\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\n folded: x\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        (b"POST / HTTP/1.1\r\nContent-Length: 99999\r\n\r\n", 413),
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        (b"POST / HTTP/1.1\r\nX: " + b"a" * 70_000, 431),
    ],
)
def test_malformed_requests_are_refused_with_a_status(data: bytes, status: int) -> None:
    reader = RequestReader(max_body=1000)
    reader.feed(data)
    with pytest.raises(BadRequest) as refused:
        reader.next()
    assert refused.value.status == status


def test_answers() -> None:
    assert response(202) == b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
    assert response(200, b"{}", [("Mcp-Session-Id", "s")], content_type="application/json", close=True) == (
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\nMcp-Session-Id: s\r\n"
        b"Connection: close\r\n\r\n{}"
    )
    streamed = stream_head([]) + chunk(b"event: message\ndata: {}\n\n") + STREAM_END
    assert streamed.endswith(
        b"Transfer-Encoding: chunked\r\n\r\n19\r\nevent: message\ndata: {}\n\n\r\n0\r\n\r\n"
    )


def test_what_llhttp_parses_beyond_the_plain_request() -> None:
    reader = RequestReader(max_body=1000)
    # a method llhttp does not know keeps its name (`listen` answers it 405) and the connection goes on
    reader.feed(b"BREW /pot HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
    reader.feed(
        b"GET / HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nGET /next HTTP/1.1\r\n\r\n"
    )
    brewed, upgrade = reader.next(), reader.next()
    assert brewed is not None and (brewed.method, brewed.body, brewed.close) == ("BREW", b"hi", False)
    # an upgrade is not served: its request is answered, then the connection closes, nothing after is read
    assert upgrade is not None and upgrade.close and reader.next() is None and not reader.has_more()

    # an error comes after the whole requests before it; a head fed in small reads is still bounded
    reader = RequestReader(max_body=1000)
    reader.feed(POST + b'{"id":1}' + b"POST / HTTP/1.1\r\nX: " + b"a" * 1000)
    for _ in range(70):
        reader.feed(b"a" * 1000)
    assert reader.next() is not None
    with pytest.raises(BadRequest) as refused:
        reader.next()
    assert refused.value.status == 431

    # a chunked body is refused as soon as it passes the limit, not once it is whole
    reader = RequestReader(max_body=1000)
    reader.feed(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + b"x" * 1001)
    with pytest.raises(BadRequest) as refused:
        reader.next()
    assert refused.value.status == 413


@pytest.mark.parametrize("version", [b"", b" HTTP/2.0", b" HTTP/0.9"])
def test_only_http_1_is_served(version: bytes) -> None:
    reader = RequestReader(max_body=1000)
    reader.feed(b"GET /" + version + b"\r\n\r\n")
    with pytest.raises(BadRequest) as refused:
        reader.next()
    assert refused.value.status == 400
