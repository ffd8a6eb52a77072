"""mcpx's own CPU per stdio call without the pipe: the real client, peer, traffic log and line reader, with
the server's stdin swapped for a stand-in whose write() hands the answer to the reader in the next loop
iteration. No system calls and no other process share the measurement, so it swings far less on a busy
machine than `bench_stdio_calls.py` (whose figures include the pipe's writes, reads and wake-ups).

Each repeat connects to benchmarks/echo_server.py (the handshake goes over the real pipe), swaps the pipe,
makes WARMUP untimed and CALLS timed `call_tool` calls, and reports CPU µs per call; the minimum of the
repeats is the figure (the least disturbed). Run it with PYTHONPATH pointing at the tree to measure:

    python benchmarks/bench_stdio_inprocess.py uvloop
    PYTHONPATH=/tmp/old/src python benchmarks/bench_stdio_inprocess.py asyncio --repeat 9
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

SERVER = Path(__file__).resolve().parent / "echo_server.py"
TEXT = "hello, echo"
ANSWER = (
    b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"hello, echo"}],"isError":false}}\n'
)


class StandInPipe:
    """Takes what the client writes to the server's stdin; answers each request through the reader."""

    def __init__(self, loop: asyncio.AbstractEventLoop, reader: Any) -> None:
        self.loop, self.reader = loop, reader

    def write(self, data: bytes) -> None:
        start = data.index(b'"id":') + 5
        self.loop.call_soon(self.reader.data_received, ANSWER % int(data[start : data.index(b",", start)]))

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return False


async def one(calls: int, warmup: int) -> float:
    import mcpx

    async with mcpx.connect(str(SERVER), protocol_era="legacy") as client:
        transport: Any = client.peer.transport
        stand_in = StandInPipe(asyncio.get_running_loop(), transport._stdout)
        writer = transport.process.stdin
        saved = writer._transport, getattr(transport, "_stdin_pipe", None)
        writer._transport = stand_in  # older trees write through the StreamWriter's transport
        if hasattr(transport, "_stdin_pipe"):
            transport._stdin_pipe = stand_in
        try:
            for _ in range(warmup):
                await client.call_tool("echo", {"text": TEXT})
            cpu = time.process_time()
            for _ in range(calls):
                result = await client.call_tool("echo", {"text": TEXT})
            cpu = time.process_time() - cpu
        finally:
            writer._transport = saved[0]
            if hasattr(transport, "_stdin_pipe"):
                transport._stdin_pipe = saved[1]
    assert result.content[0]["text"] == TEXT
    return cpu * 1e6 / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("loop", choices=["asyncio", "uvloop"])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()

    async def repeats() -> list[float]:
        return [await one(opts.calls, opts.warmup) for _ in range(opts.repeat)]

    if opts.loop == "uvloop":
        import uvloop

        figures = uvloop.run(repeats())
    else:
        figures = asyncio.run(repeats())
    print(
        json.dumps(
            {"loop": opts.loop, "min_cpu_us": round(min(figures), 2), "all": [round(f, 1) for f in figures]}
        )
    )


if __name__ == "__main__":
    main()
