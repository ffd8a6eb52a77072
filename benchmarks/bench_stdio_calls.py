"""Sequential `tools/call` throughput over stdio: mcpx against a bare loop and the official SDK client.

Every client talks to benchmarks/echo_server.py (the fastest server we can write in Python, so it bounds
every row). Each measurement runs in a fresh interpreter: spawn the server, handshake (initialize +
notifications/initialized, untimed), WARMUP untimed calls, then CALLS timed sequential calls, each
awaited before the next is sent. Clients, in the order measured:

  bare          a blocking loop: json.dumps → write a line → readline → json.loads (subprocess.Popen)
  min-asyncio   reference: the smallest asyncio client on asyncio's subprocess streams (a reader task
                resolving futures by id)
  min-protocol  reference: the smallest asyncio client on raw pipes (subprocess.Popen +
                connect_read_pipe/connect_write_pipe; the protocol splits lines and resolves futures in
                data_received, so a call costs two loop iterations instead of four)
  min-protocol-uvloop  the same on uvloop: the floor under mcpx-uvloop
  sdk           the official Python SDK client: mcp.Client(StdioServerParameters(...), mode="legacy")
  mcpx-asyncio  mcpx.connect(..., protocol_era="legacy") + client.call_tool, on asyncio
  mcpx-uvloop   the same on uvloop

Rounds interleave the clients (round 1: every client once, round 2: …) so drift on a noisy machine
hits all of them alike. Each child reports its wall time and its own CPU time (`time.process_time()`:
user + system of the client process, the server excluded) over the timed calls; the report gives the
medians of both and the ratios of the CPU medians, which a shared, noisy machine disturbs far less than
calls/s (a blocking round trip's rate swings with the VM's idle wake-ups; its CPU does not).

    python benchmarks/bench_stdio_calls.py                     # 2,000 calls × 3 rounds
    python benchmarks/bench_stdio_calls.py --calls 500 --rounds 3 --clients bare,mcpx-asyncio
    python benchmarks/bench_stdio_calls.py --json results.json
    git archive OLD src | tar -x -C /tmp/old && python benchmarks/bench_stdio_calls.py --before /tmp/old/src

`--before OLD/src` measures each mcpx client a second time with an older tree's sources first on
PYTHONPATH ("mcpx-uvloop (before)"), in the same rounds, and prints the ratios of the two trees' medians.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SERVER = HERE / "echo_server.py"
SERVER_CMD = [sys.executable, str(SERVER)]
CLIENTS = ["bare", "min-asyncio", "min-protocol", "min-protocol-uvloop", "sdk", "mcpx-asyncio", "mcpx-uvloop"]
PROTOCOL_VERSION = "2025-11-25"
TEXT = "hello, echo"
INIT_PARAMS = {
    "protocolVersion": PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"},
}


class Clock:
    """Times the measured section, in wall time and in this process's CPU time (user + system, what
    `getrusage(RUSAGE_SELF)` counts: the server's work is another process's and is not in it); with
    --work, profiles it instead (counting, not timing)."""

    def __init__(self) -> None:
        self.profile: cProfile.Profile | None = None
        self.cpu = 0.0

    def start(self) -> float:
        if self.profile is not None:
            self.profile.enable()
        self.cpu = time.process_time()
        return time.perf_counter()

    def stop(self, start: float) -> float:
        elapsed = time.perf_counter() - start
        self.cpu = time.process_time() - self.cpu
        if self.profile is not None:
            self.profile.disable()
        return elapsed


clock = Clock()


# -- the clients: each returns the seconds taken by `calls` sequential calls ---------------------------
def run_bare(calls: int, warmup: int) -> float:
    proc = subprocess.Popen(SERVER_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    write, flush, readline = proc.stdin.write, proc.stdin.flush, proc.stdout.readline
    dumps, loads = json.dumps, json.loads

    def request(id_: int, method: str, params: dict[str, Any]) -> Any:
        write(dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode() + b"\n")
        flush()
        reply = loads(readline())
        assert reply["id"] == id_, reply
        return reply["result"]

    request(0, "initialize", INIT_PARAMS)
    write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    args = {"name": "echo", "arguments": {"text": TEXT}}
    for i in range(1, warmup + 1):
        request(i, "tools/call", args)
    start = clock.start()
    for i in range(warmup + 1, warmup + 1 + calls):
        result = request(i, "tools/call", args)
    elapsed = clock.stop(start)
    assert result["content"][0]["text"] == TEXT
    proc.stdin.close()
    proc.wait()
    return elapsed


async def run_min_asyncio(calls: int, warmup: int) -> float:
    proc = await asyncio.create_subprocess_exec(
        *SERVER_CMD, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**24
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    pending: dict[int, asyncio.Future[Any]] = {}

    async def reader() -> None:
        while line := await stdout.readline():
            message = json.loads(line)
            future = pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)

    task = asyncio.create_task(reader())
    loop = asyncio.get_running_loop()

    async def request(id_: int, method: str, params: dict[str, Any]) -> Any:
        future = pending[id_] = loop.create_future()
        stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode() + b"\n"
        )
        await stdin.drain()
        return (await future)["result"]

    await request(0, "initialize", INIT_PARAMS)
    stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    args = {"name": "echo", "arguments": {"text": TEXT}}
    for i in range(1, warmup + 1):
        await request(i, "tools/call", args)
    start = clock.start()
    for i in range(warmup + 1, warmup + 1 + calls):
        result = await request(i, "tools/call", args)
    elapsed = clock.stop(start)
    assert result["content"][0]["text"] == TEXT
    stdin.close()
    await proc.wait()
    await task
    return elapsed


class _LineProtocol(asyncio.Protocol):
    """Splits stdout into lines and resolves the pending future of each response, synchronously."""

    def __init__(self, pending: dict[int, asyncio.Future[Any]]) -> None:
        self.pending = pending
        self.buffer = b""
        self.closed = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        lines = (self.buffer + data).split(b"\n")
        self.buffer = lines.pop()
        for line in lines:
            message = json.loads(line)
            future = self.pending.pop(message.get("id"), None)
            if future is not None and not future.done():
                future.set_result(message)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


async def run_min_protocol(calls: int, warmup: int) -> float:
    proc = subprocess.Popen(SERVER_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # noqa: ASYNC220
    loop = asyncio.get_running_loop()
    pending: dict[int, asyncio.Future[Any]] = {}
    reading, protocol = await loop.connect_read_pipe(lambda: _LineProtocol(pending), proc.stdout)
    if hasattr(reading, "max_size"):  # asyncio's (uvloop has a buffer of its own)
        reading.max_size = 1 << 16  # as mcpx does: 256 KiB reads cost an mmap each
    writer, _ = await loop.connect_write_pipe(asyncio.Protocol, proc.stdin)

    async def request(id_: int, method: str, params: dict[str, Any]) -> Any:
        future = pending[id_] = loop.create_future()
        writer.write(
            json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode() + b"\n"
        )
        return (await future)["result"]

    await request(0, "initialize", INIT_PARAMS)
    writer.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    args = {"name": "echo", "arguments": {"text": TEXT}}
    for i in range(1, warmup + 1):
        await request(i, "tools/call", args)
    start = clock.start()
    for i in range(warmup + 1, warmup + 1 + calls):
        result = await request(i, "tools/call", args)
    elapsed = clock.stop(start)
    assert result["content"][0]["text"] == TEXT
    writer.close()
    await protocol.closed
    await loop.run_in_executor(None, proc.wait)
    return elapsed


async def run_sdk(calls: int, warmup: int) -> float:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=SERVER_CMD[0], args=SERVER_CMD[1:])
    async with Client(params, mode="legacy") as client:
        for _ in range(warmup):
            await client.call_tool("echo", {"text": TEXT})
        start = clock.start()
        for _ in range(calls):
            result = await client.call_tool("echo", {"text": TEXT})
        elapsed = clock.stop(start)
    assert result.content[0].text == TEXT  # type: ignore[union-attr]
    return elapsed


async def run_mcpx(calls: int, warmup: int) -> float:
    import mcpx

    async with mcpx.connect(str(SERVER), protocol_era="legacy") as client:
        for _ in range(warmup):
            await client.call_tool("echo", {"text": TEXT})
        start = clock.start()
        for _ in range(calls):
            result = await client.call_tool("echo", {"text": TEXT})
        elapsed = clock.stop(start)
    assert result.content[0]["text"] == TEXT
    return elapsed


def on_asyncio(main: Callable[[int, int], Awaitable[float]]) -> Callable[[int, int], float]:
    return lambda calls, warmup: asyncio.run(main(calls, warmup))  # type: ignore[arg-type]


def on_uvloop(main: Callable[[int, int], Awaitable[float]]) -> Callable[[int, int], float]:
    def run(calls: int, warmup: int) -> float:
        import uvloop

        return uvloop.run(main(calls, warmup))  # type: ignore[arg-type]

    return run


RUNNERS: dict[str, Callable[[int, int], float]] = {
    "bare": run_bare,
    "min-asyncio": on_asyncio(run_min_asyncio),
    "min-protocol": on_asyncio(run_min_protocol),
    "min-protocol-uvloop": on_uvloop(run_min_protocol),
    "sdk": on_asyncio(run_sdk),
    "mcpx-asyncio": on_asyncio(run_mcpx),
    "mcpx-uvloop": on_uvloop(run_mcpx),
}


# -- the driver ----------------------------------------------------------------------------------------
BEFORE = " (before)"


def measure_in_child(client: str, calls: int, warmup: int, before: str | None = None) -> tuple[float, float]:
    """(calls/s, client CPU µs per call) of one client, measured in a fresh interpreter (a "… (before)"
    client with the sources at `before` first on PYTHONPATH)."""
    env = None
    if client.endswith(BEFORE):
        client = client.removesuffix(BEFORE)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(before), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, __file__, "--child", client, "--calls", str(calls), "--warmup", str(warmup)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    ).stdout
    figures = json.loads(out.strip().splitlines()[-1])
    return calls / figures["wall"], figures["cpu"] * 1e6 / calls


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    system = f"{platform.system()} {platform.release()}"
    return f"{cpu}, {os.cpu_count()} cores, {system}, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--clients", default=",".join(CLIENTS), help="comma-separated, of: " + ", ".join(CLIENTS)
    )
    parser.add_argument("--json", help="also write the raw figures here")
    parser.add_argument(
        "--work",
        action="store_true",
        help="count instead of timing: Python function calls and event-loop iterations per call (cProfile)",
    )
    parser.add_argument(
        "--before", metavar="OLD/src", help="also run the mcpx clients from this source tree (see above)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    opts = parser.parse_args()

    if opts.child:
        if opts.work:
            clock.profile = cProfile.Profile()
        elapsed = RUNNERS[opts.child](opts.calls, opts.warmup)
        if clock.profile is not None:
            stats = pstats.Stats(clock.profile).stats  # type: ignore[attr-defined]
            loops = sum(v[1] for k, v in stats.items() if k[2] == "_run_once")  # asyncio only
            calls = sum(v[1] for v in stats.values())
            print(json.dumps({"function_calls": calls / opts.calls, "loop_iterations": loops / opts.calls}))
        else:
            print(json.dumps({"wall": elapsed, "cpu": clock.cpu}))
        return

    clients = [c for c in opts.clients.split(",") if c]
    unknown = set(clients) - set(CLIENTS)
    if unknown:
        parser.error(f"unknown client(s): {', '.join(sorted(unknown))}")
    if opts.before:
        clients += [c + BEFORE for c in clients if c.startswith("mcpx-")]
    if opts.work:
        print(f"work per call, steady state ({opts.calls} calls under cProfile; noise-free counts)")
        for client in clients:
            child, env = client, None
            if client.endswith(BEFORE):  # the old tree's sources first on PYTHONPATH, as when timing
                child = client.removesuffix(BEFORE)
                env = {
                    **os.environ,
                    "PYTHONPATH": os.pathsep.join([opts.before, os.environ.get("PYTHONPATH", "")]),
                }
            out = subprocess.run(
                [sys.executable, __file__, "--child", child, "--work", "--calls", str(opts.calls)],
                check=True,
                capture_output=True,
                text=True,
                timeout=600,
                env=env,
            ).stdout
            work = json.loads(out.strip().splitlines()[-1])
            loops = "-" if client == "bare" or child.endswith("uvloop") else f"{work['loop_iterations']:.1f}"
            print(
                f"  {client:<28} {work['function_calls']:6.0f} Python function calls, {loops} loop iterations"
            )
        return
    print(f"{opts.calls} sequential tools/call echo calls over stdio, {opts.rounds} rounds; {machine()}")
    rates: dict[str, list[float]] = {c: [] for c in clients}
    cpus: dict[str, list[float]] = {c: [] for c in clients}
    for round_ in range(1, opts.rounds + 1):
        cells = []
        for client in clients:
            rate, cpu = measure_in_child(client, opts.calls, opts.warmup, opts.before)
            rates[client].append(rate)
            cpus[client].append(cpu)
            cells.append(f"{client} {cpu:.0f} µs/{rate:,.0f}/s")
        print(f"  round {round_}: " + " · ".join(cells), flush=True)

    medians = {c: statistics.median(v) for c, v in rates.items()}
    cpu_medians = {c: statistics.median(v) for c, v in cpus.items()}
    print("\nmedians: client CPU µs per call (what the goals are about) · calls/s (swings with the machine)")
    for client in clients:
        of_bare = f"  {cpu_medians[client] / cpu_medians['bare']:5.2f}× bare" if "bare" in medians else ""
        print(f"  {client:<28} {cpu_medians[client]:7.1f} µs{of_bare} · {medians[client]:>8,.0f} calls/s")
    ratios: dict[str, float] = {}
    goals = (("mcpx-uvloop", "bare", 2.5), ("mcpx-asyncio", "bare", 4.0))
    for mcpx_client, base, bound in goals:
        if mcpx_client in cpu_medians and base in cpu_medians:
            ratio = ratios[f"{mcpx_client}/{base}"] = cpu_medians[mcpx_client] / cpu_medians[base]
            verdict = "meets" if ratio <= bound else "MISSES"
            print(f"  CPU {mcpx_client} / {base}: {ratio:.2f}×  ({verdict} the ≤ {bound}× goal)")
    for mcpx_client in ("mcpx-uvloop", "mcpx-asyncio"):
        if mcpx_client in cpu_medians and mcpx_client + BEFORE in cpu_medians:
            old = cpu_medians[mcpx_client + BEFORE]
            ratio = ratios[f"{mcpx_client}/before"] = cpu_medians[mcpx_client] / old
            print(f"  CPU {mcpx_client} / the same before: {ratio:.2f}×")
        if mcpx_client in cpu_medians and "sdk" in cpu_medians:
            ratio = ratios[f"sdk/{mcpx_client}"] = cpu_medians["sdk"] / cpu_medians[mcpx_client]
            verdict = "meets" if ratio >= 4.0 else "MISSES"
            print(f"  CPU sdk / {mcpx_client}: {ratio:.2f}×  ({verdict} the ≥ 4× goal)")
    if opts.json:
        Path(opts.json).write_text(
            json.dumps(
                {
                    "calls": opts.calls,
                    "rounds": opts.rounds,
                    "machine": machine(),
                    "rates": rates,
                    "cpu_us_per_call": cpus,
                    "medians": medians,
                    "cpu_medians": cpu_medians,
                    "ratios": ratios,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
