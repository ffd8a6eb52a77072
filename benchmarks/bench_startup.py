"""Start-up: how long `mcpx call … --method tools/list` takes from the shell, next to what it cannot beat.

Wall times, medians over --runs runs (runs of different rows interleave):

  python -S -c pass       the interpreter alone, without site (no .pth files, no site-packages)
  python -c pass          the interpreter alone
  import asyncio, orjson  an interpreter that has loaded asyncio and orjson: the floor under mcpx call
  server ready            spawn benchmarks/echo_server.py → its initialize answer read (a bare loop)
  bare tools/list         the same, then notifications/initialized, tools/list, answer read, stdin closed,
                          exit awaited: the whole job done by hand
  mcpx call               `mcpx call benchmarks/echo_server.py --method tools/list` (default era: auto)
  mcpx call legacy        the same with --protocol-era legacy (no server/discover probe)
  official inspector      `mcp-inspector --cli … --method tools/list` (npm @modelcontextprotocol/inspector)

and, if `npm ci` has installed the test peers, the same "server ready", "mcpx call" and "official
inspector" rows for @modelcontextprotocol/server-everything; every Node program runs on the peers'
Node 22 (node_modules/.bin first on PATH).

Then what a non-TUI command imports: `python -X importtime` of `import mcpx.cli.main` and of a whole
`mcpx call` run: module count, total import time, the packages that cost most, and whether
textual / rich were loaded (they must not be).

    python benchmarks/bench_startup.py              # 15 runs
    python benchmarks/bench_startup.py --runs 5
    git archive OLD src | tar -x -C /tmp/old && python benchmarks/bench_startup.py --before /tmp/old/src

`--before OLD/src` runs every mcpx row a second time with an older tree's sources first on PYTHONPATH,
interleaved with this tree's (both then as `python -m mcpx`), and prints both side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SERVER = HERE / "echo_server.py"
NODE_BIN = ROOT / "node_modules" / ".bin"  # from `npm ci`: Node 22 and the npm peers
EVERYTHING = NODE_BIN / "mcp-server-everything"
INSPECTOR = NODE_BIN / "mcp-inspector"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
WATCHED = [
    "textual",
    "rich",
    "httpx",
    "pydantic",
    "jsonschema",
    "typer",
    "click",
    "orjson",
    "uvloop",
    "anyio",
]


def mcpx_command() -> list[str]:
    exe = Path(sys.executable).with_name("mcpx")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mcpx"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(fn: Callable[[], None]) -> tuple[float, float]:
    """(wall, CPU) of one row: the CPU of every process it ran, descendants included (the server's too:
    mcpx reaps it), which a busy machine inflates far less than wall time."""
    cpu = children_cpu()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start, children_cpu() - cpu


def bare_session(command: list[str], list_tools: bool, env: dict[str, str]) -> Callable[[], None]:
    def run() -> None:
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        while b'"id":1' not in (line := proc.stdout.readline()).replace(b" ", b""):
            assert line, "the server closed stdout before answering initialize"
        if list_tools:
            proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            proc.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
            proc.stdin.flush()
            while b'"id":2' not in (line := proc.stdout.readline()).replace(b" ", b""):
                assert line, "the server closed stdout before answering tools/list"
            proc.stdin.close()
            proc.wait(timeout=30)
        else:
            proc.kill()
            proc.wait()

    return run


def command(argv: list[str], env: dict[str, str]) -> Callable[[], None]:
    def run() -> None:
        proc = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
        )
        if proc.returncode != 0:
            tail = proc.stderr.decode(errors="replace")[-2000:]
            raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}:\n{tail}")

    return run


@dataclass
class ImportReport:
    exit: int
    modules: int
    total_ms: float
    heaviest: list[tuple[str, int]]
    watched: dict[str, bool]


def importtime(argv: list[str], env: dict[str, str]) -> ImportReport:
    """Run argv (a python -X importtime … command) and summarise what it imported."""
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    pattern = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)$")
    self_total = 0
    modules: list[str] = []
    by_package: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        m = pattern.match(line)
        if not m:
            continue
        own, name = int(m[1]), m[4]
        self_total += own
        modules.append(name)
        # own time summed by distribution (mcpx by module: its pydantic models are built in its bodies)
        key = name if name.startswith("mcpx.") else name.split(".")[0]
        by_package[key] = by_package.get(key, 0) + own
    roots = {name.split(".")[0] for name in modules}
    return ImportReport(
        exit=proc.returncode,
        modules=len(modules),
        total_ms=self_total / 1000,
        heaviest=sorted(by_package.items(), key=lambda kv: -kv[1])[:10],
        watched={name: name in roots for name in WATCHED},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-inspector", action="store_true", help="leave out the official inspector's rows")
    parser.add_argument(
        "--before", metavar="OLD/src", help="also run mcpx from this source tree, interleaved (see above)"
    )
    opts = parser.parse_args()

    cache = tempfile.mkdtemp(prefix="mcpx-bench-")
    env = {**os.environ, "MCPX_CACHE_DIR": f"{cache}/cache", "MCPX_CONFIG_DIR": f"{cache}/config"}
    if NODE_BIN.is_dir():  # every Node program below runs on the npm peers' Node 22
        env["PATH"] = os.pathsep.join([str(NODE_BIN), env.get("PATH", "")])
    mcpx = mcpx_command()
    trees = {"": env}
    if opts.before:  # the same launcher for both trees: only the sources differ
        mcpx = [sys.executable, "-m", "mcpx"]
        env = {**env, "PYTHONPATH": str(ROOT / "src")}
        trees = {"": env, " (before)": {**env, "PYTHONPATH": str(Path(opts.before).resolve())}}
    rows: dict[str, Callable[[], None]] = {
        "python -S -c pass": command([sys.executable, "-S", "-c", "pass"], env),
        "python -c pass": command([sys.executable, "-c", "pass"], env),
        # the floor under any asyncio client that speaks JSON fast: what mcpx call cannot shed
        "python: import asyncio, orjson": command([sys.executable, "-c", "import asyncio, orjson"], env),
        "echo server ready": bare_session([sys.executable, str(SERVER)], list_tools=False, env=env),
        "echo bare tools/list": bare_session([sys.executable, str(SERVER)], list_tools=True, env=env),
    }
    for tag, tree_env in trees.items():
        rows[f"echo mcpx call{tag}"] = command(
            [*mcpx, "call", str(SERVER), "--method", "tools/list"], tree_env
        )
        rows[f"echo mcpx call legacy{tag}"] = command(
            [*mcpx, "call", str(SERVER), "--method", "tools/list", "--protocol-era", "legacy"], tree_env
        )
    if INSPECTOR.exists() and not opts.no_inspector:
        rows["echo official inspector"] = command(
            [str(INSPECTOR), "--cli", sys.executable, str(SERVER), "--method", "tools/list"], env
        )
    if EVERYTHING.exists():
        rows["everything server ready"] = bare_session([str(EVERYTHING)], list_tools=False, env=env)
        for tag, tree_env in trees.items():
            rows[f"everything mcpx call{tag}"] = command(
                [*mcpx, "call", str(EVERYTHING), "--method", "tools/list"], tree_env
            )
        if INSPECTOR.exists() and not opts.no_inspector:
            rows["everything official inspector"] = command(
                [str(INSPECTOR), "--cli", str(EVERYTHING), "--method", "tools/list"], env
            )

    print(f"start-up, wall and CPU time, median of {opts.runs} runs (mcpx: {' '.join(mcpx)})")
    for fn in rows.values():  # one untimed pass: page cache, .pyc files, the era verdict
        fn()
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in rows}
    for _ in range(opts.runs):
        for name, fn in rows.items():
            times[name].append(timed(fn))
    wall = {name: statistics.median(v[0] for v in values) for name, values in times.items()}
    cpu = {name: statistics.median(v[1] for v in values) for name, values in times.items()}
    for name in times:
        print(f"  {name:<30} wall {wall[name] * 1000:7.0f} ms · CPU {cpu[name] * 1000:6.0f} ms")
    print("mcpx's own (goal ≤ 120 ms beyond the server's spawn-to-answer):")
    for tag in trees:
        for era in ("", " legacy"):
            own_wall = wall[f"echo mcpx call{era}{tag}"] - wall["echo server ready"]
            own_cpu = cpu[f"echo mcpx call{era}{tag}"] - cpu["echo bare tools/list"]
            floor = cpu[f"echo mcpx call{era}{tag}"] - cpu["echo bare tools/list"]
            floor -= cpu["python: import asyncio, orjson"]
            print(
                f"  mcpx call{era}{tag}: wall {own_wall * 1000:.0f} ms (− echo server ready), "
                f"CPU {own_cpu * 1000:.0f} ms (− echo bare tools/list, the server's job); "
                f"{floor * 1000:.0f} ms beyond an interpreter with asyncio and orjson"
            )

    print("\nimports (python -X importtime; the median of 5 runs)")
    probes = {
        "import mcpx.cli.main": [sys.executable, "-X", "importtime", "-c", "import mcpx.cli.main"],
        "mcpx call (whole run)": [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "mcpx",
            "call",
            str(SERVER),
            "--method",
            "tools/list",
        ],
        "import mcpx.protocol.connect": [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            "import mcpx.protocol.connect",
        ],
    }
    if opts.before:
        probes["mcpx call (whole run, before)"] = probes["mcpx call (whole run)"]
    for label, argv in probes.items():
        probe_env = trees[" (before)"] if label.endswith("before)") else env
        # one -X importtime run is as noisy as any other: keep the run with the median total
        runs = sorted((importtime(argv, probe_env) for _ in range(5)), key=lambda r: r.total_ms)
        r = runs[len(runs) // 2]
        loaded = [name for name, yes in r.watched.items() if yes]
        heaviest = ", ".join(f"{n} {us / 1000:.0f} ms" for n, us in r.heaviest)
        print(f"  {label}: {r.modules} modules, {r.total_ms:.0f} ms of imports (exit {r.exit})")
        print(f"      heaviest (own import time by package): {heaviest}")
        verdict = ", ".join(
            f"{ui} {'LOADED' if ui in loaded else 'not loaded'}" for ui in ("textual", "rich")
        )
        print(f"      loaded: {', '.join(loaded) or 'none'}; {verdict}")
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
