"""Idle CPU of a TUI connected to an idle server: mcpx and the official inspector's TUI in the same run.

Each TUI runs in a real terminal (a detached tmux session, 160×45) against `benchmarks/echo_server.py`,
which does nothing between requests. Once the TUI shows it is connected and a few seconds have passed,
the CPU time (user + system, from /proc) of the TUI's processes — the server excluded — is read at the
start and the end of a --window of seconds: the share of one core it used while nothing happened.
Rounds interleave the TUIs so the machine's drift hits them alike; medians are reported.

    mcpx        `mcpx inspect python3 benchmarks/echo_server.py`
    official    `mcp-inspector --tui python3 benchmarks/echo_server.py`, then `c` (connect)
    --before SRC   also mcpx from another source tree (e.g. the tree before issue 21), for comparison

    python benchmarks/tui_idle.py [--window 30] [--rounds 3] [--before /path/to/old/src]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "benchmarks" / "echo_server.py"
INSPECTOR = ROOT / "node_modules" / ".bin" / "mcp-inspector"
TICK = os.sysconf("SC_CLK_TCK")


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def descendants(pid: int) -> list[int]:
    found = [pid]
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        found += descendants(int(child))
    return found


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def tui_pids(pane_pid: int) -> list[int]:
    """The TUI's processes: the pane's tree without the echo server."""
    pids = []
    for pid in descendants(pane_pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except FileNotFoundError:
            continue
        argv = command.split(b"\0")
        if not (len(argv) > 1 and argv[1].endswith(b"echo_server.py")):  # the server runs it as its script
            pids.append(pid)
    return pids


def measure(
    name: str, command: str, ready: str, keys: list[str], window: float, env: dict[str, str]
) -> float:
    session = f"mcpx-idle-{os.getpid()}-{name}"
    tmux(
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        "160",
        "-y",
        "45",
        "-e",
        f"PYTHONPATH={env.get('PYTHONPATH', '')}",
        command,
    )
    try:
        pane_pid = int(tmux("display-message", "-p", "-t", session, "#{pane_pid}").strip())
        for key in keys:
            time.sleep(5)
            tmux("send-keys", "-t", session, key)
        deadline = time.monotonic() + 90
        while ready not in tmux("capture-pane", "-p", "-t", session):
            if time.monotonic() > deadline:
                raise SystemExit(f"{name} did not get ready:\n{tmux('capture-pane', '-p', '-t', session)}")
            time.sleep(0.5)
        time.sleep(5)  # the first paint's follow-ups, lazy tabs, imports after the first screen
        pids = tui_pids(pane_pid)
        start = cpu_seconds(pids)
        time.sleep(window)
        used = cpu_seconds(pids) - start
        return 100 * used / window
    finally:
        tmux("kill-session", "-t", session)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", help="a src/ tree of an older mcpx, measured too")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is needed to give each TUI a terminal")
    python = sys.executable
    env = dict(os.environ)
    src = str(ROOT / "src")
    cases = [
        ("mcpx", f"env PYTHONPATH={src} {python} -m mcpx inspect {python} {SERVER}", "echo", [], src),
        ("official", f"{INSPECTOR} --tui {python} {SERVER}", "● connected", ["c"], ""),
    ]
    if args.before:
        cases.insert(
            1,
            (
                "mcpx-before",
                f"env PYTHONPATH={args.before} {python} -m mcpx inspect {python} {SERVER}",
                "echo",
                [],
                args.before,
            ),
        )
    results: dict[str, list[float]] = {name: [] for name, *_ in cases}
    for _ in range(args.rounds):
        for name, command, ready, keys, path in cases:
            results[name].append(
                measure(name, command, ready, keys, args.window, {**env, "PYTHONPATH": path})
            )
    print(
        f"idle CPU over {args.window:.0f} s windows, {args.rounds} rounds, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    for name, values in results.items():
        shown = " · ".join(f"{v:.2f}" for v in values)
        print(f"  {name:12} {statistics.median(values):6.2f} % of a core   (runs: {shown})")


if __name__ == "__main__":
    main()
