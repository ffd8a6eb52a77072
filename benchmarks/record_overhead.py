"""What `--record` costs: sequential `tools/call` throughput over stdio with and without a recorder.

The same client as `bench_stdio_calls.py`'s mcpx rows (mcpx.connect + call_tool against
benchmarks/echo_server.py, legacy era), once plain and once with `start_recording` tapping its traffic
log into a file in a temporary directory (masking on, as by default; `--secrets` turns it off). Each
measurement runs in a fresh interpreter; rounds interleave the two so machine noise hits both alike.
The report gives the median calls/s of each and the throughput lost to recording (the issue's bar:
< 10 %), and — robust to a busy machine, where throughput medians swing by tens of percent — the client
process's CPU time per call with and without the recorder, and that difference as a share of a call.

    python benchmarks/record_overhead.py                       # 2,000 calls × 7 rounds, on uvloop
    python benchmarks/record_overhead.py --loop asyncio --calls 500 --rounds 3 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVER = HERE / "echo_server.py"
TEXT = "hello, echo"


async def measure(calls: int, warmup: int, record: str | None, secrets: bool) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for `calls` sequential calls."""
    import mcpx
    from mcpx.record.writer import start_recording
    from mcpx.transports.spec import resolve_target
    from mcpx.wire.traffic import TrafficLog

    spec = resolve_target(str(SERVER))
    log = TrafficLog()
    recorder = start_recording(record, log, spec, record_secrets=secrets) if record else None
    async with mcpx.connect(spec, traffic=log, protocol_era="legacy") as client:
        for _ in range(warmup):
            await client.call_tool("echo", {"text": TEXT})
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(calls):
            result = await client.call_tool("echo", {"text": TEXT})
        if recorder is not None:
            recorder.flush()  # what the calls logged is on disk before the clock stops
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert result.content[0]["text"] == TEXT
    if recorder is not None:
        recorder.close()
        assert recorder.events >= 2 * calls
    return elapsed, cpu


def child(args: argparse.Namespace) -> None:
    coroutine = measure(args.calls, args.warmup, args.record, args.secrets)
    if args.loop == "uvloop":
        import uvloop

        elapsed, cpu = uvloop.run(coroutine)
    else:
        elapsed, cpu = asyncio.run(coroutine)
    print(json.dumps({"elapsed": elapsed, "cpu": cpu}))


def run_once(args: argparse.Namespace, record: bool, folder: str) -> tuple[float, float]:
    """(calls per second, client CPU microseconds per call)"""
    command = [sys.executable, __file__, "--child", "--calls", str(args.calls), "--warmup", str(args.warmup)]
    command += ["--loop", args.loop]
    if record:
        command += ["--record", os.path.join(folder, "session.mcpx.jsonl")]
    if args.secrets:
        command.append("--secrets")
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return args.calls / result["elapsed"], result["cpu"] / args.calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--loop", choices=["asyncio", "uvloop"], default="uvloop")
    parser.add_argument("--secrets", action="store_true", help="record without masking")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--record", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    rates: dict[str, list[float]] = {"plain": [], "recorded": []}
    cpus: dict[str, list[float]] = {"plain": [], "recorded": []}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.rounds):
            for name in ("plain", "recorded") if round_ % 2 == 0 else ("recorded", "plain"):
                rate, cpu = run_once(args, name == "recorded", folder)
                rates[name].append(rate)
                cpus[name].append(cpu)
    plain, recorded = statistics.median(rates["plain"]), statistics.median(rates["recorded"])
    cpu_plain, cpu_recorded = statistics.median(cpus["plain"]), statistics.median(cpus["recorded"])
    overhead = (plain - recorded) / plain * 100
    # what recording costs the client per call, against the time a call takes: robust to a busy machine
    cpu_overhead = (cpu_recorded - cpu_plain) / (1e6 / plain) * 100
    report = {
        "calls": args.calls,
        "rounds": args.rounds,
        "loop": args.loop,
        "plain_calls_per_s": round(plain),
        "recorded_calls_per_s": round(recorded),
        "overhead_percent": round(overhead, 1),
        "client_cpu_us_per_call": {"plain": round(cpu_plain, 1), "recorded": round(cpu_recorded, 1)},
        "cpu_overhead_percent_of_a_call": round(cpu_overhead, 1),
        "python": sys.version.split()[0],
    }
    print(
        f"plain     {plain:8.0f} calls/s   client CPU {cpu_plain:6.1f} µs/call "
        f"(median of {args.rounds}, {args.loop})"
    )
    print(f"recorded  {recorded:8.0f} calls/s   client CPU {cpu_recorded:6.1f} µs/call")
    print(
        f"overhead  {overhead:8.1f} % of throughput; recording's CPU is {cpu_overhead:.1f} % of a plain call"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
