"""A watch cycle of `mcpx watch` on an SDK server: save → restart → catalogue diff → tests re-run.

The server is a small one written with the official Python SDK (`MCPServer`, one tool), in a temporary
folder with a collection of TESTS tests beside it (`server.mcpx.yaml`, found without being named). The
watch runs as users run it, `python -m mcpx watch server.py --format json --debounce MS`, and each round
rewrites the script (the tool's `b` alternates between int and number, so every restart has a schema
change to diff and the tests alternate between passing and failing). The parent reads the JSON events as
they are flushed and times, from the write:

  detect   the `changed` event: the watcher saw the write and the files were quiet for --debounce ms
  restart  the `started` event: the old server stopped, the new one spawned, answered and listed
           (the event itself splits it: stop / start / list, measured inside mcpx)
  tests    the `tests` event: the collection ran on the new server (the cycle's end)

and the CPU time mcpx itself spent per cycle (its process only) and the new server's CPU time from its
spawn to its listing (both read from /proc: Linux). Medians over ROUNDS cycles.

    python benchmarks/bench_watch.py                     # 5 cycles, 10 tests, 50 ms debounce
    python benchmarks/bench_watch.py --rounds 9 --tests 50 --debounce 100
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SERVER = '''\
from mcp.server import MCPServer

server = MCPServer("watched", version="1.0.0")


@server.tool()
def add(a: int, b: {kind}) -> str:
    """Add two numbers."""
    return str(a + b)


if __name__ == "__main__":
    server.run()
'''


def collection(tests: int) -> str:
    lines = ["server: ./server.py", "tests:"]
    for i in range(tests):
        lines += [
            f"  - name: adds {i}",
            "    call: add",
            f"    arguments: {{a: {i}, b: 1}}",
            f'    expect: {{isError: false, text: "{i + 1}"}}',
        ]
    return "\n".join(lines) + "\n"


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def cpu_seconds(pid: int) -> float:
    """utime + stime of one process (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Events:
    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        self.proc = proc
        self.selector = selectors.DefaultSelector()
        self.selector.register(proc.stdout, selectors.EVENT_READ)

    def next(self, kind: str, timeout: float = 120) -> tuple[dict[str, Any], float]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.selector.select(timeout=deadline - time.monotonic()):
                break
            line = self.proc.stdout.readline()
            if not line:
                break
            event = json.loads(line)
            if event["event"] == kind:
                return event, time.monotonic()
        raise SystemExit(f"no {kind!r} event from mcpx watch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--debounce", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "server.py"
        script.write_text(SERVER.format(kind="int"))
        (Path(folder) / "server.mcpx.yaml").write_text(collection(args.tests))
        command = [sys.executable, "-m", "mcpx", "watch", str(script), "--format", "json"]
        proc = subprocess.Popen(
            [*command, "--debounce", str(args.debounce)], stdout=subprocess.PIPE, text=True, cwd=folder
        )
        events = Events(proc)
        try:
            events.next("tests")
            rows: list[dict[str, float]] = []
            for n in range(args.rounds):
                before = cpu_seconds(proc.pid)
                script.write_text(SERVER.format(kind="float" if n % 2 == 0 else "int"))
                saved = time.monotonic()
                _, changed_at = events.next("changed")
                started, started_at = events.next("started")
                # the new server's CPU from its spawn to its listing (the SDK's imports, mostly)
                server_cpu = sum(cpu_seconds(child) for child in children(proc.pid))
                tests, tests_at = events.next("tests")
                assert started["changed"] and tests["passed"] + tests["failed"] == args.tests, tests
                rows.append(
                    {
                        "detect": changed_at - saved,
                        "restart": started_at - changed_at,
                        "stop": started["stop_seconds"],
                        "start": started["start_seconds"],
                        "list": started["list_seconds"],
                        "tests": tests_at - started_at,
                        "cycle": tests_at - saved,
                        "mcpx_cpu": cpu_seconds(proc.pid) - before,
                        "server_cpu": server_cpu,
                    }
                )
        finally:
            proc.send_signal(signal.SIGINT)  # how a watch ends: the server is stopped, exit 0
            proc.wait(30)
    print(
        f"mcpx watch on an SDK server, {args.tests} tests, --debounce {args.debounce}: {args.rounds} cycles"
    )
    print(f"{'':>10} {'median':>8} {'min':>8} {'max':>8}   (seconds)")
    for key in rows[0]:
        values = [row[key] for row in rows]
        print(f"{key:>10} {statistics.median(values):8.3f} {min(values):8.3f} {max(values):8.3f}")


if __name__ == "__main__":
    main()
