"""The httpx tap and the small HTTP helpers: masking, facts, URL checks, reading errors."""

from __future__ import annotations

import httpx
import pytest

from mcpx.errors import UsageError
from mcpx.target import ServerSpec
from mcpx.transports import open_transport
from mcpx.transports.http_common import answers, check_url, merged_headers
from mcpx.transports.http_errors import reach_error
from mcpx.transports.inbox import Inbox
from mcpx.transports.tap import TrafficTap
from mcpx.wire import ErrorResponse, Notification, Response, TrafficLog
from mcpx.wire.secret_policy import SecretPolicy, mask


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("Bearer abcdefghijklmnop1a2b", "Bearer ••••1a2b"),
        ("Bearer short", "Bearer ••••"),
        ("sessionid=0123456789abcdef", "••••cdef"),
        ("", "••••"),
    ],
)
def test_mask_value(value: str, shown: str) -> None:
    assert mask(value) == shown


def test_mask_headers_covers_the_usual_secrets_and_named_ones() -> None:
    headers = httpx.Headers(
        [
            ("Authorization", "Bearer abcdefghijklmnop1a2b"),
            ("Cookie", "a=1"),
            ("X-Api-Key", "key-0123456789abcd"),
            ("X-Plain", "visible"),
        ]
    )
    masked = SecretPolicy(secret_headers=["X-Api-Key"]).headers(headers.multi_items(), request=False)
    assert masked == {
        "authorization": "Bearer ••••1a2b",
        "cookie": "••••",
        "x-api-key": "••••abcd",
        "x-plain": "visible",
    }
    # sent by mcpx, every header not known to be harmless is masked
    sent = SecretPolicy().headers(headers.multi_items(), request=True)
    assert sent["x-plain"] == "••••" and sent["x-api-key"] == "••••abcd"


async def test_tap_logs_each_hop_and_when_an_event_stream_closes() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/old":
            return httpx.Response(307, headers={"Location": "/new"})
        return httpx.Response(200, headers={"Content-Type": "text/event-stream"}, content=b"data: {}\n\n")

    log = TrafficLog()
    tap = TrafficTap(httpx.MockTransport(answer), log)
    async with httpx.AsyncClient(transport=tap, follow_redirects=True) as client:
        response = await client.post(
            "http://server.test/old", content=b"{}", headers={"X-Secret": "hunter2-hunter2"}
        )
        assert response.status_code == 200
    facts = [e.facts for e in log]
    assert [f["event"] for f in facts] == [
        "http-request",
        "http-response",
        "http-request",
        "http-response",
        "stream-closed",
    ]
    assert facts[0]["bytes"] == 2 and facts[2]["bytes"] == 2  # the redirected request keeps its body
    assert facts[0]["headers"]["x-secret"] == "••••ter2"
    assert log.secrets.text("echo hunter2-hunter2") == "echo ••••ter2"  # the tap taught the policy
    assert facts[1]["status"] == 307 and facts[3]["stream"] is True
    assert facts[4]["bytes"] == len(b"data: {}\n\n") and facts[4]["by"] == "server"


