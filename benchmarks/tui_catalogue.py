"""Hostile catalogues in `mcpx inspect`: the catalogue on screen after the answer, keys, memory, quitting.

Each case runs the real app headless (140×45) in a fresh interpreter against
`tests/servers/hostile_catalogue.py` — a 10 MB tool description over stdio and over Streamable HTTP, a
1 MB one, 20,000 tools, a 3,000-level schema, `$ref` cycles — and reports:

    after answer   the tools/list answer appended to the traffic log → the list and the detail painted and
                   the app idle again (its first settle of the heap included); "frame": → the first frame
                   composited with the catalogue's rows and the detail's item (possibly drawn into the
                   regions of the last layout: one line of the description); "laid out": → the first frame
                   of a reflow that began with the rows and the detail's text measured (what the user sees:
                   the description at its height, the sections under it), and the process's CPU time from
                   the answer to that frame (a loaded machine stretches the wall time, less the CPU time)
                   with the CPU time of the full collections (the collector's generation 2) in it, per run
    keys           each of ↓ ↑ F1 Esc Tab Shift+Tab after a rest (and after the help screen has been built
                   off screen, where the tree does that), sent as the terminal driver sends it:
                   key → nothing queued or dirty anywhere for 0.1 s (wall, and the CPU time of the process
                   over that span), the item's call panel held back; then that panel on its own ("panel":
                   built, or an idle tool panel retargeted, until quiet as for keys) and ↓ with it on
                   screen ("down from panel"); ten ↓ at 30 a second (a held key), and from their start
                   to the last item's call panel painted. Medians over --keys rounds of the sequence.
    floor          a bare Textual app (a label, two 40-option lists, Textual's Footer) in the same process,
                   measured the same way: a Screen pushed (F1) and popped (Esc), the focus moved (Tab) —
                   what Textual itself costs
    whole text     "Show the whole description" → the virtualised text painted, then End (its last line)
    q              q → the app has exited (server stopped)
    RSS            the process's resident memory with the catalogue on screen

Why not Pilot's `press`: it waits for the screen by posting a callback to every widget on it (~180 here)
and then for idle, twice per key, which costs ~35–40 ms of CPU on this app and nothing on a small one: a
real key wakes only the widgets it concerns. Earlier figures (before 2026-11-25 06:00) include that cost.

Wall times on this shared 2-core machine swing with other jobs; CPU times are the steadier figure.
`--before SRC` runs a second mcpx tree (e.g. `git archive` of an older commit) in the same loop,
alternating with this one, so both see the same load.

    python benchmarks/tui_catalogue.py [--runs 3] [--keys 3] [--cases huge,huge-http,1mb,many,deep,cycles]
                                       [--before OLD/src]
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
HERE = Path(__file__).resolve().parent  # quiet_keys.py, imported by the child
SERVER = ROOT / "tests" / "servers" / "hostile_catalogue.py"
CASES = {
    "huge": ["huge-description", "--mb", "10"],
    "huge-http": ["huge-description", "--mb", "10"],
    "1mb": ["huge-description", "--mb", "1"],
    "many": ["many-tools", "--count", "20000"],
    "deep": ["deep-schema", "--depth", "3000"],
    "cycles": ["ref-cycles"],
    # the catalogue answered 2 s late, once the app has painted and settled: "after answer" is then the
    # catalogue's own cost, not the app's start-up it overlapped (a server answering at once)
    "huge-late": ["huge-description", "--mb", "10", "--list-delay", "2"],
    "1mb-late": ["huge-description", "--mb", "1", "--list-delay", "2"],
    "cycles-late": ["ref-cycles", "--list-delay", "2"],
}

CHILD = r"""
import asyncio, json, statistics, sys, time
from textual import events
from textual.app import App
from textual.screen import Screen
from textual.widgets import Button, Footer, Label, OptionList
from mcpx.transports.spec import resolve_target
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import make_app
from mcpx.tui.catalogue.item_detail import ItemDetail
from quiet_keys import key, settle

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


# the frame that first shows the catalogue: the list has its rows and the detail its item, composited
# ("frame"; the rows and the text may be drawn into the regions of the last layout), and the first frame
# composited by a reflow that began with the list's and the detail's new content measured ("laid out": no
# layout pending on them, so the text stands where it belongs, at its full height)
PAINTED = {}
LAID = {}
# full (generation 2) collections: (start, CPU seconds), to tell how much of the answer → frame they took
import gc
FULL_GCS = []
def gc_watch(phase, info, _started=[0.0]):
    if info["generation"] == 2:
        if phase == "start":
            _started[0] = time.process_time()
        else:
            FULL_GCS.append((time.monotonic(), time.process_time() - _started[0]))
