"""Time from `mcpx inspect TARGET` to the tool list on screen, minus the server's own start-up.

Each run starts a fresh interpreter that runs the real CLI (`mcpx.cli.main`, `inspect` command) with two
test-only hooks installed before it starts: the app runs headless (no terminal needed) and, after the
first repaint that shows the tools, prints a line of JSON and exits. The parent notes the wall time
just before it spawned the interpreter.

    total         spawn of `mcpx inspect` → tool list painted
    server ready  the log's "spawned" event → the server's first answer (its start-up, and the probe
                  round trip under `auto`), measured inside the same run
    mcpx          total − server ready: what mcpx itself costs (target ≤ 0.8 s)

Rows: the bare line-JSON echo server (benchmarks/echo_server.py: a ~30 ms start) and the SDK-based
tests/servers/tui_server.py (the official SDK takes about a second to import), each with the default
era (auto: a server/discover probe first) and with --protocol-era legacy. Medians over --runs runs.

    python benchmarks/tui_startup.py            # 7 runs
    python benchmarks/tui_startup.py --runs 3
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
ROOT = HERE.parent
SERVERS = {
    "echo_server.py": HERE / "echo_server.py",
    "tui_server.py (SDK)": ROOT / "tests" / "servers" / "tui_server.py",
}

CHILD = r"""
import json, sys, time
from textual.app import App
import mcpx.tui.shell.app as tui

_run = App.run
def headless_run(self, *args, **kwargs):
    kwargs["headless"] = True
    kwargs.setdefault("size", (160, 45))
    return _run(self, *args, **kwargs)
App.run = headless_run

_mounted = tui.InspectApp.on_mount
def on_mount(self):
    _mounted(self)
    browser = self.query_one(tui.ItemBrowser)
    def painted():
        log = self.traffic
        spawned = next(e.mono for e in log if e.facts.get("event") == "spawned")
        first_answer = next(e.mono for e in log if e.direction == "in" and e.channel == "stdio")
        print(json.dumps({"painted": time.time(), "server_ready": first_answer - spawned,
                          "era": self.session.era, "tools": len(self.catalog.tools or ())}), flush=True)
        self.exit(0)
    def changed(catalog):
        if catalog.tools is not None and not getattr(self, "_bench_done", False):
            self._bench_done = True
            self.call_after_refresh(painted)
    self.watch(browser, "catalog", changed)
tui.InspectApp.on_mount = on_mount

from mcpx.cli.main import run
sys.argv = ["mcpx", "inspect", *sys.argv[1:]]
run()
"""


BARE = r"""
import json, time
from textual.app import App
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static("hello")

    def on_mount(self):
        self.call_after_refresh(self.painted)

    def painted(self):
        print(json.dumps({"painted": time.time()}), flush=True)
        self.exit()

Hello().run(headless=True, size=(160, 45))
"""


def bare_textual(env: dict[str, str]) -> float:
    """The floor: launch → first paint of a one-widget Textual app, headless."""
    started = time.time()
    proc = subprocess.run([sys.executable, "-c", BARE], capture_output=True, text=True, env=env, timeout=60)
    return float(json.loads(proc.stdout.strip().splitlines()[-1])["painted"]) - started


def one_run(target: Path, era: str, env: dict[str, str]) -> dict[str, float]:
    argv = [sys.executable, "-c", CHILD, str(target), "--protocol-era", era]
    started = time.time()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, check=False)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith('{"painted"')), None)
    if line is None:
        raise SystemExit(f"the run failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    data = json.loads(line)
    total = data["painted"] - started
    return {"total": total, "server": data["server_ready"], "mcpx": total - data["server_ready"]}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        # a fresh cache each run would re-probe every time; one shared per benchmark is what a user has
        env = {**os.environ, "MCPX_CACHE_DIR": home, "MCPX_CONFIG_DIR": home, "TEXTUAL_ANIMATIONS": "none"}
        rows: dict[tuple[str, str], list[dict[str, float]]] = {}
        floor: list[float] = []
        for _ in range(args.runs):  # interleave the rows so a busy machine hurts them alike
            floor.append(bare_textual(env))
            for name, target in SERVERS.items():
                for era in ("auto", "legacy"):
                    try:
                        rows.setdefault((name, era), []).append(one_run(target, era, env))
                    except subprocess.TimeoutExpired:
                        print(f"  (a run of {name} {era} timed out; left out)", file=sys.stderr)
    print(f"median of {args.runs} runs (seconds)        total   server ready   mcpx (target ≤ 0.8)")
    for (name, era), runs in rows.items():
        med = {k: statistics.median(r[k] for r in runs) for k in ("total", "server", "mcpx")}
        print(f"  {name:<22} {era:<7} {med['total']:8.3f}   {med['server']:12.3f}   {med['mcpx']:8.3f}")
    floor_s = statistics.median(floor)
    print(f"  {'bare Textual app, first paint':<30} {floor_s:8.3f}   (the floor: no mcpx at all)")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