async def test_tap_remembers_masked_headers_only_while_the_policy_stays_the_same() -> None:
    """The tap masks each header line once and shows it from memory after that, until the policy learns
    a secret: a response header that echoes a value learned since is masked from then on."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"X-Echo": "tok-0123456789abcdef"}, json={})

    log = TrafficLog()
    tap = TrafficTap(httpx.MockTransport(answer), log)
    async with httpx.AsyncClient(transport=tap, headers={"X-Plain-Secret": "visible-value"}) as client:
        for _ in range(2):
            await client.post("http://example.test/mcp?x=1", content=b"{}")
        log.secrets.add("tok-0123456789abcdef")
        await client.post("http://example.test/mcp?x=1", content=b"{}")
    requests = [e.facts for e in log if e.facts.get("event") == "http-request"]
    responses = [e.facts for e in log if e.facts.get("event") == "http-response"]
    assert len(requests) == len(responses) == 3
    assert all(r["headers"]["x-plain-secret"] == "••••alue" for r in requests)  # learned, then masked
    assert requests[0]["headers"] == requests[1]["headers"] == requests[2]["headers"]
    assert requests[0]["headers"] is not requests[1]["headers"]  # each event its own facts
    assert [r["headers"]["x-echo"] for r in responses] == ["tok-0123456789abcdef"] * 2 + ["••••cdef"]
    assert "visible-value" in log.secrets.literals


async def test_inbox_hands_events_to_a_sink_in_order_and_ends_with_its_error() -> None:
    """Events queued before the sink was set reach it first, in order; later ones go to it as they are
    put; a sink that raises ends the inbox, and its iterator raises that error."""
    log = TrafficLog()
    first, second, third = (log.received(b'{"jsonrpc":"2.0","method":"n%d"}' % i, "http") for i in range(3))
    inbox, seen = Inbox(), []
    inbox.put(first)
    inbox.use_sink(seen.append)
    inbox.put(second)
    assert seen == [first, second]

    def broken(event: object) -> None:
        raise ValueError("the sink broke")

    inbox.use_sink(broken)
    inbox.put(third)
    inbox.put(first)  # after the end: nowhere
    with pytest.raises(ValueError, match="the sink broke"):
        async for _ in inbox.events():
            pass
    assert seen == [first, second]


def test_bad_urls_are_one_sentence() -> None:
    with pytest.raises(UsageError, match="not an http:// or https:// URL with a host"):
        open_transport(ServerSpec(url="http://"), TrafficLog())
    with pytest.raises(UsageError, match="is a URL: use --transport http, sse or auto"):
        open_transport(ServerSpec(url="http://127.0.0.1/mcp", transport="stdio"), TrafficLog())
    assert check_url("https://example.com/mcp") == "https://example.com/mcp"


def test_answers_matches_id_and_type() -> None:
    assert answers(Response(1, {}), 1)
    assert answers(ErrorResponse(1, -1, "x"), 1)
    assert not answers(Response("1", {}), 1)
    assert not answers(Notification("n"), 1)
    assert not answers(Response(1, {}), None)


def test_reach_error_names_timeouts_and_redirects() -> None:
    url = "http://127.0.0.1:9/mcp"
    assert (
        "stopped answering while tools/list" in reach_error(httpx.ReadTimeout("x"), url, "tools/list").message
    )
    redirects = reach_error(httpx.TooManyRedirects("x"), url, "").message
    assert "redirected more than 5 times" in redirects


def test_merged_headers_put_the_users_over_the_base_in_place() -> None:
    base = httpx.Headers([("Accept", "a/b"), ("X-Twice", "1"), ("X-Twice", "2"), ("Content-Type", "c/d")])
    merged = merged_headers(base, {"accept": "e/f", "X-New": "n"})
    # the base's names lower-cased and repeated ones joined; the user's spelling where it replaces one
    assert merged.raw == [
        (b"accept", b"e/f"),
        (b"x-twice", b"1, 2"),
        (b"content-type", b"c/d"),
        (b"X-New", b"n"),
    ]
    # a plain dict may hold one name in two spellings: the user's value replaces both, where the first was
    merged = merged_headers({"X-A": "1", "Y": "2", "x-a": "3"}, {"x-A": "4"})
    assert merged.raw == [(b"x-A", b"4"), (b"Y", b"2")]
    assert merged_headers({"X-A": "1"}, {}).raw == [(b"X-A", b"1")]


def test_a_post_request_is_the_one_httpx_builds() -> None:
    """`post_request` builds the POST `client.build_request` builds (method, URL, every header in its
    order, body, timeout) without httpx's merges; a client with cookies goes httpx's own way (Cookie)."""
    from mcpx.transports.http_common import client_for, post_request

    client = client_for("http://127.0.0.1:9/mcp", TrafficLog())
    url = httpx.URL("http://127.0.0.1:9/mcp?x=1")
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'

    def both(headers: httpx.Headers, timeout: object) -> tuple[httpx.Request, httpx.Request]:
        want = client.build_request("POST", url, content=body, headers=headers, timeout=timeout)  # type: ignore[arg-type]
        return post_request(client, url, body, headers, timeout), want

    for headers in (
        merged_headers({"Accept": "application/json, text/event-stream"}, {"User-Agent": "host/2"}),
        httpx.Headers([("X-Twice", "1"), ("x-twice", "2"), ("Mcp-Session-Id", "s-1")]),
    ):
        for timeout in (httpx.Timeout(3.0, read=None), 2.5):
            for _ in range(2):  # (the second time from the merge it remembers)
                got, want = both(headers, timeout)
                assert (got.method, got.url, got.headers.raw, got.content) == (
                    want.method,
                    want.url,
                    want.headers.raw,
                    want.content,
                )
                assert got.extensions == want.extensions and isinstance(got.stream, httpx.ByteStream)
    client.cookies.set("sid", "s-42", domain="127.0.0.1")
    got, want = both(httpx.Headers({"Accept": "*/*"}), 1.0)
    assert got.headers.raw == want.headers.raw and got.headers["cookie"] == "sid=s-42"
