"""A long session through the library: RSS growth over 100,000 calls, the traffic log spilling or not.

Each measurement is a fresh interpreter that runs `mcpx.connect(benchmarks/echo_server.py)` and makes
sequential `tools/call echo` calls; RSS (from /proc/self/statm) is read after 1,000 warm-up calls and at
the end, so the growth is what the session itself costs. "spill" is the default traffic log (the oldest
events go to an on-disk log, read back on demand); "keep all" is `TrafficLog(keep=None)`, the log as it
was (every event an object). At the end every event is read back, in order, to show nothing was dropped.
CPU time of the child is reported too (this machine is shared: it is the steadier figure).

    python benchmarks/long_session.py [--calls 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHILD = r"""
import asyncio, json, os, resource, sys, time
import mcpx
from mcpx.wire import TrafficLog

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

async def main(calls, keep_all):
    log = TrafficLog(keep=None) if keep_all else TrafficLog()
    async with mcpx.connect(sys.executable, [SERVER], traffic=log, protocol_era="legacy") as client:
        for n in range(1_000):
            await client.call_tool("echo", {"text": f"warm {n}"})
        base = rss_mb()
        cpu0 = time.process_time()
        for n in range(calls):
            await client.call_tool("echo", {"text": f"hello {n}"})
        cpu = time.process_time() - cpu0
        end = rss_mb()
    seqs = [e.seq for e in log]
    calls_seen = sum(1 for e in log if e.method == "tools/call")
    ok = seqs == list(range(len(log))) and calls_seen == 2 * (calls + 1000)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"base": base, "end": end, "growth": end - base, "peak": peak, "cpu": cpu,
                      "events": len(log), "spilled": log.spilled, "all_read_back": ok}))

asyncio.run(main(int(sys.argv[1]), sys.argv[2] == "keep"))
"""


def run(calls: int, mode: str) -> dict[str, float]:
    code = CHILD.replace("SERVER", repr(str(HERE / "echo_server.py")))
    out = subprocess.run(
        [sys.executable, "-c", code, str(calls), mode], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--modes", default="spill,keep")
    args = parser.parse_args()
    modes = args.modes.split(",")
    results: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    for _ in range(args.runs):
        for mode in modes:  # interleaved, so the machine's drift hits both alike
            results[mode].append(run(args.calls, mode))
    print(f"{args.calls:,} sequential tools/call through mcpx.connect, {args.runs} runs, medians")
    for mode, rows in results.items():
        label = "spill (default log)" if mode == "spill" else "keep all (keep=None)"
        med = {k: statistics.median(r[k] for r in rows) for k in ("growth", "end", "peak", "cpu")}
        print(
            f"  {label:22} RSS growth {med['growth']:6.1f} MB"
            f"  (end {med['end']:.0f} MB, peak {med['peak']:.0f} MB)"
            f"  CPU {med['cpu']:.1f} s  events {int(rows[0]['events']):,} spilled {int(rows[0]['spilled']):,}"
            f"  all read back in order: {all(r['all_read_back'] for r in rows)}"
        )
    if os.environ.get("BENCH_JSON"):
        print(json.dumps(results))


if __name__ == "__main__":
    main()
