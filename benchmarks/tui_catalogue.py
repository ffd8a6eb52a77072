"""Hostile catalogues in `mcpx inspect`: the catalogue on screen after the answer, keys, memory, quitting.

Each case runs the real app headless (140×45) in a fresh interpreter against
`tests/servers/hostile_catalogue.py` — a 10 MB tool description over stdio and over Streamable HTTP, a
1 MB one, 20,000 tools, a 3,000-level schema, `$ref` cycles — and reports:

    after answer   the tools/list answer appended to the traffic log → the list and the detail painted
    keys           each of ↓ ↑ F1 Esc Tab after a rest: key → screen idle (wall, and the CPU time of the
                   process), the item's call panel held back; then that panel built on its own ("panel");
                   ten ↓ at 30 a second (a held key), and from their start to the last item's call panel
                   painted
    whole text     "Show the whole description" → the virtualised text painted, then End (its last line)
    q              q → the app has exited (server stopped)
    RSS            the process's resident memory with the catalogue on screen

Wall times on this shared 2-core machine swing with other jobs; CPU times are the steadier figure.

    python benchmarks/tui_catalogue.py [--runs 3] [--cases huge,huge-http,1mb,many,deep,cycles]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "servers" / "hostile_catalogue.py"
CASES = {
    "huge": ["huge-description", "--mb", "10"],
    "huge-http": ["huge-description", "--mb", "10"],
    "1mb": ["huge-description", "--mb", "1"],
    "many": ["many-tools", "--count", "20000"],
    "deep": ["deep-schema", "--depth", "3000"],
    "cycles": ["ref-cycles"],
}

CHILD = r"""
import asyncio, json, sys, time
from textual.widgets import Button, OptionList
from mcpx.transports.spec import resolve_target
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import make_app
from mcpx.tui.catalogue.item_detail import ItemDetail

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

async def main(target, args, transport):
    spec = resolve_target(target, args, transport=transport)
    app = make_app(spec, settings=InspectSettings(protocol_era="legacy", timeout=120.0))
    out = {}
    async with app.run_test(size=(140, 45)) as pilot:
        tools = app.query_one("#tools-list", OptionList)
        detail = app.query_one(ItemDetail)
        while not (app.catalog.tools is not None and tools.option_count and detail.selection is not None):
            await pilot.pause(0.005)
        await pilot.pause()
        painted, cpu = time.monotonic(), time.process_time()
        answer = next(e for e in app.traffic if e.direction == "in" and e.method == "tools/list")
        out["after_answer"] = painted - answer.mono
        out["rss"] = rss()
        # each key after a rest (0.3 s), with the call panel's build held back (PANEL_DELAY) so that a key's
        # figure is the key's own work; the panel's build is measured on its own, then the real delay is back
        from mcpx.tui.catalogue import item_detail
        delay, item_detail.PANEL_DELAY = item_detail.PANEL_DELAY, 30.0
        for key in ("down", "up", "f1", "escape", "tab", "shift+tab"):
            await pilot.pause(0.3)
            w, c = time.perf_counter(), time.process_time()
            await pilot.press(key)
            await pilot.pause()
            out[f"key {key}"] = (time.perf_counter() - w, time.process_time() - c)
        await pilot.pause(0.3)
        w, c = time.perf_counter(), time.process_time()
        detail.show_call_panel()
        while not detail.query("#call-form > *"):
            await pilot.pause(0.005)
        await pilot.pause()
        out["panel"] = (time.perf_counter() - w, time.process_time() - c)
        item_detail.PANEL_DELAY = delay
        await pilot.pause(0.3)
        # a held ↓ (ten steps in a row), then the last item's call panel built once the highlight rests
        w, c = time.perf_counter(), time.process_time()
        # as a terminal sends a held key: 30 a second, whether or not the app has caught up (Pilot's press
        # waits for idle after each key, so every step's panel would be built)
        from textual import events
        for _ in range(10):
            app.post_message(events.Key("down", None))
            await asyncio.sleep(1 / 30)
        await pilot.pause()
        out["held down x10"] = (time.perf_counter() - w, time.process_time() - c)
        while not detail.query("#call-form > *"):
            await pilot.pause(0.005)
        await pilot.pause()
        out["panel after rest"] = (time.perf_counter() - w, time.process_time() - c)
        if detail.query("#detail-show-description"):
            w, c = time.perf_counter(), time.process_time()
            detail.query_one("#detail-show-description", Button).press()
            while not detail.query("#detail-description-text"):
                await pilot.pause(0.005)
            await pilot.pause()
            view = detail.query_one("#detail-description-text")
            view.focus()
            await pilot.press("end")
            while view.scroll_offset.y < view.max_scroll_y:
                await pilot.pause(0.005)
            await pilot.pause()
            out["whole text"] = (time.perf_counter() - w, time.process_time() - c)
        app.set_focus(tools)
        w = time.perf_counter()
        await pilot.press("q")
        while app.is_running:
            await pilot.pause(0.01)
        out["q"] = time.perf_counter() - w
    print("@@" + json.dumps(out))

asyncio.run(main(sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def one(case: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TEXTUAL_ANIMATIONS": "none"}
    server = None
    if case == "huge-http":
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, str(SERVER), *CASES[case], "--http", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        target, args, transport = f"http://127.0.0.1:{port}/mcp", [], "http"
    else:
        target, args, transport = sys.executable, [str(SERVER), *CASES[case]], "auto"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, target, json.dumps(args), transport],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
            check=False,
        )
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("@@")), None)
    if line is None:
        raise SystemExit(f"{case} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return dict(json.loads(line[2:]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    cases = args.cases.split(",")
    results: dict[str, list[dict[str, object]]] = {case: [] for case in cases}
    for _ in range(args.runs):
        for case in cases:
            results[case].append(one(case))
    print(f"medians of {args.runs} runs; load average {os.getloadavg()[0]:.1f}; wall ms (CPU ms)")
    for case, runs in results.items():
        after = statistics.median(float(r["after_answer"]) for r in runs)  # type: ignore[arg-type]
        parts = [
            f"after answer {after * 1000:.0f}",
            f"RSS {statistics.median(float(r['rss']) for r in runs):.0f} MB",
        ]  # type: ignore[arg-type]
        for key in [
            k
            for k in runs[0]
            if k.startswith("key ") or k in ("panel", "whole text", "held down x10", "panel after rest")
        ]:
            wall = statistics.median(r[key][0] for r in runs)  # type: ignore[index]
            cpu = statistics.median(r[key][1] for r in runs)  # type: ignore[index]
            parts.append(f"{key.removeprefix('key ')} {wall * 1000:.0f} ({cpu * 1000:.0f})")
        parts.append(f"q {statistics.median(float(r['q']) for r in runs) * 1000:.0f}")  # type: ignore[arg-type]
        print(f"  {case:10} " + " · ".join(parts))


if __name__ == "__main__":
    main()
