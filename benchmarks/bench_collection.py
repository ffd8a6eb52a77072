"""A 100-test collection (`mcpx test`) next to the same 100 requests sent by the library: the runner's cost.

Both talk to benchmarks/echo_server.py (the fastest stdio server we can write in Python) in the legacy
era. The collection has TESTS tests: `tools/call echo` with text, contains, a JSONPath and maxMs
expectations, and every tenth a `tools/list` with a JSONPath containment. Clients, each measurement in a
fresh interpreter, rounds interleaved:

  calls      mcpx.connect(echo_server) and the same requests with client.request, nothing checked: the
             calls themselves
  runner     load_collection + CollectionRunner: parse the YAML, connect, send each test's request, check
             its expectations, close
  mcpx-test  `python -m mcpx test FILE --format json`, the whole command (interpreter, imports included)

Each in-process client reports its wall and CPU time (`time.process_time()`, the server excluded) from
before connecting (before reading the YAML, for the runner) to after closing, and the wall time of the
requests alone; every client's whole process is timed from outside too. The report gives medians and the
ratios runner/calls (the issue's goal: ≤ 2×).

    python benchmarks/bench_collection.py                  # 100 tests × 5 rounds
    python benchmarks/bench_collection.py --tests 300 --rounds 3
"""

from __future__ import annotations

import argparse
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
CLIENTS = ["calls", "runner", "mcpx-test"]


def write_collection(path: Path, tests: int) -> None:
    lines = [f"server: [{sys.executable}, {SERVER}]", "era: legacy", "tests:"]
    for i in range(tests):
        if i % 10 == 9:
            lines += [
                f"  - name: lists {i}",
                "    method: tools/list",
                '    expect: {json: {"$.tools[*].name": {contains: echo}}}',
            ]
        else:
            lines += [
                f"  - name: echoes {i}",
                "    call: echo",
                f"    arguments: {{text: hello {i}}}",
                f'    expect: {{isError: false, text: "hello {i}", contains: "{i}", maxMs: 5000,'
                f' json: {{"$.content[0].type": text}}}}',
            ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


async def run_calls(path: Path) -> dict[str, float]:
    """The same requests through the library, on one connection, nothing checked."""
    import mcpx
    from mcpx.collection.model import load_collection

    requests = [(t.method, t.params) for t in load_collection(path).tests]  # untimed: the same requests
    cpu, wall = time.process_time(), time.perf_counter()
    async with mcpx.connect(sys.executable, [str(SERVER)], protocol_era="legacy") as client:
        started, started_cpu = time.perf_counter(), time.process_time()
        for method, params in requests:
            if method == "tools/list":
                await client.list_all("tools/list", "tools")
            else:
                await client.request(method, params)
        requests = time.perf_counter() - started, time.process_time() - started_cpu
    return _times(cpu, wall, requests)


async def run_runner(path: Path) -> dict[str, float]:
    from mcpx.collection.model import load_collection
    from mcpx.collection.runner import CollectionRunner

    cpu, wall = time.process_time(), time.perf_counter()
    collection = load_collection(path)
    async with CollectionRunner(collection) as runner:
        await runner.client()  # connected before the requests' clock starts, as `calls` is
        started, started_cpu = time.perf_counter(), time.process_time()
        results = [await runner.run(test) for test in collection.tests]
        requests = time.perf_counter() - started, time.process_time() - started_cpu
    assert all(r.status == "passed" for r in results), [r.to_json() for r in results if r.status != "passed"]
    return _times(cpu, wall, requests)


def _times(cpu: float, wall: float, requests: tuple[float, float]) -> dict[str, float]:
    return {
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "requests": requests[0],
        "requests_cpu": requests[1],
    }


def child(client: str, path: Path) -> None:
    import asyncio

    run = run_calls if client == "calls" else run_runner
    print(json.dumps(asyncio.run(run(path))))


def measure(client: str, path: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    started = time.perf_counter()
    if client == "mcpx-test":
        command = [sys.executable, "-m", "mcpx", "test", str(path), "--format", "json"]
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        process = time.perf_counter() - started
        summary = json.loads(done.stdout)["summary"]
        assert done.returncode == 0 and summary["passed"] == len(json.loads(done.stdout)["files"][0]["tests"])
        return {"process": process}
    command = [sys.executable, __file__, "--child", client, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return {**json.loads(done.stdout.splitlines()[-1]), "process": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", nargs=2, metavar=("CLIENT", "FILE"))
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.mcpx.yaml"
        write_collection(path, args.tests)
        samples: dict[str, list[dict[str, float]]] = {c: [] for c in CLIENTS}
        for _ in range(args.rounds):
            for client in CLIENTS:
                samples[client].append(measure(client, path))
    report(samples, args.tests, args.rounds)


def report(samples: dict[str, list[dict[str, float]]], tests: int, rounds: int) -> None:
    def median(client: str, key: str) -> float:
        return statistics.median(s[key] for s in samples[client])

    print(f"{tests} tests against benchmarks/echo_server.py, {rounds} rounds, medians (load {_load()})")
    keys = ("requests", "requests_cpu", "wall", "cpu", "process")
    heads = ("requests ms", "their CPU ms", "connect→close ms", "its CPU ms", "process ms")
    print(f"{'client':<10} " + " ".join(f"{h:>16}" for h in heads))
    for client in CLIENTS:
        row = [f"{median(client, k) * 1000:.0f}" if k in samples[client][0] else "-" for k in keys]
        print(f"{client:<10} " + " ".join(f"{v:>16}" for v in row))
    labels = ("requests", "requests' CPU", "connect→close", "connect→close CPU", "process")
    for key, label in zip(keys, labels, strict=True):
        print(f"runner / calls, {label}: {median('runner', key) / median('calls', key):.2f}×")
    print(f"mcpx test / calls, process: {median('mcpx-test', 'process') / median('calls', 'process'):.2f}×")


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


if __name__ == "__main__":
    main()