gc.callbacks.append(gc_watch)
def catalogue_shown(app):
    lists = app.query("#tools-list")
    details = app.query(ItemDetail)
    return bool(lists and lists.first(OptionList).option_count and details
                and details.first().selection is not None)
_refresh = Screen._compositor_refresh
def compositor_refresh(self):
    _refresh(self)
    now = time.monotonic()
    if "t" not in PAINTED and self.is_mounted and catalogue_shown(self.app):
        PAINTED["t"] = now
    if "t" not in LAID and "armed" in LAID:
        LAID["t"], LAID["cpu"] = now, time.process_time()
Screen._compositor_refresh = compositor_refresh
_layout = Screen._refresh_layout
def refresh_layout(self, size=None, scroll=False):
    full = not (scroll and not self._layout_widgets)
    if full and "armed" not in LAID and self.is_mounted and catalogue_shown(self.app):
        detail = self.app.query_one(ItemDetail)
        shown = (self.app.query_one("#tools-list"), detail, *detail.children)
        if not any(w._layout_required for w in shown):
            LAID["armed"] = True
    _layout(self, size, scroll)
Screen._refresh_layout = refresh_layout


def panel_shown(detail):
    # the selected item's call panel is on screen (a tool's panel may be there hidden, parked, meanwhile)
    return any(w.display and w.visible for w in detail.query("#call-form > *"))

class Bare(App):
    BINDINGS = [("f1", "push", "push"), ("escape", "pop", "pop")]
    def compose(self):
        yield Label("bare Textual")
        yield OptionList(*[f"tool {i}" for i in range(40)])
        yield OptionList(*[f"other {i}" for i in range(40)])  # Tab moves the focus between the two
        yield Footer()
    def action_push(self):
        self.push_screen(Screen())
    def action_pop(self):
        if len(self.screen_stack) > 1:
            self.pop_screen()

def medians(samples):
    return {
        k: (statistics.median(v[0] for v in vs), statistics.median(v[1] for v in vs))
        for k, vs in samples.items()
    }

async def floor(rounds):
    bare, samples = Bare(), {}
    async with bare.run_test(size=(140, 45)) as pilot:
        await pilot.pause(0.3)
        for _ in range(rounds):
            for name in ("f1", "escape", "tab"):
                await asyncio.sleep(0.3)
                samples.setdefault(f"bare {name}", []).append(await key(bare, name))
    return medians(samples)

async def main(target, args, transport, rounds):
    out = await floor(rounds)
    spec = resolve_target(target, args, transport=transport)
    app = make_app(spec, settings=InspectSettings(protocol_era="legacy", timeout=120.0))
    async with app.run_test(size=(140, 45)) as pilot:
        tools = app.query_one("#tools-list", OptionList)
        detail = app.query_one(ItemDetail)
        answered = {}  # the process's CPU time as the answer is appended (a machine's load stretches wall)

        def listen(event):
            if event.direction == "in" and event.method == "tools/list" and "cpu" not in answered:
                answered["cpu"] = time.process_time()
        app.traffic.subscribe(listen)
        while not (app.catalog.tools is not None and tools.option_count and detail.selection is not None):
            await pilot.pause(0.005)
        await pilot.pause()
        painted, cpu = time.monotonic(), time.process_time()
        answer = next(e for e in app.traffic if e.direction == "in" and e.method == "tools/list")
        out["after_answer"] = painted - answer.mono
        out["frame_after_answer"] = PAINTED.get("t", painted) - answer.mono
        out["laid_out_after_answer"] = LAID.get("t", painted) - answer.mono
        out["laid_out_cpu"] = LAID.get("cpu", cpu) - answered.get("cpu", cpu)
        out["laid_out_gc"] = sum(c for t, c in FULL_GCS if answer.mono <= t <= LAID.get("t", painted))
        out["rss"] = rss()
        # the keys are measured once the app's idle-time job is done: the help screen built off screen
        # (`prepare_help`, a second after the first catalogue, in steps of 10-25 ms: a key pressed during
        # one waits for it; measured alone, in tui_keys.py's first F1)
        try:
            from mcpx.tui.shell.help_screen import PREPARE_STEP, help_prepared
        except ImportError:  # a tree from before it: nothing to wait for
            help_prepared = None
        if help_prepared is not None:
            deadline = time.monotonic() + 10
            while not help_prepared(app) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await asyncio.sleep(2 * PREPARE_STEP + 0.1)
        # each key after a rest (0.3 s), with the call panel's build held back (PANEL_DELAY) so that a key's
        # figure is the key's own work; the panel's build is measured on its own, then the real delay is back
        from mcpx.tui.catalogue import item_detail
        delay, item_detail.PANEL_DELAY = item_detail.PANEL_DELAY, 30.0
        samples = {}
        for _ in range(rounds):
            for name in ("down", "up", "f1", "escape", "tab", "shift+tab"):
                await asyncio.sleep(0.3)
                samples.setdefault(f"key {name}", []).append(await key(app, name))
        out.update(medians(samples))
        # the panel built (or retargeted) on its own, then ↓ with it on screen (the highlight leaves it)
        samples = {}
        for _ in range(rounds):
            await asyncio.sleep(0.3)
            w, c = time.perf_counter(), time.process_time()
            detail.show_call_panel()
            while not panel_shown(detail):
                await asyncio.sleep(0.005)
            samples.setdefault("panel", []).append((time.perf_counter() - w, await settle(app) - c))
            await asyncio.sleep(0.3)
            samples.setdefault("key down from panel", []).append(await key(app, "down"))
        out.update(medians(samples))
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
        while not panel_shown(detail):
            await asyncio.sleep(0.005)
        out["panel after rest"] = (time.perf_counter() - w, await settle(app) - c)
        shows = detail.query("#detail-show-description")  # composed hidden since 2026-11-25 15:30
        if shows and shows.first().display:
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

