"""The stdio transport's reader, against a real process writing awkward bytes (servers/chunked_stdout.py).

Lines split across reads, several in one read, CRLF, invalid UTF-8, a 30 MB frame arriving in many reads,
and a last line without a newline: every frame reaches the log once, in order, with its exact bytes.
"""

from __future__ import annotations

import asyncio
import base64
import sys
from pathlib import Path

import pytest

from mcpx.transports import stdio
from mcpx.transports.stdio import StdioTransport
from mcpx.wire import TrafficEvent, TrafficLog

SERVERS = Path(__file__).parent.parent / "servers"
sys.path.insert(0, str(SERVERS))
import chunked_stdout  # noqa: E402

MB = 30


def wire_bytes(event: TrafficEvent) -> bytes:
    exact = event.facts.get("wire_base64")
    return base64.b64decode(exact) if exact is not None else event.raw.encode("utf-8")


async def read_all(transport: StdioTransport, *, push: bool) -> list[TrafficEvent]:
    got: list[TrafficEvent] = []
    if push:
        transport.receive_with(got.append)
    await transport.start()

    async def drain() -> None:
        async for event in transport:
            got.append(event)

    try:
        # wait_for, not asyncio.timeout: the suite runs on Python 3.10 too
        await asyncio.wait_for(drain(), 30)
    finally:
        await transport.close()
    return got


@pytest.mark.parametrize("push", [False, True], ids=["iterated", "pushed"])
async def test_every_frame_arrives_once_in_order_with_its_exact_bytes(push: bool) -> None:
    log = TrafficLog()
    transport = StdioTransport([sys.executable, str(SERVERS / "chunked_stdout.py"), str(MB)], traffic=log)
    got = await read_all(transport, push=push)

    frames = [e for e in log if e.channel == "stdio"]
    # what the consumer got is what the log holds, nothing else (by seq: old events may be read back
    # from the log's spill file as new objects)
    assert [e.seq for e in got] == [e.seq for e in frames]
    assert [wire_bytes(e) for e in frames] == chunked_stdout.frames(MB)
    by_method = {e.method: e for e in frames}
    assert list(by_method) == ["one", "two", "three", "four", "caf\ufffd", "big", "after-big", "unterminated"]
    assert any("invalid UTF-8" in flag for flag in by_method["caf\ufffd"].flags)
    assert len(by_method["big"].raw) > MB << 20 and by_method["big"].flags == []
    assert by_method["unterminated"].facts == {"unterminated": True}
    assert [e.facts.get("event") for e in log if e.channel == "process"][:1] == ["spawned"]
    assert transport.returncode == 0


async def test_a_line_over_the_limit_is_dropped_and_reported_and_reading_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stdio, "LINE_LIMIT", 1 << 20)  # the 3 MB frame is over it
    log = TrafficLog()
    transport = StdioTransport([sys.executable, str(SERVERS / "chunked_stdout.py"), "3"], traffic=log)
    await read_all(transport, push=True)

    methods = [e.method for e in log if e.channel == "stdio" and e.direction == "in"]
    assert methods == ["one", "two", "three", "four", "caf\ufffd", "after-big", "unterminated"]
    dropped = [e.raw for e in log if "dropped" in e.raw]
    assert (
        len(dropped) == 1 and f"over {len(chunked_stdout.big_frame(3))} bytes" in dropped[0]
    )  # its exact size


async def test_a_consumer_that_raises_ends_the_reading_with_its_error() -> None:
    log = TrafficLog()
    transport = StdioTransport([sys.executable, str(SERVERS / "chunked_stdout.py"), "1"], traffic=log)

    def broken(event: TrafficEvent) -> None:
        raise ValueError("consumer bug")

    transport.receive_with(broken)
    await transport.start()

    async def drain() -> None:
        async for _ in transport:
            pass

    try:
        with pytest.raises(ValueError, match="consumer bug"):
            await asyncio.wait_for(drain(), 10)
    finally:
        await transport.close()
    # the frame that broke it was logged first, and nothing after it is lost either
    assert [e.method for e in log if e.channel == "stdio"][:2] == ["one", "two"]
