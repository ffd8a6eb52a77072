"""The workspace: ten servers connected at once (`mcpx.workspace.Workspace`, what `mcpx inspect` with no
target and `mcpx ls` use), next to each server's own start-up.

The config (written to a temporary file, Claude Desktop's shape):

  stdio  sdk          tests/servers/sdk_everything.py   (official Python SDK, both eras)
  stdio  tui          tests/servers/tui_server.py       (official Python SDK)
  stdio  everything   server-everything over stdio      (Node)
  stdio  odd          tests/servers/odd_names.py        (hand-written, tiny)
  stdio  paginated    tests/servers/paginated.py        (hand-written, lists in pages)
  http   sdk-http     tests/servers/http_sdk.py         (SDK, Streamable HTTP)
  sse    sdk-sse      tests/servers/http_sdk.py --sse   (SDK, legacy HTTP+SSE)
  http   ev-http      server-everything streamableHttp  (Node)
  http   modern-http  tests/servers/http_modern.py      (2026-07-28, hand-written)
  http   hangs        a TCP port that accepts and never answers

The HTTP servers are started before timing (a remote server is already running when you connect).
Rows, medians over --runs runs (interleaved):

  own start-up      each healthy server alone: start → connected with its tools, resources and prompts
                    listed (a one-server Workspace, the same code path)
  workspace         all ten started together: start → every healthy row settled (the hung one still
                    waiting), against the target "slowest own start-up + 0.5 s"
  mcpx ls           the command from the shell, with `--timeout` (it must wait that long to call the hung
                    server failed), and with every healthy row in

    python benchmarks/workspace.py            # 5 runs
    python benchmarks/workspace.py --runs 3 --ls-timeout 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration"))
sys.path.insert(0, str(ROOT / "src"))

from http_servers import EVERYTHING, Server, everything_server, free_port, running, sdk_server  # noqa: E402

from mcpx.workspace.discovery import from_file  # noqa: E402
from mcpx.workspace.manager import Workspace  # noqa: E402

SERVERS = ROOT / "tests" / "servers"
PY = sys.executable


def silent_port() -> tuple[int, threading.Event]:
    """A loopback port that accepts connections and never says a word (a hung remote server)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                conn, _ = sock.accept()
                held.append(conn)
        for conn in held:
            conn.close()
        sock.close()

    threading.Thread(target=accept, daemon=True).start()
    return int(sock.getsockname()[1]), stop


def config(urls: dict[str, str], node: str) -> dict[str, dict[str, object]]:
    return {
        "sdk": {"command": PY, "args": [str(SERVERS / "sdk_everything.py")]},
        "tui": {"command": PY, "args": [str(SERVERS / "tui_server.py")]},
        "everything": {"command": node, "args": [str(EVERYTHING), "stdio"]},
        "odd": {"command": PY, "args": [str(SERVERS / "odd_names.py")]},
        "paginated": {"command": PY, "args": [str(SERVERS / "paginated.py")]},
        "sdk-http": {"type": "http", "url": urls["sdk-http"]},
        "sdk-sse": {"type": "sse", "url": urls["sdk-sse"]},
        "ev-http": {"type": "http", "url": urls["ev-http"]},
        "modern-http": {"type": "http", "url": urls["modern-http"]},
        "hangs": {"type": "http", "url": urls["hangs"]},
    }


async def run_workspace(
    path: Path, only: str | None = None
) -> tuple[float, dict[str, str], dict[str, float]]:
    rows = [r for r in from_file(path) if only is None or r.name == only]
    workspace = Workspace(rows, connect_timeout=30)
    started = time.monotonic()
    workspace.start()
    healthy = [e for e in workspace.entries if e.name != "hangs"]
    await workspace.wait_for(lambda: all(e.settled for e in healthy))
    took = time.monotonic() - started
    states = {e.name: e.state for e in workspace.entries}
    # from its start (after any wait for a slot) to connected, inside the workspace
    inside = {e.name: e.connect_seconds for e in workspace.entries if e.connect_seconds is not None}
    await workspace.close()
    return took, states, inside


def run_ls(path: Path, timeout: float) -> tuple[float, int, str]:
    command = [PY, "-m", "mcpx", "ls", "--config", str(path), "--timeout", str(timeout)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    return time.monotonic() - started, done.returncode, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ls-timeout", type=float, default=3.0)
    args = parser.parse_args()
    node = shutil.which("node", path=str(ROOT / "node_modules" / ".bin") + os.pathsep + os.environ["PATH"])
    if node is None or not EVERYTHING.exists():
        sys.exit("needs the npm peers (server-everything, Node 22): run scripts/test once")
    modern_port = free_port()
    modern = Server.launch([PY, str(SERVERS / "http_modern.py"), str(modern_port)], modern_port)
    hang_port, stop_hanging = silent_port()
    with running(sdk_server(), sdk_server("--sse"), everything_server("streamableHttp"), modern) as (
        sdk_http, sdk_sse, ev_http, modern_http,
    ):  # fmt: skip
        urls = {
            "sdk-http": sdk_http.url(),
            "sdk-sse": sdk_sse.url("/sse"),
            "ev-http": ev_http.url(),
            "modern-http": modern_http.url("/ok/mcp"),
            "hangs": f"http://127.0.0.1:{hang_port}/mcp",
        }
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "claude_desktop_config.json"
            path.write_text(json.dumps({"mcpServers": config(urls, node)}))
            names = [n for n in json.loads(path.read_text())["mcpServers"] if n != "hangs"]
            own: dict[str, list[float]] = {n: [] for n in names}
            together: list[float] = []
            inside: dict[str, list[float]] = {n: [] for n in names}
            ls_times: list[float] = []
            # one untimed round: era verdicts cached, files in the page cache (as on a second start)
            asyncio.run(run_workspace(path))
            for _ in range(args.runs):
                for name in names:
                    took, states, _ = asyncio.run(run_workspace(path, only=name))
                    assert states[name] == "connected", (name, states)
                    own[name].append(took)
                took, states, seconds = asyncio.run(run_workspace(path))
                for name, value in seconds.items():
                    inside[name].append(value)
                bad = {n: s for n, s in states.items() if n != "hangs" and s != "connected"}
                assert not bad, bad
                together.append(took)
                took, code, out = run_ls(path, args.ls_timeout)
                assert code == 4 and out.count(" connected ") == 9, out
                ls_times.append(took)
    stop_hanging.set()
    medians = {n: statistics.median(v) for n, v in own.items()}
    slowest = max(medians.values())
    print(f"{'server':<14} own start-up · connect time inside the workspace (medians of {args.runs})")
    for name, value in medians.items():
        print(f"{name:<14} {value * 1000:8.0f} ms · {statistics.median(inside[name]) * 1000:6.0f} ms")
    print(f"sum of own start-ups        {sum(medians.values()) * 1000:8.0f} ms")
    print(f"slowest + 0.5 s (target)    {(slowest + 0.5) * 1000:8.0f} ms")
    print(f"workspace, 10 servers       {statistics.median(together) * 1000:8.0f} ms  (runs: "
          + ", ".join(f"{t * 1000:.0f}" for t in together) + ")")  # fmt: skip
    print(f"mcpx ls --timeout {args.ls_timeout:g}       {statistics.median(ls_times) * 1000:8.0f} ms  (runs: "
          + ", ".join(f"{t * 1000:.0f}" for t in ls_times) + ")")  # fmt: skip
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
