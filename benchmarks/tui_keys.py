"""Every key of `mcpx inspect`, the first press of a session and a later one: CPU per key.

Issue #21 asks that every key answer within 100 ms. `tui_catalogue.py` measures the keys that move in a
hostile catalogue (↓ ↑ F1 Esc Tab Shift+Tab); this walks the rest of the keymap the way a user first
meets it — a screen or pane opened for the first time composes widgets, imports code, parses styles, so
the first press of a session is the one that can be slow:

    i Esc      the server's info screen, and back
    t b        the focus to the traffic log, back to the catalogue
    R M P T    the catalogue's tabs: resources, templates, prompts, tools
    / x Esc    the catalogue's filter focused, a letter typed (the list filtered), the filter left
    F1 Esc     the help screen
    ctrl+p Esc Textual's command palette (mcpx's commands listed)
    ctrl+r Esc the call panel of the tool shown, and back

Each key is sent as the terminal driver sends it, after a rest of 0.3 s; its figure runs to the moment
nothing is queued, laid out or drawn anywhere for 0.1 s (the method and its reasons are in
`tui_catalogue.py`'s docstring). The sequence runs twice in a fresh process per run: "first" is the
first pass, "again" the second. Servers: the bundled demo (`mcpx.demo`) and 20,000 tools
(`tests/servers/hostile_catalogue.py many-tools`), where the filter has the most to do.

    python benchmarks/tui_keys.py [--runs 3] [--cases demo,many] [--before OLD/src]

Report it beside `benchmarks/vm_speed.py`'s figure: the VM's speed drifts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent  # quiet_keys.py, imported by the child
SERVER = ROOT / "tests" / "servers" / "hostile_catalogue.py"
CASES = {
    "demo": [sys.executable, "-m", "mcpx.demo"],
    "many": [sys.executable, str(SERVER), "many-tools", "--count", "20000"],
}
#: the walk; a name is sent as Textual names keys ("question_mark", "ctrl+p", a letter as itself)
SEQUENCE = [
    *("i", "escape", "t", "b", "R", "M", "P", "T", "slash", "x", "escape"),
    *("f1", "escape", "ctrl+p", "escape", "ctrl+r", "escape"),
]

CHILD = r"""
import asyncio, json, sys, time
from textual.widgets import OptionList
from mcpx.transports.spec import resolve_target
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import make_app
from mcpx.tui.catalogue.item_detail import ItemDetail
from quiet_keys import key

async def timed(app, name):
    wall, cpu = await key(app, name, name if len(name) == 1 else None)
    return (wall, cpu, type(app.screen).__name__)

async def main(command, sequence):
    spec = resolve_target(command[0], command[1:])
    app = make_app(spec, settings=InspectSettings(protocol_era="legacy", timeout=120.0))
    out = {}
    async with app.run_test(size=(160, 45)) as pilot:
        tools = app.query_one("#tools-list", OptionList)
        detail = app.query_one(ItemDetail)
        while not (app.catalog.tools is not None and tools.option_count and detail.selection is not None):
            await pilot.pause(0.005)
        await asyncio.sleep(1.5)  # past start-up's settle of the heap
        # and past the help screen's building off screen (a second after the catalogue, in steps of
        # 10-25 ms; a key pressed during one waits for it), where the tree does that
        try:
            from mcpx.tui.shell.help_screen import PREPARE_STEP, help_prepared
        except ImportError:
            help_prepared = None
        if help_prepared is not None:
            deadline = time.monotonic() + 10
            while not help_prepared(app) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await asyncio.sleep(2 * PREPARE_STEP + 0.1)
        for rnd in ("first", "again"):
            for i, name in enumerate(sequence):
                await asyncio.sleep(0.3)
                out[f"{rnd} {i:02d} {name}"] = await timed(app, name)
        app.exit()
    print("@@" + json.dumps(out))

asyncio.run(main(json.loads(sys.argv[1]), json.loads(sys.argv[2])))
"""


def one(case: str, src: Path) -> dict[str, list[object]]:
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{HERE}", "TEXTUAL_ANIMATIONS": "none"}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(CASES[case]), json.dumps(SEQUENCE)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("@@")), None)
    if line is None:
        raise SystemExit(f"{case} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return dict(json.loads(line[2:]))


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--before", type=Path, help="a src/ tree of an older mcpx, run alternately")
    args = parser.parse_args()
    trees = {"now": ROOT / "src", **({"before": args.before} if args.before else {})}
    results: dict[str, list[dict[str, list[object]]]] = {}
    loads = []
    for _ in range(args.runs):
        for case in args.cases.split(","):
            for tree, src in trees.items():
                loads.append(os.getloadavg()[0])
                results.setdefault(f"{case} {tree}", []).append(one(case, src))
    print(f"medians of {args.runs} runs; load average {min(loads):.1f}–{max(loads):.1f}; CPU ms (wall ms)")
    for label, runs in results.items():
        print(f"  {label}")
        worst = ("", 0.0)
        for step in runs[0]:
            cpu = statistics.median(float(r[step][1]) for r in runs) * 1000  # type: ignore[arg-type]
            wall = statistics.median(float(r[step][0]) for r in runs) * 1000  # type: ignore[arg-type]
            screen = runs[0][step][2]
            mark = "  ✘" if cpu > 100 else ""
            print(f"    {step[:5]:5} {step[9:]:13} {cpu:6.0f} ({wall:5.0f})  → {screen}{mark}")
            worst = max(worst, (step, cpu), key=lambda pair: pair[1])
        print(f"    slowest: {worst[0]} {worst[1]:.0f} ms CPU")


if __name__ == "__main__":
    main()
