"""The HTTP transports against a server that misbehaves on purpose (tests/servers/http_faulty.py): lost
sessions, dropped streams, auth challenges, HTML and wrong content types, slow headers, redirect loops."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from http_servers import Server, faulty_server, free_port, running, sdk_server

import mcpx
from mcpx.errors import AuthRequiredError, ConnectError, ProtocolError, RequestTimeoutError
from mcpx.transports.backoff import RETRY_FLOOR_MS
from mcpx.transports.http import NoStreamableHttpError
from mcpx.wire import Notification, TrafficLog


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with running(faulty_server()) as (started,):
        yield started


@pytest.fixture()
def faulty(server: Server) -> Server:
    _post(server, "/_reset")
    return server


def _post(server: Server, path: str) -> None:
    urllib.request.urlopen(
        urllib.request.Request(server.url(path), data=b"", method="POST"), timeout=5
    ).read()


def seen(server: Server) -> list[dict[str, Any]]:
    with urllib.request.urlopen(server.url("/_seen"), timeout=5) as reply:
        return list(json.loads(reply.read()))


def connect(url: str, **options: Any) -> Any:
    options.setdefault("transport", "http")
    options.setdefault("protocol_era", "legacy")
    options.setdefault("timeout", 10)
    return mcpx.connect(url, **options)


def facts(log: TrafficLog, event: str) -> list[dict[str, Any]]:
    return [e.facts for e in log if e.facts.get("event") == event]


async def test_lost_session_is_reopened_and_the_request_retried_once(faulty: Server) -> None:
    log = TrafficLog()
    async with connect(faulty.url("/ok/mcp"), traffic=log) as client:
        first = client.transport.describe()["session_id"]
        await client.list_tools()
        _post(faulty, "/_forget")
        # three requests meet the 404 together: one new session between them, each retried once
        results = await asyncio.gather(*(client.call_tool("echo", {"n": n}) for n in range(3)))
        assert [r.content[0]["text"] for r in results] == [json.dumps({"n": n}) for n in range(3)]
        assert client.transport.describe()["session_id"] not in (None, first)
    assert facts(log, "session-expired")[0]["status"] == 404
    assert len(facts(log, "reopen")) == 1
    assert sum(1 for e in log if e.direction == "out" and e.method == "initialize") == 2


async def test_get_stream_reopens_after_retry_with_last_event_id(faulty: Server) -> None:
    log = TrafficLog()
    got: list[Any] = []
    second = asyncio.Event()

    def on_message(message: Notification, event: Any) -> None:
        got.append(message.params["data"])
        if len(got) == 2:
            second.set()

    async with connect(faulty.url("/dropget/mcp"), traffic=log) as client:
        client.on_notification("notifications/message", on_message)
        started = time.monotonic()
        await asyncio.wait_for(second.wait(), 5)
        assert client.transport.describe()["listening"]
    assert got == ["one", "two after g1"]
    reconnect = facts(log, "reconnect")[0]
    # the server asked for retry: 100; mcpx waits at least its floor, plus up to half again of jitter
    assert (
        reconnect["last_event_id"] == "g1" and RETRY_FLOOR_MS <= reconnect["delay_ms"] <= 1.5 * RETRY_FLOOR_MS
    )
    gets = [r for r in seen(faulty) if r["method"] == "GET"]
    assert "last-event-id" not in gets[0]["headers"]
    assert gets[1]["headers"]["last-event-id"] == "g1"
    assert time.monotonic() - started < 3


async def test_the_first_request_waits_for_the_get_stream_to_open(faulty: Server) -> None:
    # the server answers GET after 0.3 s and sends what it has to say during tools/list to the GET stream
    # only if one is open: sent at once, the request would find none and the message would be lost
    got: list[Any] = []
    async with connect(faulty.url("/slowget/mcp")) as client:
        client.on_notification("notifications/message", lambda message, event: got.append(message.params))
        await client.list_tools()
        for _ in range(100):
            if got:
                break
            await asyncio.sleep(0.02)
    assert got == [{"level": "info", "data": "listing"}]


async def test_a_get_stream_with_no_answer_holds_the_first_request_only_a_second(faulty: Server) -> None:
    log = TrafficLog()
    async with connect(faulty.url("/holdget/mcp"), traffic=log) as client:
        tools = await client.list_tools()
    assert [tool.name for tool in tools] == ["echo"]
    slow = [e for e in log if e.facts.get("event") == "listen-slow"]
    assert len(slow) == 1 and "no answer after 1 s" in slow[0].raw


async def test_post_stream_that_drops_before_its_response_is_resumed(faulty: Server) -> None:
    log = TrafficLog()
    async with connect(faulty.url("/droppost/mcp"), traffic=log) as client:
        result = await client.call_tool("echo", {"x": 1})
        assert result.content[0]["text"] == '{"x": 1}'
    resume = facts(log, "resume")
    assert resume and resume[0]["last_event_id"] == "p2"
    assert RETRY_FLOOR_MS <= resume[0]["delay_ms"] <= 1.5 * RETRY_FLOOR_MS  # retry: 50, under the floor
    response = next(e for e in log if e.kind == "response" and e.method == "tools/call")
    assert response.facts["stream"] == "resume" and response.facts["sse_id"] == "p3"
    assert any(e.kind == "notification" and e.facts.get("sse_id") == "p2" for e in log)
    resumed = [r for r in seen(faulty) if r["method"] == "GET" and "last-event-id" in r["headers"]]
    assert resumed[0]["headers"]["last-event-id"] == "p2"


async def test_post_stream_without_event_ids_cannot_be_resumed(faulty: Server) -> None:
    async with connect(faulty.url("/dropnoid/mcp")) as client:
        with pytest.raises(ConnectError, match="no event id to resume it from"):
            await client.call_tool("echo", {})
        # the connection goes on
        assert await client.list_tools()


async def test_401_names_the_challenge_and_exits_3(faulty: Server) -> None:
    with pytest.raises(AuthRequiredError) as caught:
        async with connect(faulty.url("/auth/mcp")):
            pass
    assert caught.value.exit_code == 3
    assert 'WWW-Authenticate: Bearer realm="mcpx-test"' in caught.value.message
    assert caught.value.details["status"] == 401


async def test_credentials_in_headers_are_sent_and_masked(faulty: Server) -> None:
    log = TrafficLog()
    headers = {"Authorization": "Bearer good-token-1234", "X-Trace": "abc"}
    async with connect(faulty.url("/auth/mcp"), headers=headers, traffic=log) as client:
        assert await client.list_tools()
    sent = facts(log, "http-request")
    assert all(r["headers"]["authorization"] == "Bearer ••••1234" for r in sent)
    assert "good-token" not in repr([e.facts for e in log])
    # every request the server saw carried the custom header: POSTs, the GET stream and the DELETE
    requests = seen(faulty)
    assert {r["method"] for r in requests} == {"POST", "GET", "DELETE"}
    assert all(r["headers"]["x-trace"] == "abc" for r in requests)


async def test_delete_ends_the_session_on_close(faulty: Server) -> None:
    async with connect(faulty.url("/ok/mcp")) as client:
        session = client.transport.describe()["session_id"]
    deletes = [r for r in seen(faulty) if r["method"] == "DELETE"]
    assert [d["headers"]["mcp-session-id"] for d in deletes] == [session]


async def test_get_405_means_no_listening_stream(faulty: Server) -> None:
    log = TrafficLog()
    async with connect(faulty.url("/ok/mcp"), traffic=log) as client:
        await client.list_tools()
        for _ in range(50):
            if facts(log, "listen-refused"):
                break
            await asyncio.sleep(0.02)
    assert facts(log, "listen-refused")[0]["status"] == 405
    assert not facts(log, "reconnect")


async def test_html_error_page_is_a_clear_diagnostic_and_the_session_goes_on(faulty: Server) -> None:
    log = TrafficLog()
    async with connect(faulty.url("/html/mcp"), traffic=log) as client:
        with pytest.raises(ProtocolError) as caught:
            await client.call_tool("echo", {})
        assert "HTTP 500" in caught.value.message and "upstream exploded" in caught.value.message
        assert await client.list_tools()
    page = next(e for e in log if e.direction == "in" and e.raw.startswith("<!DOCTYPE html>"))
    assert page.kind == "malformed" and page.method == "tools/call"  # paired with the request it answers


async def test_wrong_content_type(faulty: Server) -> None:
    async with connect(faulty.url("/plain/mcp")) as client:
        with pytest.raises(ProtocolError, match="text/plain, which is neither JSON nor an event stream"):
            await client.call_tool("echo", {})


async def test_slow_headers_meet_the_request_timeout(faulty: Server) -> None:
    async with connect(faulty.url("/slow/mcp")) as client:
        started = time.monotonic()
        with pytest.raises(RequestTimeoutError):
            await client.call_tool("echo", {}, timeout=0.5)
        assert time.monotonic() - started < 2
        # the timer ended the POST in the caller's own task: no cancellation of that task is left over
        task = asyncio.current_task()
        assert task is not None and getattr(task, "cancelling", lambda: 0)() == 0
        assert isinstance(await client.request("tools/list"), dict)  # the session goes on
        # the caller's own cancellation still cancels, and the server is told
        call = asyncio.ensure_future(client.call_tool("echo", {}, timeout=None))
        await asyncio.sleep(0.3)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        endings = facts(client.traffic, "request-ended")
        assert [e["outcome"] for e in endings] == ["timed out", "cancelled"]


async def test_redirect_loop_is_stopped(faulty: Server) -> None:
    with pytest.raises(ConnectError, match="redirected more than 5 times"):
        async with connect(faulty.url("/loop/mcp")):
            pass


async def test_no_endpoint_at_that_path(faulty: Server) -> None:
    with pytest.raises(NoStreamableHttpError, match="answered the first POST with HTTP 404"):
        async with connect(faulty.url("/nowhere")):
            pass
    with pytest.raises(ConnectError, match=r"speaks neither Streamable HTTP .* nor HTTP\+SSE"):
        async with connect(faulty.url("/nowhere"), transport="auto"):
            pass


async def test_refused_connection_is_one_sentence() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(ConnectError) as caught:
        async with connect(url):
            pass
    assert (
        caught.value.message
        == f"cannot reach {url}: connection refused (is the server running on that port?)"
    )
    assert caught.value.exit_code == 4


async def test_auto_era_and_auto_transport_on_a_legacy_only_server(faulty: Server) -> None:
    log = TrafficLog()
    async with mcpx.connect(faulty.url("/ok/mcp"), traffic=log) as client:
        assert client.transport.name == "http"
        assert client.protocol_version == "2025-11-25"
        assert await client.list_tools()


async def test_legacy_sse_server_that_goes_away_fails_requests_at_once() -> None:
    """The HTTP+SSE stream is the session: when the server dies, pending and later requests fail with
    the reason instead of hanging."""
    with running(sdk_server("--sse")) as (sse,):
        async with connect(sse.url("/sse"), transport="sse", timeout=None) as client:
            assert await client.list_tools()
            sse.stop()
            started = time.monotonic()
            with pytest.raises(ConnectError, match=r"event stream|cannot reach|broke"):
                await client.call_tool("echo", {"text": "anyone?"})
            assert time.monotonic() - started < 5


async def test_a_probe_refused_with_a_bare_400_falls_back_to_the_handshake(faulty: Server) -> None:
    """A 400 without a JSON-RPC body to the modern probe is no evidence of an era, and no reason to leave
    Streamable HTTP either: the handshake follows on the same transport."""
    log = TrafficLog()
    async with mcpx.connect(faulty.url("/bare400/mcp"), traffic=log, timeout=10) as client:
        assert client.transport.name == "http"
        assert client.protocol_version == "2025-11-25"
        assert await client.list_tools()
    assert not facts(log, "transport-fallback")
