"""Sequential `tools/call` over Streamable HTTP: mcpx's CPU per call next to a bare httpx loop's.

Every client talks to benchmarks/http_echo_server.py (standard library, JSON replies, keep-alive), started
once per measurement on a free port. Each measurement is a fresh interpreter: connect, WARMUP untimed
calls, then CALLS timed sequential calls; it reports its wall time and its own CPU time
(`time.process_time()`: the server is another process). Clients:

  httpx-sync     bare: one `httpx.Client`, `post(json=…)` → `response.json()` per call
  httpx-uvloop   bare: one `httpx.AsyncClient` on uvloop, `await post(…)` → `.json()` (the floor mcpx
                 stands on: it uses httpx.AsyncClient too)
  mcpx-uvloop    `mcpx.connect("http://…/mcp", protocol_era="legacy")` + `client.call_tool`, on uvloop
  mcpx-asyncio   the same on asyncio

Rounds interleave the clients; the report gives medians and mcpx's overhead over the bare async loop:
(mcpx CPU per call − httpx-uvloop CPU per call) / httpx-uvloop CPU per call.

    python benchmarks/bench_http_calls.py                   # 1,000 calls × 3 rounds
    python benchmarks/bench_http_calls.py --calls 300 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CLIENTS = ["httpx-sync", "httpx-uvloop", "mcpx-uvloop", "mcpx-asyncio"]
TEXT = "hello, echo"
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "0"},
    },
}


def call_body(i: int) -> dict[str, Any]:
    params = {"name": "echo", "arguments": {"text": TEXT}}
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


def run_httpx_sync(url: str, calls: int, warmup: int) -> tuple[float, float]:
    import httpx

    with httpx.Client(headers=HEADERS) as client:
        client.post(url, json=INIT).json()
        client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        for i in range(1, warmup + 1):
            client.post(url, json=call_body(i)).json()
        cpu, wall = time.process_time(), time.perf_counter()
        for i in range(warmup + 1, warmup + calls + 1):
            result = client.post(url, json=call_body(i)).json()["result"]
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert result["content"][0]["text"] == TEXT
    return wall, cpu


async def run_httpx_async(url: str, calls: int, warmup: int) -> tuple[float, float]:
    import httpx

    async with httpx.AsyncClient(headers=HEADERS) as client:
        (await client.post(url, json=INIT)).json()
        await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        for i in range(1, warmup + 1):
            (await client.post(url, json=call_body(i))).json()
        cpu, wall = time.process_time(), time.perf_counter()
        for i in range(warmup + 1, warmup + calls + 1):
            result = (await client.post(url, json=call_body(i))).json()["result"]
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert result["content"][0]["text"] == TEXT
    return wall, cpu


async def run_mcpx(url: str, calls: int, warmup: int) -> tuple[float, float]:
    import mcpx

    async with mcpx.connect(url, protocol_era="legacy") as client:
        for _ in range(warmup):
            await client.call_tool("echo", {"text": TEXT})
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(calls):
            result = await client.call_tool("echo", {"text": TEXT})
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert result.content[0]["text"] == TEXT
    return wall, cpu


def child(client: str, url: str, calls: int, warmup: int) -> tuple[float, float]:
    if client == "httpx-sync":
        return run_httpx_sync(url, calls, warmup)
    main = run_httpx_async if client == "httpx-uvloop" else run_mcpx
    if client.endswith("uvloop"):
        import uvloop

        return uvloop.run(main(url, calls, warmup))
    return asyncio.run(main(url, calls, warmup))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def measure(client: str, calls: int, warmup: int) -> tuple[float, float]:
    """(calls/s, client CPU µs per call) of one client against a fresh server."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(HERE / "http_echo_server.py"), str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        url = f"http://127.0.0.1:{port}/mcp"
        argv = [sys.executable, __file__, "--child", client, "--url", url]
        out = subprocess.run(
            [*argv, "--calls", str(calls), "--warmup", str(warmup)],
            check=True, capture_output=True, text=True, timeout=600,
        ).stdout  # fmt: skip
    finally:
        server.terminate()
        server.wait()
    figures = json.loads(out.strip().splitlines()[-1])
    return calls / figures["wall"], figures["cpu"] * 1e6 / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", default=",".join(CLIENTS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        wall, cpu = child(opts.child, opts.url, opts.calls, opts.warmup)
        print(json.dumps({"wall": wall, "cpu": cpu}))
        return

    clients = [c for c in opts.clients.split(",") if c]
    what = "sequential tools/call echo calls over Streamable HTTP (JSON replies)"
    print(f"{opts.calls} {what}, {opts.rounds} rounds")
    rates: dict[str, list[float]] = {c: [] for c in clients}
    cpus: dict[str, list[float]] = {c: [] for c in clients}
    for round_ in range(1, opts.rounds + 1):
        cells = []
        for client in clients:
            rate, cpu = measure(client, opts.calls, opts.warmup)
            rates[client].append(rate)
            cpus[client].append(cpu)
            cells.append(f"{client} {cpu:.0f} µs/{rate:,.0f}/s")
        print(f"  round {round_}: " + " · ".join(cells), flush=True)
    cpu_med = {c: statistics.median(v) for c, v in cpus.items()}
    print("\nmedians: client CPU µs per call · calls/s")
    for client in clients:
        print(f"  {client:<13} {cpu_med[client]:7.1f} µs · {statistics.median(rates[client]):>8,.0f} calls/s")
    if "httpx-uvloop" in cpu_med:
        base = cpu_med["httpx-uvloop"]
        for client in ("mcpx-uvloop", "mcpx-asyncio"):
            if client in cpu_med:
                overhead = (cpu_med[client] - base) / base
                verdict = "meets" if overhead <= 0.10 else "MISSES"
                print(f"  {client} overhead over httpx-uvloop: {overhead:+.0%}  ({verdict} the ≤ 10 % goal)")


if __name__ == "__main__":
    main()
