"""The handshake-free era (2026-07-28) over Streamable HTTP, against real servers on loopback: the official
SDK's MCPServer (tests/servers/http_sdk.py, and sdk_asking.py for MRTR and subscriptions) and a small
hand-written modern server for what a real one cannot be made to do (tests/servers/http_modern.py).

What is checked on the wire comes from two sides: the headers the server says it received (its tools echo
them) and the HTTP facts mcpx logged for every request it made."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_servers import SERVERS, Server, faulty_server, free_port, running, sdk_server

import mcpx
from mcpx.errors import AuthRequiredError, ConnectError, ProtocolError, RequestTimeoutError, RpcError
from mcpx.protocol.modern import MissingCapabilityError
from mcpx.wire import TrafficLog

MODERN = "2026-07-28"


def launch(script: str, *args: str) -> Server:
    port = free_port()
    return Server.launch([sys.executable, str(SERVERS / script), *args, str(port)], port)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Server]]:
    """Started together (their start-ups overlap) and shared by the tests of this module."""
    started = {
        "sdk": sdk_server(),
        "sdk-json": sdk_server("--json"),
        "asking": launch("sdk_asking.py", "--http"),
        "modern": launch("http_modern.py"),
    }
    with running(*started.values()):
        yield started


@pytest.fixture
def hand(servers: dict[str, Server]) -> Server:
    """The hand-written modern server, its request log cleared."""
    server = servers["modern"]
    httpx.post(server.url("/_reset"))
    return server


def http_requests(log: TrafficLog) -> list[dict[str, Any]]:
    return [e.facts for e in log if e.direction == "info" and e.facts.get("event") == "http-request"]


def sent_methods(log: TrafficLog) -> list[str]:
    return [e.method or "" for e in log if e.direction == "out"]


def text_of(result: Any) -> str:
    blocks = [b if isinstance(b, dict) else b.model_dump() for b in result.content]
    return " ".join(b["text"] for b in blocks if b.get("type") == "text")


def seen(server: Server) -> dict[str, Any]:
    data: dict[str, Any] = httpx.get(server.url("/_seen")).json()
    return data


# -- headers on the wire, no session ---------------------------------------------------------------------
@pytest.mark.parametrize("shape", ["sdk", "sdk-json"])
async def test_every_post_mirrors_its_message_and_nothing_of_a_session(
    shape: str, servers: dict[str, Server]
) -> None:
    log = TrafficLog()
    async with mcpx.connect(servers[shape].url(), protocol_era="auto", traffic=log) as client:
        assert (client.opened.era, client.protocol_version) == ("modern", MODERN)
        assert "route" in [tool.name for tool in await client.list_tools()]
        result = await client.call_tool("route", {"region": "Zürich", "priority": 7})
        assert text_of(await client.call_tool("add", {"a": 2, "b": 40})) == "42"
    # what the server received, as its tool saw it
    got = json.loads(text_of(result))
    assert got["mcp-protocol-version"] == MODERN
    assert (got["mcp-method"], got["mcp-name"]) == ("tools/call", "route")
    assert got["mcp-param-region"] == "=?base64?WsO8cmljaA==?="  # "Zürich" is not plain ASCII
    assert got["mcp-param-priority"] == "7"
    assert "mcp-session-id" not in got
    # what mcpx logged: every exchange a POST naming its method, none with a session; no GET, no DELETE
    requests = http_requests(log)
    assert {r["method"] for r in requests} == {"POST"}
    assert [r["headers"]["mcp-method"] for r in requests] == sent_methods(log)
    assert sent_methods(log)[0] == "server/discover" and "initialize" not in sent_methods(log)
    assert all(r["headers"]["mcp-protocol-version"] == MODERN for r in requests)
    assert not any("mcp-session-id" in r["headers"] for r in requests)
    assert client.transport.describe()["listening"] is False


async def test_nested_and_typed_arguments_become_param_headers_and_null_ones_none(hand: Server) -> None:
    async with mcpx.connect(hand.url("/ok/mcp"), protocol_era="modern") as client:
        arguments = {
            "region": "eu-west-1",
            "priority": 3,
            "debug": False,
            "where": {"city": " Ōsaka"},
            "note": "not annotated",
        }
        got = json.loads(text_of(await client.call_tool("headers", arguments)))
        assert got["mcp-param-region"] == "eu-west-1"
        assert got["mcp-param-priority"] == "3"
        assert got["mcp-param-debug"] == "false"
        assert got["mcp-param-city"] == "=?base64?IMWMc2FrYQ==?="
        assert not any(name.startswith("mcp-param-note") for name in got)
        got = json.loads(text_of(await client.call_tool("headers", {"region": None, "priority": 0})))
        assert "mcp-param-region" not in got and got["mcp-param-priority"] == "0"


async def test_a_first_call_lists_the_tools_to_learn_its_headers(hand: Server) -> None:
    log = TrafficLog()
    async with mcpx.connect(hand.url("/ok/mcp"), protocol_era="modern", traffic=log) as client:
        result = await client.request("tools/call", {"name": "headers", "arguments": {"region": "us"}})
    assert sent_methods(log) == ["server/discover", "tools/list", "tools/call"]
    assert json.loads(result["content"][0]["text"])["mcp-param-region"] == "us"


# -- tools whose annotations break the rules ---------------------------------------------------------------
async def test_tools_with_invalid_header_annotations_are_left_out_and_reported(hand: Server) -> None:
    log = TrafficLog()
    async with mcpx.connect(hand.url("/ok/mcp"), protocol_era="modern", traffic=log) as client:
        names = [tool.name for tool in await client.list_tools()]
        problems = [text for _, text in client.peer.problems]
    assert names == ["headers", "slow", "dropped", "accepted"]
    left_out = [e.facts["tool"] for e in log if e.facts.get("event") == "tool-left-out"]
    assert left_out == ["bad_space", "bad_number", "bad_items", "bad_twice"]
    assert any("bad_number" in p and "'number'" in p for p in problems), problems
    assert any("bad_twice" in p and "ignore case" in p for p in problems), problems
    # the raw frame is still in the log, untouched
    listed = next(e for e in log if e.direction == "in" and "bad_space" in e.raw)
    assert listed.message is not None


async def test_in_the_handshake_era_annotations_are_not_judged(servers: dict[str, Server]) -> None:
    async with mcpx.connect(servers["sdk"].url(), protocol_era="legacy") as client:
        assert "route" in [tool.name for tool in await client.list_tools()]
        got = await client.call_tool("route", {"region": "x"})
    assert "mcp-param-region" not in json.loads(text_of(got))


# -- -32020: re-list the tools and retry once -----------------------------------------------------------
async def test_a_header_mismatch_relists_the_tools_and_retries_once(servers: dict[str, Server]) -> None:
    log = TrafficLog()
    async with mcpx.connect(servers["sdk"].url(), protocol_era="modern", traffic=log) as client:
        await client.list_tools()
        # a tool added after the listing: mcpx knows no schema, sends no Mcp-Param-Region, the SDK refuses
        await client.call_tool("add_routed", {"name": "routed_eu"})
        assert text_of(await client.call_tool("routed_eu", {"region": "eu"})) == "routed to eu"
    tail = sent_methods(log)[-3:]
    assert tail == ["tools/call", "tools/list", "tools/call"]
    refused = [e for e in log if e.direction == "in" and '"code":-32020' in e.raw.replace(" ", "")]
    assert len(refused) == 1 and refused[0].facts["status"] == 400


async def test_a_stale_schema_is_refreshed_by_the_mismatch_it_causes(hand: Server) -> None:
    log = TrafficLog()
    async with mcpx.connect(hand.url("/stale/mcp"), protocol_era="modern", traffic=log) as client:
        await client.list_tools()  # `route` without annotations
        assert text_of(await client.call_tool("route", {"region": "ap"})) == "routed"
    assert sent_methods(log)[1:] == ["tools/list", "tools/call", "tools/list", "tools/call"]
    calls = [r for r in seen(hand)["requests"] if r["body"].get("method") == "tools/call"]
    assert "mcp-param-region" not in calls[0]["headers"]
    assert calls[1]["headers"]["mcp-param-region"] == "ap"


async def test_a_second_mismatch_is_the_callers_error(hand: Server) -> None:
    async with mcpx.connect(
        hand.url("/ok/mcp"), protocol_era="modern", headers={"Mcp-Name": "other"}
    ) as client:
        with pytest.raises(RpcError) as refused:
            await client.call_tool("headers", {})
    assert refused.value.error_code == -32020
    calls = [r for r in seen(hand)["requests"] if r["body"].get("method") == "tools/call"]
    assert len(calls) == 2  # the retry, once


# -- cancellation is closing the stream ------------------------------------------------------------------
async def test_cancelling_a_call_closes_its_stream_and_posts_no_notification(
    servers: dict[str, Server],
) -> None:
    log = TrafficLog()
    async with mcpx.connect(servers["sdk"].url(), protocol_era="modern", traffic=log) as client:
        started = asyncio.Event()
        call = asyncio.ensure_future(
            client.call_tool("slow", {"seconds": 30, "tag": "closed"}, on_progress=lambda *_: started.set())
        )
        await asyncio.wait_for(started.wait(), 10)  # the tool runs: its progress came on the stream
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        for _ in range(50):  # the server notices the closed stream a moment later
            if "closed" in text_of(await client.call_tool("cancelled", {})):
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the server never saw the call cancelled")
    assert "notifications/cancelled" not in [r["headers"].get("mcp-method") for r in http_requests(log)]
    skipped = [e for e in log if e.facts.get("event") == "not-sent"]
    assert skipped and "closing the request's stream" in skipped[0].raw


async def test_a_timeout_closes_the_stream_too(hand: Server) -> None:
    log = TrafficLog()
    async with mcpx.connect(hand.url("/ok/mcp"), protocol_era="modern", traffic=log) as client:
        await client.list_tools()
        with pytest.raises(RequestTimeoutError):
            await client.call_tool("slow", {}, timeout=0.5)
        for _ in range(50):
            if seen(hand)["cancelled"]:
                break
            await asyncio.sleep(0.1)
    assert len(seen(hand)["cancelled"]) == 1
    assert [r["body"].get("method") for r in seen(hand)["requests"]].count("notifications/cancelled") == 0


# -- what the era cannot do: resume, or answer elsewhere --------------------------------------------------
async def test_a_lost_stream_is_sent_again_with_a_new_id(hand: Server) -> None:
    log = TrafficLog()
    async with mcpx.connect(hand.url("/ok/mcp"), protocol_era="modern", traffic=log) as client:
        await client.list_tools()
        assert text_of(await client.call_tool("dropped", {})) == "done"
    calls = [r["body"] for r in seen(hand)["requests"] if r["body"].get("method") == "tools/call"]
    assert len(calls) == 2 and calls[0]["id"] != calls[1]["id"]
    assert not any(r["method"] == "GET" for r in seen(hand)["requests"])  # no Last-Event-ID resumption
    assert any(e.facts.get("event") == "reissue" for e in log)


async def test_a_202_to_a_request_is_an_error_at_once(hand: Server) -> None:
    async with mcpx.connect(hand.url("/ok/mcp"), protocol_era="modern") as client:
        await client.list_tools()
        with pytest.raises(ProtocolError, match="HTTP 202"):
            await client.call_tool("accepted", {})


# -- MRTR over HTTP: elicitation, sampling, roots ---------------------------------------------------------
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_elicitation_sampling_and_roots_over_http_in_both_eras(
    era: str, servers: dict[str, Server], tmp_path: Path
) -> None:
    asked: list[str] = []

    async def elicit(params: Any) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"name": "Ann", "seats": 3}}

    async def sample(params: Any) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "stub"}

    log = TrafficLog()
    roots = [{"uri": tmp_path.as_uri(), "name": "work"}]
    async with mcpx.connect(
        servers["asking"].url(),
        protocol_era=era,
        traffic=log,
        on_elicit=elicit,
        on_sample=sample,
        roots=roots,
    ) as client:
        assert client.opened.era == era
        booked = text_of(await client.call_tool("book", {}))
        assert booked == "booked 3 seats for Ann (window=True, meal=veg)"
        assert text_of(await client.call_tool("capital", {})) == "model stub said: Paris"
        assert text_of(await client.call_tool("roots", {})) == tmp_path.as_uri()
    assert asked == ["Book a trip?"]
    if era == "modern":
        # asked in results (input_required), answered by sending the call again; never a server request
        assert not any(e.kind == "request" for e in log if e.direction == "in")
        retried = [json.loads(e.raw) for e in log if e.direction == "out" and "inputResponses" in e.raw]
        assert len(retried) == 3
        assert all(r["params"]["requestState"] for r in retried if "requestState" in r["params"])
    else:
        assert {e.method for e in log if e.direction == "in" and e.kind == "request"} >= {
            "elicitation/create",
            "sampling/createMessage",
            "roots/list",
        }


async def test_a_missing_client_capability_is_named(servers: dict[str, Server]) -> None:
    async with mcpx.connect(servers["asking"].url(), protocol_era="modern") as client:
        with pytest.raises(MissingCapabilityError, match="elicitation") as refused:
            await client.call_tool("book", {})
    assert refused.value.details["required"] == {"elicitation": {"form": {}}}


# -- subscriptions/listen: a long-lived POST ---------------------------------------------------------------
async def test_subscriptions_listen_is_a_long_lived_post_carrying_the_notifications(
    servers: dict[str, Server],
) -> None:
    log = TrafficLog()
    async with mcpx.connect(servers["asking"].url(), protocol_era="modern", traffic=log) as client:
        await client.list_tools()
        changed = asyncio.Event()
        client.on_list_changed(lambda name: changed.set())
        await client.watch()
        for _ in range(100):
            if client.watching.acknowledged is not None:
                break
            await asyncio.sleep(0.05)
        assert client.watching.acknowledged is not None
        assert client.watching.acknowledged.get("toolsListChanged") is True
        await client.call_tool("grow", {"name": "sprout"})
        await asyncio.wait_for(changed.wait(), 10)
        assert "sprout" in [tool.name for tool in client.cached("tools") or []]
    listen = [e for e in log if e.direction == "out" and e.method == "subscriptions/listen"]
    assert len(listen) == 1
    listen_id = listen[0].message.id  # type: ignore[union-attr]
    came = [e for e in log if e.direction == "in" and e.kind == "notification"]
    changes = [e for e in came if e.method == "notifications/tools/list_changed"]
    assert changes and all(e.channel == "sse" for e in changes)
    meta = json.loads(changes[0].raw)["params"]["_meta"]
    assert meta["io.modelcontextprotocol/subscriptionId"] == listen_id
    # the listen POST was closed on the way out, with no notification about it
    methods = [r["headers"].get("mcp-method") for r in http_requests(log)]
    assert "notifications/cancelled" not in methods and "GET" not in {r["method"] for r in http_requests(log)}


# -- auto over HTTP: what is evidence of an era, and what is not -------------------------------------------
async def test_auto_tries_the_handshake_and_then_http_sse_after_a_refused_probe() -> None:
    log = TrafficLog()
    with running(sdk_server("--sse")) as (sse,):
        async with mcpx.connect(sse.url("/sse"), traffic=log) as client:
            assert (client.opened.era, client.transport.name) == ("legacy", "sse")
            assert await client.list_tools()
    posts = [r for r in http_requests(log) if r["method"] == "POST"]
    assert [r["headers"].get("mcp-method") for r in posts[:2]] == ["server/discover", None]
    assert sent_methods(log)[:2] == ["server/discover", "initialize"]
    assert any(e.facts.get("event") == "transport-fallback" for e in log)


@pytest.mark.parametrize(
    ("path", "error", "why"),
    [("/auth/mcp", AuthRequiredError, "401"), ("/down/mcp", ProtocolError, "503")],
)
async def test_auth_and_outages_say_nothing_about_the_era(
    path: str, error: type[Exception], why: str, hand: Server
) -> None:
    log = TrafficLog()
    if path == "/auth/mcp":
        with running(faulty_server()) as (faulty,), pytest.raises(error, match=why):
            async with mcpx.connect(faulty.url(path), traffic=log):
                pass
    else:
        with pytest.raises(error, match=why):
            async with mcpx.connect(hand.url(path), traffic=log):
                pass
    assert sent_methods(log) == ["server/discover"]  # no fallback to initialize, nor to HTTP+SSE


async def test_an_unreachable_server_is_an_outage_not_a_legacy_one() -> None:
    log = TrafficLog()
    with pytest.raises(ConnectError, match="refused"):
        async with mcpx.connect(f"http://127.0.0.1:{free_port()}/mcp", traffic=log):
            pass
    assert sent_methods(log) == ["server/discover"]


# -- the CLI --------------------------------------------------------------------------------------------
def mcpx_call(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpx", "call", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("era", ["modern", "auto"])
def test_mcpx_call_speaks_the_modern_era_over_http(
    era: str, servers: dict[str, Server], tmp_path: Path
) -> None:
    url = servers["asking"].url()
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"name": "Bo", "seats": 1}))
    common = ["--protocol-era", era, "--format", "json"]
    opened = mcpx_call(url, *common, "--method", "initialize")
    assert opened.returncode == 0, opened.stderr
    assert json.loads(opened.stdout)["result"]["supportedVersions"] == [MODERN]
    booked = mcpx_call(
        url, *common, "--method", "tools/call", "--tool-name", "book", "--elicit", f"@{answers}", "--traffic"
    )
    assert booked.returncode == 0, booked.stderr
    result = json.loads(booked.stdout)["result"]
    assert result["content"][0]["text"] == "booked 1 seats for Bo (window=True, meal=veg)"
    assert "initialize" not in booked.stderr and "inputResponses" in booked.stderr
