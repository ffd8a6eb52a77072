"""The library entry point, `mcpx.connect()`, against real servers: typed calls, and `client.traffic`
as the record of everything that happened (frames both ways, stderr, process facts, flags)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from call_harness import read_pid, server, wait_dead

import mcpx
from mcpx.errors import McpxError, ProtocolError, RequestTimeoutError


def texts(result) -> str:
    return "".join(block.get("text", "") for block in result.content if block.get("type") == "text")


async def test_connect_list_call_and_traffic() -> None:
    async with mcpx.connect(server("sdk_everything.py"), protocol_era="legacy") as client:
        assert client.server_info.name == "sdk-everything"
        assert client.protocol_version == "2025-11-25"
        tools = await client.list_tools()
        assert "forecast" in {t.name for t in tools}
        forecast = next(t for t in tools if t.name == "forecast")
        assert forecast.output_schema is not None

        result = await client.call_tool("forecast", {"city": "Quito"})
        assert result.structured_content["city"] == "Quito"
        assert result.is_error is False

        progress: list[tuple[float, float | None, str | None]] = []
        slow = await client.call_tool(
            "count_slowly",
            {"steps": 2, "delay": 0.05},
            on_progress=lambda p, t, m: progress.append((p, t, m)),
        )
        assert texts(slow) == "counted to 2"
        assert progress == [(1, 2, "step 1 of 2"), (2, 2, "step 2 of 2")]

        traffic = client.traffic
        events = list(traffic)
        assert [e.seq for e in events] == list(range(len(events)))
        assert events[0].channel == "process" and "spawned" in events[0].raw
        calls = [e for e in events if e.direction == "out" and e.method == "tools/call"]
        assert len(calls) == 2
        # a response finds its request: method and latency filled in
        answer = traffic.find_response(calls[0])
        assert answer is not None and answer.direction == "in" and answer.method == "tools/call"
        assert answer.latency is not None and answer.latency >= 0
        assert '"Quito"' in answer.raw
        assert sum(e.method == "notifications/progress" for e in events) == 2
    # closing appended the process exit
    assert any(e.channel == "process" and "exited" in e.raw for e in traffic)


async def test_misbehaviour_is_flagged_in_the_log_and_the_session_goes_on() -> None:
    async with mcpx.connect(server("noisy_stdout.py")) as client:
        assert texts(await client.call_tool("echo", {"text": "one"})) == "one"
        assert texts(await client.call_tool("echo", {"text": "two"})) == "two"
        noise = [e for e in client.traffic if e.direction == "in" and "DEBUG: got a call" in e.raw]
        assert len(noise) == 2
        assert all(e.kind == "malformed" and e.flags for e in noise)
        assert any("not JSON" in flag for e in noise for flag in e.flags)

    async with mcpx.connect(server("stray_response.py")) as client:
        assert texts(await client.call_tool("echo", {"text": "x"})) == "x"
        stray = [e for e in client.traffic if e.direction == "in" and e.rpc_id == 987654]
        assert len(stray) == 1 and any("987654" in flag for flag in stray[0].flags)
        assert client.peer.problems, "stray responses are problems of the session"


async def test_deep_nesting_fails_one_call_not_the_session() -> None:
    async with mcpx.connect(server("deep_nesting.py")) as client:
        try:
            result = await client.call_tool("deep")
        except ProtocolError as exc:
            assert "deep" in exc.message or "nest" in exc.message
        else:
            assert result.content[0]["text"] == "deep"
        assert texts(await client.call_tool("echo", {"text": "still here"})) == "still here"


async def test_fifty_megabytes_arrive_whole() -> None:
    async with mcpx.connect(server("big_result.py"), ["50"]) as client:
        result = await client.call_tool("big")
        text = texts(result)
        assert len(text) == 50 * 1024 * 1024 and text.endswith("/END")
        assert texts(await client.call_tool("echo", {"text": "after"})) == "after"


async def test_timeout_raises_and_cancels(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    async with mcpx.connect(
        server("never_answers.py"), env={"MCPX_TEST_RECORD": str(record)}, timeout=0.5
    ) as client:
        with pytest.raises(RequestTimeoutError):
            await client.call_tool("wait")
        cancels = [
            e for e in client.traffic if e.direction == "out" and e.method == "notifications/cancelled"
        ]
        assert len(cancels) == 1


async def test_server_exit_raises_with_code_and_stderr(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    async with mcpx.connect(
        server("dies.py"), ["call", "5"], env={"MCPX_TEST_PIDFILE": str(pidfile)}
    ) as client:
        with pytest.raises(McpxError) as caught:
            await client.call_tool("crash")
    assert "exited with code 5" in caught.value.message
    assert "FATAL: the disk is on fire" in caught.value.message
    stderr = [e.raw for e in client.traffic if e.channel == "stderr"]
    assert stderr[-1] == "FATAL: the disk is on fire"
    assert wait_dead(read_pid(pidfile))


async def test_task_cancellation_leaves_no_server(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"

    async def hang() -> None:
        async with mcpx.connect(
            server("never_answers.py"), env={"MCPX_TEST_PIDFILE": str(pidfile)}
        ) as client:
            await client.call_tool("wait")

    task = asyncio.create_task(hang())
    pid = await asyncio.to_thread(read_pid, pidfile)
    await asyncio.sleep(0.3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(wait_dead, pid, 5)
