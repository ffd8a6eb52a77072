"""What `--record` costs: sequential `tools/call` throughput over stdio with and without a recorder.

The same client as `bench_stdio_calls.py`'s mcpx rows (mcpx.connect + call_tool against
benchmarks/echo_server.py, legacy era), once plain and once with `start_recording` tapping its traffic
log into a file in a temporary directory (masking on, as by default; `--secrets` turns it off). Each
measurement runs in a fresh interpreter; rounds interleave the two so machine noise hits both alike.
The report gives the median calls/s of each and the overhead of recording (the issue's bar: < 10 %).

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


async def measure(calls: int, warmup: int, record: str | None, secrets: bool) -> float:
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
        start = time.perf_counter()
        for _ in range(calls):
            result = await client.call_tool("echo", {"text": TEXT})
        elapsed = time.perf_counter() - start
    assert result.content[0]["text"] == TEXT
    if recorder is not None:
        recorder.close()
        assert recorder.events >= 2 * calls
    return elapsed


def child(args: argparse.Namespace) -> None:
    coroutine = measure(args.calls, args.warmup, args.record, args.secrets)
    if args.loop == "uvloop":
        import uvloop

        elapsed = uvloop.run(coroutine)
    else:
        elapsed = asyncio.run(coroutine)
    print(json.dumps({"elapsed": elapsed}))


def run_once(args: argparse.Namespace, record: bool, folder: str) -> float:
    command = [sys.executable, __file__, "--child", "--calls", str(args.calls), "--warmup", str(args.warmup)]
    command += ["--loop", args.loop]
    if record:
        command += ["--record", os.path.join(folder, "session.mcpx.jsonl")]
    if args.secrets:
        command.append("--secrets")
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return args.calls / json.loads(out.strip().splitlines()[-1])["elapsed"]


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
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.rounds):
            for name in ("plain", "recorded") if round_ % 2 == 0 else ("recorded", "plain"):
                rates[name].append(run_once(args, name == "recorded", folder))
    plain, recorded = statistics.median(rates["plain"]), statistics.median(rates["recorded"])
    overhead = (plain - recorded) / plain * 100
    report = {
        "calls": args.calls,
        "rounds": args.rounds,
        "loop": args.loop,
        "plain_calls_per_s": round(plain),
        "recorded_calls_per_s": round(recorded),
        "overhead_percent": round(overhead, 1),
        "python": sys.version.split()[0],
    }
    print(f"plain     {plain:8.0f} calls/s   (median of {args.rounds}, {args.loop})")
    print(f"recorded  {recorded:8.0f} calls/s")
    print(f"overhead  {overhead:8.1f} %   ({'within' if overhead < 10 else 'OVER'} the < 10 % bar)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
