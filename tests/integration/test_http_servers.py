"""The HTTP transports against real servers on loopback: the official SDK's MCPServer over Streamable HTTP
(event-stream replies, JSON replies, stateless) and legacy HTTP+SSE, and the pinned
@modelcontextprotocol/server-everything in its streamableHttp and sse modes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from http_servers import Server, everything_available, everything_server, running, sdk_server

import mcpx
from mcpx.wire import Notification, Request, TrafficLog

TOKEN = "Bearer abcdefghijklmnopqrstuv1a2b"


@pytest.fixture(scope="module")
def sdk() -> Iterator[dict[str, Server]]:
    """The SDK server in each of its HTTP shapes, started together."""
    shapes = {"stream": (), "json": ("--json",), "stateless": ("--stateless",), "sse": ("--sse",)}
    servers = {name: sdk_server(*flags) for name, flags in shapes.items()}
    with running(*servers.values()):
        yield servers


@pytest.fixture(scope="module")
def everything() -> Iterator[dict[str, Server]]:
    if not everything_available():
        pytest.skip("@modelcontextprotocol/server-everything is not installed (npm install, see README)")
    servers = {"streamableHttp": everything_server("streamableHttp"), "sse": everything_server("sse")}
    with running(*servers.values()):
        yield servers


def http_facts(log: TrafficLog, event: str) -> list[dict[str, Any]]:
    return [e.facts for e in log if e.direction == "info" and e.facts.get("event") == event]


def text_of(result: Any) -> str:
    blocks = [b if isinstance(b, dict) else b.model_dump() for b in result.content]
    return " ".join(b["text"] for b in blocks if b.get("type") == "text")


async def test_streamable_http_with_event_stream_replies(sdk: dict[str, Server]) -> None:
    log = TrafficLog()
    progress: list[float] = []
    async with mcpx.connect(
        sdk["stream"].url(), transport="http", protocol_era="legacy", traffic=log
    ) as client:
        assert client.transport.name == "http"
        assert [t.name for t in await client.list_tools()][:2] == ["echo", "add"]
        assert text_of(await client.call_tool("add", {"a": 2, "b": 40})) == "42"
        result = await client.call_tool(
            "progress", {"steps": 3}, on_progress=lambda p, t, m: progress.append(p)
        )
        assert text_of(result) == "done after 3 steps"
        session = client.transport.describe()["session_id"]
        assert session
    assert progress == [1, 2, 3]
    # the notifications came on the POST's event stream, before the response, and reached the peer
    kinds = [(e.channel, e.kind, e.method) for e in log if e.direction == "in"]
    assert ("sse", "notification", "notifications/progress") in kinds
    assert ("sse", "notification", "notifications/message") in kinds
    requests = http_facts(log, "http-request")
    posts = [r for r in requests if r["method"] == "POST"]
    # the first POST opens the session; every later request carries it and the negotiated version
    assert "mcp-session-id" not in posts[0]["headers"]
    for later in requests[1:]:
        assert later["headers"]["mcp-session-id"] == session[:8] + "…"  # shown shortened
    assert all(r["headers"]["accept"] == "application/json, text/event-stream" for r in posts)
    assert all(r["headers"]["content-type"] == "application/json" for r in posts)
    assert any(r["headers"].get("mcp-protocol-version") == "2025-11-25" for r in posts[2:])
    # the GET listening stream was opened after the handshake, and the session deleted on close
    assert [r["method"] for r in requests].count("GET") >= 1
    assert requests[-1]["method"] == "DELETE"
    assert http_facts(log, "http-response")[-1]["status"] == 200


async def test_answers_to_server_requests_are_posted_back(sdk: dict[str, Server]) -> None:
    asked: list[Any] = []

    async def on_elicit(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"name": "Ann"}}

    log = TrafficLog()
    async with mcpx.connect(
        sdk["stream"].url(), transport="http", protocol_era="legacy", on_elicit=on_elicit, traffic=log
    ) as client:
        assert text_of(await client.call_tool("ask", {})) == "hello Ann"
    assert asked and asked[0]["message"] == "What is your name?"
    request = next(e for e in log if e.direction == "in" and e.method == "elicitation/create")
    assert request.channel == "sse"
    answer = next(e for e in log if e.direction == "out" and e.request_seq == request.seq)
    assert answer.channel == "http" and answer.kind == "response"


async def test_json_replies(sdk: dict[str, Server]) -> None:
    log = TrafficLog()
    async with mcpx.connect(
        sdk["json"].url(), transport="http", protocol_era="legacy", traffic=log
    ) as client:
        assert text_of(await client.call_tool("echo", {"text": "plain"})) == "plain"
    replies = [e for e in log if e.direction == "in" and e.kind == "response"]
    assert replies and all(e.channel == "http" and e.facts["status"] == 200 for e in replies)


async def test_stateless_server(sdk: dict[str, Server]) -> None:
    log = TrafficLog()
    async with mcpx.connect(
        sdk["stateless"].url(), transport="http", protocol_era="legacy", traffic=log
    ) as client:
        assert text_of(await client.call_tool("add", {"a": 1, "b": 1})) == "2"
        assert client.transport.describe()["session_id"] is None
    assert "DELETE" not in [r["method"] for r in http_facts(log, "http-request")]


async def test_custom_headers_reach_the_server_and_secrets_stay_masked(sdk: dict[str, Server]) -> None:
    log = TrafficLog()
    headers = {"X-Mcpx-Test": "hello", "Authorization": TOKEN}
    async with mcpx.connect(
        sdk["stream"].url(), transport="http", protocol_era="legacy", headers=headers, traffic=log
    ) as client:
        seen = (await client.call_tool("headers", {})).structured_content
    assert seen["x-mcpx-test"] == "hello" and seen["authorization"] == TOKEN
    for facts in http_facts(log, "http-request"):
        # a header not known to be harmless is masked in the facts (it reached the server as given)
        assert facts["headers"]["x-mcpx-test"] == "••••"
        assert facts["headers"]["authorization"] == "Bearer ••••1a2b"
    # the token is in the tool's own result (the server echoed it) but in no transport fact
    assert not any(TOKEN in str(e.facts) for e in log)


async def test_legacy_sse_server(sdk: dict[str, Server]) -> None:
    log = TrafficLog()
    async with mcpx.connect(
        sdk["sse"].url("/sse"), transport="sse", protocol_era="legacy", traffic=log
    ) as client:
        assert client.transport.name == "sse"
        assert text_of(await client.call_tool("add", {"a": 20, "b": 22})) == "42"
        assert client.transport.describe()["endpoint"].startswith(sdk["sse"].url("/messages/"))
    responses = [e for e in log if e.kind == "response" and e.direction == "in"]
    assert responses and all(e.channel == "sse" for e in responses)


async def test_legacy_sse_server_asks_the_client(sdk: dict[str, Server]) -> None:
    async def on_elicit(params: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Bo"}}

    async with mcpx.connect(
        sdk["sse"].url("/sse"), transport="sse", protocol_era="legacy", on_elicit=on_elicit
    ) as client:
        assert text_of(await client.call_tool("ask", {})) == "hello Bo"


async def test_auto_falls_back_to_http_sse_and_says_so(sdk: dict[str, Server]) -> None:
    log = TrafficLog()
    async with mcpx.connect(sdk["sse"].url("/sse"), traffic=log) as client:
        assert client.transport.name == "sse"
        assert text_of(await client.call_tool("echo", {"text": "via auto"})) == "via auto"
    fallback = http_facts(log, "transport-fallback")
    assert fallback and fallback[0]["status"] == 405
    assert http_facts(log, "transport-chosen")[0]["transport"] == "sse"
    # the 405s that told mcpx to fall back are in the log, exactly, but they are no problem of the server's
    refusals = [e for e in log if e.direction == "in" and e.facts.get("status") == 405]
    assert refusals and {e.raw for e in refusals} == {"Method Not Allowed"}
    assert [e.flags for e in log if e.flags] == []


async def test_auto_keeps_streamable_http(sdk: dict[str, Server]) -> None:
    log = TrafficLog()
    async with mcpx.connect(sdk["stream"].url(), traffic=log) as client:
        assert client.transport.name == "http"
        assert text_of(await client.call_tool("echo", {"text": "x"})) == "x"
    assert not http_facts(log, "transport-fallback")
    assert http_facts(log, "transport-chosen")[0]["transport"] == "http"


async def test_concurrent_calls_each_get_their_own_stream(sdk: dict[str, Server]) -> None:
    async with mcpx.connect(sdk["stream"].url(), transport="http", protocol_era="legacy") as client:
        results = await asyncio.gather(*(client.call_tool("add", {"a": i, "b": i}) for i in range(8)))
    assert [text_of(r) for r in results] == [str(2 * i) for i in range(8)]


async def test_everything_streamable_http(everything: dict[str, Server]) -> None:
    log = TrafficLog()
    async with mcpx.connect(everything["streamableHttp"].url(), traffic=log) as client:
        assert client.transport.name == "http"
        assert "echo" in [t.name for t in await client.list_tools()]
        assert text_of(await client.call_tool("echo", {"message": "hi"})) == "Echo: hi"
    # its replies open with an id-only priming event (SEP-1699), logged as a fact
    assert any(e.facts.get("sse_id") and e.message is None for e in log)


async def test_everything_stale_session_is_reopened(everything: dict[str, Server]) -> None:
    """server-everything answers a forgotten session with 400 "No valid session ID" (not 404): mcpx
    re-initializes anyway and says it took the 400 as the spec's 404."""
    log = TrafficLog()
    url = everything["streamableHttp"].url()
    async with mcpx.connect(url, transport="http", protocol_era="legacy", traffic=log) as client:
        session = client.transport.describe()["session_id"]
        async with httpx.AsyncClient() as other:  # end the session behind mcpx's back
            gone = await other.delete(url, headers={"Mcp-Session-Id": session})
            assert gone.status_code == 200
        assert text_of(await client.call_tool("echo", {"message": "again"})) == "Echo: again"
        assert client.transport.describe()["session_id"] not in (None, session)
    expired = http_facts(log, "session-expired")
    assert expired and expired[0]["status"] == 400
    reopen = [e for e in log if e.facts.get("event") == "reopen"]
    assert reopen and "taken as 404" in reopen[0].raw
    assert sum(1 for e in log if e.direction == "out" and e.method == "initialize") == 2


async def test_everything_sse(everything: dict[str, Server]) -> None:
    log = TrafficLog()
    async with mcpx.connect(everything["sse"].url("/sse"), traffic=log) as client:
        assert client.transport.name == "sse"
        assert text_of(await client.call_tool("echo", {"message": "old"})) == "Echo: old"
    assert http_facts(log, "transport-fallback")[0]["status"] == 404
    # a notification the server pushed on the one stream reached the peer like any frame
    assert any(isinstance(e.message, Notification) for e in log if e.direction == "in")
    assert all(not isinstance(e.message, Request) or e.direction == "out" for e in log if e.channel == "http")
