"""The client and both eras on the in-memory pair, against mcpx's demo server (real code at both ends)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from memory_support import demo_session

from mcpx.errors import ConnectError, RpcError, ServerExitedError
from mcpx.protocol.facade import Ending
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.versions import LATEST_LEGACY, LATEST_MODERN
from mcpx.wire import Request, TrafficLog

ERAS = ["legacy", "modern"]


async def call(client: Any, name: str, arguments: dict[str, Any]) -> tuple[str, Any]:
    """A tool's text and structured content, from the raw result (what came over the wire)."""
    raw = await client.request("tools/call", {"name": name, "arguments": arguments})
    text = " ".join(block.get("text", "") for block in raw["content"] if isinstance(block, dict))
    return text, raw.get("structuredContent")


def sent_requests(client: Any) -> list[Request]:
    return [e.message for e in client.traffic if e.direction == "out" and isinstance(e.message, Request)]


@pytest.mark.parametrize(("era", "first", "version"), [("legacy", "initialize", LATEST_LEGACY),
                                                       ("modern", "server/discover", LATEST_MODERN)])  # fmt: skip
async def test_each_era_opens_its_own_way(era: str, first: str, version: str) -> None:
    async with demo_session(SessionOptions(era=era, timeout=10)) as demo:  # type: ignore[arg-type]
        opened = demo.client.opened
        assert opened is not None and opened.era == era and opened.protocol_version == version
        assert opened.server_info.name == "mcpx-demo"
        methods = [r.method for r in sent_requests(demo.client)]
        assert methods[0] == first
        assert (await call(demo.client, "echo", {"text": "hi", "times": 2}))[0] == "hi hi"
        typed = await demo.client.call_tool("add", {"a": 2, "b": 3})
        assert typed.structured_content == {"sum": 5} and not typed.is_error
        last = sent_requests(demo.client)[-1]
        meta = (last.params or {}).get("_meta", {})
        # the modern era dresses every request in the _meta envelope; the legacy era sends it as it is
        assert ("io.modelcontextprotocol/protocolVersion" in meta) == (era == "modern")


async def test_auto_probes_and_takes_the_modern_era_of_a_dual_era_server() -> None:
    async with demo_session(SessionOptions(era="auto", timeout=10)) as demo:
        assert demo.client.opened is not None and demo.client.opened.era == "modern"
        notes = [e.raw for e in demo.client.traffic if e.direction == "info"]
        assert any("era: modern" in note for note in notes), notes


@pytest.mark.parametrize("era", ERAS)
async def test_one_set_of_handlers_answers_in_both_eras(era: str) -> None:
    """Legacy: the server sends roots/list and elicitation/create as requests; modern: an input_required
    result the client answers by resending. The same handlers answer both."""
    asked: list[Any] = []

    async def decline(params: Any) -> Any:
        asked.append(params)
        return {"action": "decline"}

    options = SessionOptions(
        era=era,  # type: ignore[arg-type]
        timeout=10,
        roots=[{"uri": "file:///work", "name": "work"}],
        on_elicit=decline,
    )
    async with demo_session(options) as demo:
        _, roots = await call(demo.client, "list_roots", {})
        assert roots == {"roots": [{"uri": "file:///work", "name": "work"}]}
        assert demo.client.roots_asked == 1
        booked, _ = await call(demo.client, "book_table", {})
        assert len(asked) == 1 and "requestedSchema" in asked[0]
        assert "decline" in booked, booked


@pytest.mark.parametrize("era", ERAS)
async def test_lists_follow_every_page_and_are_cached(era: str) -> None:
    async with demo_session(SessionOptions(era=era, timeout=10)) as demo:  # type: ignore[arg-type]
        resources = await demo.client.list_resources()
        pages = [r for r in sent_requests(demo.client) if r.method == "resources/list"]
        assert len(pages) > 1 and len(resources) > 3  # the demo pages by three
        again = await demo.client.list_resources()
        assert again == resources
        assert len([r for r in sent_requests(demo.client) if r.method == "resources/list"]) == len(pages)


async def test_an_error_answer_is_an_rpc_error_with_its_code() -> None:
    async with demo_session() as demo:
        with pytest.raises(RpcError) as raised:
            await demo.client.request("no/such/method")
        assert raised.value.error_code == -32601


async def test_the_session_facade_answers_without_peer_or_transport() -> None:
    async with demo_session() as demo:
        session = demo.client.session
        assert session.describe() == {"transport": "memory", "role": "client"}
        assert session.transport_name == "memory"
        assert session.in_flight == 0 and session.ended is None and not session.is_closed
        await demo.server_end.close()  # the server hangs up
        await session.wait_closed()
        assert session.is_closed
        assert isinstance(session.ended, ConnectError)
        assert "the other end closed" in session.ended.message
        with pytest.raises(ConnectError):
            await demo.client.ping()


async def test_hold_keeps_the_connection_until_stopped_or_ended() -> None:
    """The one path the TUI and the workspace share: None when told to stop, why when the server went."""
    async with demo_session() as demo:
        session = demo.client.session
        stop = asyncio.Event()
        stop.set()
        assert await session.hold(stop) is None  # stopped: the connection itself goes on
        assert not session.is_closed
        await demo.server_end.close()
        ended = await session.hold(asyncio.Event())
        assert isinstance(ended, ConnectError) and ended is session.ended


def test_an_ending_takes_the_stderr_tail_from_the_log_when_the_error_has_none() -> None:
    log = TrafficLog()
    log.stderr("before this connection")
    since = len(log)
    for n in range(5):
        log.stderr(f"line {n}")
    ending = Ending.of(ConnectError("gone"), log, since, lines=3)
    assert (ending.returncode, ending.stderr_tail) == (None, ("line 2", "line 3", "line 4"))
    exited = ServerExitedError("exited", returncode=2, stderr_tail=["its own"])
    assert Ending.of(exited, log, since).stderr_tail == ("its own",)
    assert Ending.of(exited, log, since).returncode == 2
    assert Ending.of(exited, log, since, lines=0).stderr_tail == ()
