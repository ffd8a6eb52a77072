"""How fast this machine is right now: a fixed pure-Python workload, timed, to put beside any benchmark.

The project's VM changes speed by 1.3–1.6× within an hour at the same load (docs/performance.md), so an
absolute figure from one hour does not compare with one from another. Run this before and after a
benchmark (or beside it) and report its figure with the results: figures compare across runs only when
this one does.

The workload is what mcpx's own hot paths do — JSON decode and encode, a regular expression over text,
sorting, small objects made and dropped — in one process, no I/O. It prints the median and the spread of
`--rounds` timings (in ms) and the load average at the start and end.

    python benchmarks/vm_speed.py --rounds 15
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time

DOC = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "tools": [
                {
                    "name": f"tool_{n}",
                    "description": "Returns the weather for a city, in words. " * 4,
                    "inputSchema": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                        "required": ["city"],
                    },
                }
                for n in range(200)
            ]
        },
    }
)
WORD = re.compile(r"\b(\w+)\b")


def workload() -> int:
    """One round: a few tens of ms on the project's VM."""
    total = 0
    for _ in range(5):
        obj = json.loads(DOC)
        text = json.dumps(obj)
        total += len(WORD.findall(text[:20_000]))
    numbers = [(n * 7919) % 100_003 for n in range(25_000)]
    numbers.sort()
    total += numbers[len(numbers) // 2]
    total += sum(len({"seq": n, "raw": str(n), "flags": []}) for n in range(12_000))
    return total


def measure(rounds: int) -> list[float]:
    workload()  # warm the caches and the allocator
    timings = []
    for _ in range(rounds):
        start = time.perf_counter()
        workload()
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    timings = measure(args.rounds)
    load_after = os.getloadavg()[0]
    quartiles = statistics.quantiles(timings, n=4) if len(timings) > 1 else [timings[0]] * 3
    print(
        f"vm speed: {statistics.median(timings):.1f} ms a round (median of {args.rounds}; "
        f"quartiles {quartiles[0]:.1f}–{quartiles[2]:.1f}); load {load_before:.2f} → {load_after:.2f}"
    )


if __name__ == "__main__":
    main()