asyncio.run(main(sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4])))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def one(case: str, src: Path, rounds: int) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{HERE}", "TEXTUAL_ANIMATIONS": "none"}
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
            [sys.executable, "-c", CHILD, target, json.dumps(args), transport, str(rounds)],
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
    parser.add_argument("--keys", type=int, default=3, help="rounds of the key sequence in each run")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--before", type=Path, help="a src/ tree of an older mcpx, run alternately")
    args = parser.parse_args()
    cases = args.cases.split(",")
    trees = {"now": ROOT / "src", **({"before": args.before} if args.before else {})}
    results: dict[str, list[dict[str, object]]] = {
        f"{case} {tree}" if args.before else case: [] for case in cases for tree in trees
    }
    loads = []
    for _ in range(args.runs):
        for case in cases:
            for tree, src in trees.items():
                loads.append(os.getloadavg()[0])
                results[f"{case} {tree}" if args.before else case].append(one(case, src, args.keys))
    print(
        f"medians of {args.runs} runs × {args.keys} key rounds; "
        f"load average {min(loads):.1f}–{max(loads):.1f}; wall ms (CPU ms)"
    )
    for case, runs in results.items():
        after = statistics.median(float(r["after_answer"]) for r in runs)  # type: ignore[arg-type]
        frame = statistics.median(float(r["frame_after_answer"]) for r in runs)  # type: ignore[arg-type]
        laid = statistics.median(float(r["laid_out_after_answer"]) for r in runs)  # type: ignore[arg-type]
        laid_cpu = statistics.median(float(r["laid_out_cpu"]) for r in runs)  # type: ignore[arg-type]
        gcs = "/".join(f"{float(r.get('laid_out_gc', 0)) * 1000:.0f}" for r in runs)  # type: ignore[arg-type]
        parts = [
            f"after answer {after * 1000:.0f} (frame {frame * 1000:.0f}, "
            f"laid out {laid * 1000:.0f}, its CPU {laid_cpu * 1000:.0f} of which full collections {gcs})",
            f"RSS {statistics.median(float(r['rss']) for r in runs):.0f} MB",
        ]  # type: ignore[arg-type]
        for key in [
            k
            for k in runs[0]
            if k.startswith(("key ", "bare "))
            or k in ("panel", "whole text", "held down x10", "panel after rest")
        ]:
            wall = statistics.median(r[key][0] for r in runs)  # type: ignore[index]
            cpu = statistics.median(r[key][1] for r in runs)  # type: ignore[index]
            parts.append(f"{key.removeprefix('key ')} {wall * 1000:.0f} ({cpu * 1000:.0f})")
        parts.append(f"q {statistics.median(float(r['q']) for r in runs) * 1000:.0f}")  # type: ignore[arg-type]
        print(f"  {case:13} " + " · ".join(parts))


if __name__ == "__main__":
    main()
