"""The peer on the in-memory pair, with a hand-written peer at the other end (both are mcpx's `Peer`).

Requests and answers, -32601, a timeout that tells the other side, progress that restarts the timer, and
problems as flags on the right traffic event — never on whatever the log received last.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcpx.errors import RequestTimeoutError, RpcError
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.peer import IncomingRequest, Peer
from mcpx.protocol.session import open_session
from mcpx.transports.memory import memory_pair
from mcpx.wire import Notification, Response, encode


@contextlib.asynccontextmanager
async def pair(timeout: float | None = 5.0) -> AsyncIterator[tuple[Peer, Peer]]:
    client_end, server_end = memory_pair()
    client, server = Peer(client_end, timeout=timeout), Peer(server_end, timeout=None)
    await server.start()
    await client.start()
    try:
        yield client, server
    finally:
        await client.close()
        await server.close()


async def test_a_request_gets_its_answer_and_an_unknown_method_gets_32601() -> None:
    async with pair() as (client, server):

        async def add(params: Any, request: IncomingRequest) -> Any:
            return {"sum": params["a"] + params["b"]}

        server.on_request("add", add)
        assert await client.request("add", {"a": 2, "b": 3}) == {"sum": 5}
        assert await client.request("ping") == {}
        with pytest.raises(RpcError) as raised:
            await client.request("nope")
        assert raised.value.error_code == -32601
        assert client.in_flight == 0


async def test_a_timeout_cancels_the_request_on_the_other_side() -> None:
    async with pair(timeout=0.2) as (client, server):
        cancelled = asyncio.Event()
        server.on_notification("notifications/cancelled", lambda message, event: cancelled.set())

        async def hang(params: Any, request: IncomingRequest) -> Any:
            await asyncio.sleep(30)

        server.on_request("hang", hang)
        with pytest.raises(RequestTimeoutError):
            await client.request("hang")
        await asyncio.wait_for(cancelled.wait(), 5)


async def test_progress_restarts_the_timer() -> None:
    async with pair(timeout=0.3) as (client, server):
        seen: list[float] = []

        async def slow(params: Any, request: IncomingRequest) -> Any:
            token = params["_meta"]["progressToken"]
            for step in range(6):  # 0.6 s in all, progress every 0.1 s: never 0.3 s of silence
                await asyncio.sleep(0.1)
                await server.notify("notifications/progress", {"progressToken": token, "progress": step})
            return {"done": True}

        server.on_request("slow", slow)
        result = await client.request("slow", {}, on_progress=lambda p, t, m: seen.append(p))
        assert result == {"done": True} and seen == [0, 1, 2, 3, 4, 5]


async def test_one_timer_serves_every_request_in_flight() -> None:
    """Deadlines live on one timer of the peer: a short request expires while a longer one sent before it
    runs on; one answered in between (the earliest deadline then) leaves nothing behind; held timers stop
    every deadline, and each starts afresh at the release."""
    async with pair(timeout=5.0) as (client, server):
        release = asyncio.Event()

        async def hang(params: Any, request: IncomingRequest) -> Any:
            await release.wait()
            return {"late": True}

        server.on_request("hang", hang)
        long = asyncio.ensure_future(client.request("hang", timeout=5.0))
        short = asyncio.ensure_future(client.request("hang", timeout=0.3))
        assert await client.request("ping", timeout=0.1) == {}
        with pytest.raises(RequestTimeoutError):
            await short
        assert not long.done()
        with client.hold_timers():
            held = asyncio.ensure_future(client.request("hang", timeout=0.1))
            await asyncio.sleep(0.3)
            assert not held.done()
        with pytest.raises(RequestTimeoutError):
            await held
        release.set()
        assert await long == {"late": True}
        assert client.in_flight == 0


async def test_a_stray_answer_is_a_flag_on_its_own_event() -> None:
    async with pair() as (client, server):
        stray = await server.send_raw('{"jsonrpc":"2.0","id":99,"result":{}}')
        await server.notify("notifications/message", {"level": "info", "data": "after the stray"})
        await client.request("ping")
        received = [e for e in client.traffic if e.direction == "in"]
        flagged = [e for e in received if e.flags]
        assert [e.raw for e in flagged] == [stray.raw]
        assert "no request in flight" in flagged[0].flags[0]
        assert client.problems == [(flagged[0], flagged[0].flags[0])]  # read back from the flags


async def test_a_problem_in_a_list_is_flagged_on_the_page_that_has_it_not_on_the_last_event() -> None:
    """The server answers a page whose cursor repeats and at once sends a notification: the log's last
    event is then the notification, and the flag must still go on the page."""
    client_end, server_end = memory_pair()
    server = Peer(server_end, timeout=None)

    async def initialize(params: Any, request: IncomingRequest) -> Any:
        return {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "loop", "version": "1"}}  # fmt: skip

    async def tools(params: Any, request: IncomingRequest) -> Any:
        # answer, then a notification before the client's task runs again
        answer = Response(request.id, {"tools": [{"name": "t", "inputSchema": {"type": "object"}}],
                                       "nextCursor": "same"})  # fmt: skip
        await server.send_raw(encode(answer.to_obj()))
        await server.notify("notifications/message", {"level": "info", "data": "right after the page"})
        await asyncio.sleep(30)  # the peer's own answer never goes: the raw one above is the answer

    server.on_request("initialize", initialize)
    server.on_request("tools/list", tools)
    await server.start()
    try:
        async with open_session(client_end, SessionOptions(era="legacy", timeout=5)) as client:
            await client.list_tools()
            flagged = [e for e in client.traffic if e.flags]
            assert len(flagged) == 1, [(e.raw, e.flags) for e in flagged]
            page = flagged[0]
            assert isinstance(page.message, Response) and page.method == "tools/list"
            assert "nextCursor 'same' repeats" in page.flags[0]
            notes = [e for e in client.traffic if isinstance(e.message, Notification)]
            assert notes and notes[-1].seq > page.seq and not notes[-1].flags
    finally:
        await server.close()


async def test_every_request_ends_in_a_state_in_the_log() -> None:
    """Timed out, cancelled and connection-ended requests each get a request-ended fact on the log that
    names them; answered ones get none, and a late answer still finds its request."""
    from mcpx.errors import ConnectError, McpxError
    from mcpx.wire.traffic import REQUEST_ENDED

    async with pair() as (client, server):
        release = {rid: asyncio.Event() for rid in (11, 12, 13, 14)}
        arrived: asyncio.Queue[Any] = asyncio.Queue()

        async def hang(params: Any, request: IncomingRequest) -> Any:
            arrived.put_nowait(request.id)
            await release[request.id].wait()  # type: ignore[index]
            return {"late": True}

        server.on_request("hang", hang)
        log = client.traffic
        with pytest.raises(RequestTimeoutError):
            # as a probe does: no cancellation, so the server answers late
            await client.request_event("hang", timeout=0.2, request_id=11, cancel_on_timeout=False)
        await arrived.get()
        cancelled = asyncio.ensure_future(client.request("hang", timeout=None, request_id=12))
        await arrived.get()
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        told = asyncio.ensure_future(client.request("hang", timeout=None, request_id=13))
        await arrived.get()
        await client.cancel(13, "the user pressed Esc")
        with pytest.raises(McpxError):
            await told
        assert await client.request("ping") == {}
        release[11].set()
        gone = asyncio.ensure_future(client.request("hang", timeout=None, request_id=14))
        await arrived.get()  # (the late answer to 11 went first, on the same ordered pipe)
        await server.transport.close()
        with pytest.raises(ConnectError):
            await gone

    requests = {e.rpc_id: e for e in log if e.kind == "request" and e.direction == "out"}
    outcomes = {
        rid: (ending.facts["outcome"] if (ending := log.ending_of(r.seq)) else None)
        for rid, r in requests.items()
    }
    assert outcomes[11] == "timed out" and outcomes[12] == "cancelled" and outcomes[13] == "cancelled"
    assert outcomes[14] == "no answer"
    assert [v for rid, v in outcomes.items() if rid not in (11, 12, 13, 14)] == [None]  # ping: answered
    endings = [e for e in log if e.facts.get("event") == REQUEST_ENDED]
    assert [log.ended_request(e) for e in endings] == [requests[i].seq for i in (11, 12, 13, 14)]
    assert "the user pressed Esc" in endings[2].raw
    assert requests[11].response_seq is not None  # the late answer found its request
    # a late answer to mcpx's own probe is no problem of the server's (the probe shows it timed out)
    assert log[requests[11].response_seq].flags == []
