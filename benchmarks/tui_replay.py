"""`mcpx replay FILE` on a 100,000-event recording: time to the first screen, and to the whole file read.

The recording is a session written by the real recorder: a spawned process, the handshake, a 40-tool
`tools/list`, then `tools/call` requests and responses with a stderr line every 50 calls until there are
--events events (≈ 22 MB at 100,000). Each run starts a fresh interpreter that runs the real CLI
(`mcpx replay FILE`, stdout on a pseudo-terminal so it opens the TUI) with the app made headless, and
reports from inside the app:

    first screen  spawn of `mcpx replay` → the first frame composited with the browser's tools and the
                  scrubber on screen (target < 1 s)
    log shown     → the traffic panel (mounted right after the first paint) showing its rows
    all read      → the last event read by the background worker, every view caught up (and the
                  child's CPU time by then)
    lateness      the event loop's worst delay on a 10 ms ticker while the rest is read (the screen
                  stays usable meanwhile)
    step          one `.` (one event on) once everything is read: key → screen painted (the median of
                  MCPX_BENCH_STEPS steps, 5 unless set, each after a 0.2 s rest); step CPU: the same in CPU
    filter        `channel:stderr` typed into the traffic log's filter once all is read: the call that
                  applies it (what a key waits for), until every row is found (all, and its CPU), and the
                  loop's worst lateness meanwhile
    first screen CPU   the child's CPU time at its first screen (what a loaded machine does not inflate)
    bare Textual  the floor: a one-widget Textual app, launch → first paint, in the same conditions

    first screen RSS / steady RSS  the child's resident memory at the first screen, and once all is read
                  (MCPX_BENCH_HEAP=1: what makes it up — glibc's heap, pymalloc's arenas, mapped files,
                  live and free — there, and where RSS was highest while reading)
    peak RSS      the child's peak resident memory over the run (the filter's pass included), and up to
                  the steady state (reading)
    summary       `mcpx replay FILE` with stdout not a terminal (the streamed description):
                  wall, CPU, peak RSS

    python benchmarks/tui_replay.py [--events 100000] [--runs 5]
    # the 200 MB recording of issue 21:
    python benchmarks/tui_replay.py --events 161527 --text-bytes 2400 --runs 3
    # what holds the steady memory (tracemalloc's top 25 lines; slower, its times are not the app's):
    MCPX_BENCH_TRACEMALLOC=25 python benchmarks/tui_replay.py --events 161527 --text-bytes 2400 --runs 1
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

from tui_startup import bare_textual

from mcpx.record.writer import start_recording
from mcpx.transports.spec import ServerSpec
from mcpx.wire import Notification, Request, Response
from mcpx.wire.jsonrpc import encode
from mcpx.wire.traffic import TrafficLog

CHILD = r"""
import asyncio, json, os, sys, time
if os.environ.get("MCPX_BENCH_TRACEMALLOC"):
    import tracemalloc
    tracemalloc.start()
from textual.app import App
# `mcpx replay` runs ReplayApp (its own app since the composition of 2026-11-25: it is no InspectApp)
from mcpx.tui.replay.replay_app import ReplayApp

_run = App.run
def headless_run(self, *args, **kwargs):
    kwargs["headless"] = True
    kwargs.setdefault("size", (160, 45))
    return _run(self, *args, **kwargs)
App.run = headless_run

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * __import__("os").sysconf("SC_PAGE_SIZE") / 2**20

def say(**facts):
    sys.stderr.write(json.dumps(facts) + "\n")
    sys.stderr.flush()


def heap_facts():
    # RSS next to what is live: pymalloc arenas (used, free blocks) and glibc heap (in use, free)
    import ctypes, re, sys, tempfile
    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                    "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    m = libc.mallinfo2()
    with tempfile.TemporaryFile() as f:
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        text = f.read().decode()
    def grab(label):
        found = re.search(r"^" + re.escape(label) + r"\s*=\s*([\d,]+)", text, re.M)
        return int(found.group(1).replace(",", "")) / 2**20 if found else -1
    rss_by = {"heap": 0, "anon": 0, "file": 0}  # resident kB: glibc's [heap], other anonymous maps, files
    kind = "file"
    with open("/proc/self/smaps") as maps:
        for ln in maps:
            head = ln.split()
            if not ln[0].isupper() or ":" not in head[0]:
                anon = len(head) < 6 or head[5].startswith("[")
                kind = "heap" if ln.rstrip().endswith("[heap]") else ("anon" if anon else "file")
            elif head[0] == "Rss:":
                rss_by[kind] += int(head[1])
    return dict(rss=round(rss_mb(), 1), **{k + "_rss": round(v / 1024, 1) for k, v in rss_by.items()},
                py_arenas=round(grab("# arenas allocated current") * 2**20 * 0.25, 1),  # 256 KiB each
                py_used=round(grab("# bytes in allocated blocks"), 1),
                py_free=round(grab("# bytes in available blocks"), 1),
                malloc_used=round(m.uordblks / 2**20, 1), malloc_free=round(m.fordblks / 2**20, 1),
                malloc_mmap=round(m.hblkhd / 2**20, 1), malloc_arena=round(m.arena / 2**20, 1))

from textual.screen import Screen
from textual.widgets import OptionList
_refresh = Screen._compositor_refresh
FIRST = {}
# loaded when first needed, not before the first screen (start-up's lazy imports): which of them were
DEFERRED = ("mcpx.tui.catalogue.tool_call", "textual.widgets._text_area", "rich.markdown", "markdown_it",
            "rich.syntax", "pygments")
def compositor_refresh(self):
    _refresh(self)
    if "t" not in FIRST and self.is_mounted:
        lists = self.app.query("#tools-list")
        if lists and lists.first(OptionList).option_count and self.app.query("#scrubber"):
            FIRST.update(t=time.time(), cpu=time.process_time(), tools=len(self.app.catalog.tools or ()),
                         events=len(self.app.traffic), rss=rss_mb(), modules=len(sys.modules),
                         deferred=[m for m in DEFERRED if m in sys.modules])
            if os.environ.get("MCPX_BENCH_HEAP"):
                say(heap_first=heap_facts())
            if os.environ.get("MCPX_BENCH_TRACEMALLOC"):
                import tracemalloc
                FIRST["snapshot"] = tracemalloc.take_snapshot()
Screen._compositor_refresh = compositor_refresh

_mounted = ReplayApp.on_mount
def on_mount(self):
    _mounted(self)
    async def follow():
        worst = 0.0
        last = time.perf_counter()
        while self.loading or "t" not in FIRST:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            worst = max(worst, now - last - 0.01)
            last = now
        while not self.query("#traffic") or self.query_one("#traffic")._scanned < len(self.traffic):
            await asyncio.sleep(0.01)
        shown, shown_cpu = time.time(), time.process_time()
        steps = []  # a few `.` steps after a rest each: (wall, CPU) of key -> painted
        for _ in range(int(os.environ.get("MCPX_BENCH_STEPS", "5"))):
            await asyncio.sleep(0.2)
            started, cpu = time.perf_counter(), time.process_time()
            await self._press_and_paint()
            steps.append((time.perf_counter() - started, time.process_time() - cpu))
        step = sorted(wall for wall, _ in steps)[len(steps) // 2]
        step_cpu = sorted(cpu for _, cpu in steps)[len(steps) // 2]
        import resource
        if os.environ.get("MCPX_BENCH_TRIM"):  # what the steady RSS is once freed heap goes back to the OS
            import ctypes, gc
            before = rss_mb()
            gc.collect()
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            say(trim=[before, rss_mb()])
        if os.environ.get("MCPX_BENCH_TRACEMALLOC"):  # what holds the steady memory, by line
            import gc, tracemalloc
            gc.collect()
            snapshot = tracemalloc.take_snapshot()
            top = snapshot.statistics("lineno")
            n = int(os.environ["MCPX_BENCH_TRACEMALLOC"])
            say(tracemalloc=[(str(s.traceback), s.size, s.count) for s in top[:n]],
                traced=sum(s.size for s in top))
            grown = snapshot.compare_to(FIRST["snapshot"], "lineno")  # what the steady state added
            say(tracemalloc_grown=[(str(s.traceback), s.size_diff, s.count_diff) for s in grown[:n]],
                traced_first=sum(s.size for s in FIRST["snapshot"].statistics("filename")))
        steady = rss_mb()
        peak_reading = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # (before the filter)
        if os.environ.get("MCPX_BENCH_HEAP"):
            say(heap_steady=heap_facts(), heap_peak=PEAK)
        # a new filter over the whole log (most of it decoded from disk again): the call that sets it
        # (what a key waits for), until every row is found, and the loop's worst lateness meanwhile
        view = self.query_one("#traffic")
        started, cpu = time.perf_counter(), time.process_time()
        view.filter_text = "channel:stderr"
        filter_call = time.perf_counter() - started
        filter_late, last = 0.0, time.perf_counter()
        while getattr(view, "catching_up", False):
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            filter_late, last = max(filter_late, now - last - 0.005), now
        filter_all, filter_cpu = time.perf_counter() - started, time.process_time() - cpu
        say(filter_call=filter_call, filter_all=filter_all, filter_cpu=filter_cpu, filter_late=filter_late,
            filter_rows=len(view.rows))
        say(painted=FIRST["t"], cpu=FIRST["cpu"], tools=FIRST["tools"], events_then=FIRST["events"],
            all_read=shown, all_read_cpu=shown_cpu, lateness=worst, step=step, step_cpu=step_cpu,
            events=len(self.traffic), modules=FIRST["modules"], deferred=FIRST["deferred"],
            log_shown=self._log_shown,
            rss_first=FIRST["rss"], rss_steady=steady, rss_peak_reading=peak_reading,
            rss_peak=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        self.exit(0)
    self.run_worker(follow(), exit_on_error=True)
    def log_watch():
        if not hasattr(self, "_log_shown") and self.query("#traffic"):
            if self.query_one("#traffic").rows:
                self._log_shown = time.time()
    self.set_interval(0.005, log_watch)
ReplayApp.on_mount = on_mount

PEAK = {}
if os.environ.get("MCPX_BENCH_HEAP"):  # the heap where RSS was highest while reading, batch by batch
    _took_in = ReplayApp._took_in
    def took_in(self):
        _took_in(self)
        rss = rss_mb()
        if rss > PEAK.get("rss", 0):
            PEAK.clear()
            PEAK.update(heap_facts(), events=len(self.traffic))
    ReplayApp._took_in = took_in

async def press_and_paint(self):
    done = asyncio.Event()
    moment = self.moment
    self.action_step(-1 if moment else 1)
    self.call_after_refresh(done.set)
    await done.wait()
ReplayApp._press_and_paint = press_and_paint

from mcpx.cli.main import run
sys.argv = ["mcpx", "replay", *sys.argv[1:]]
run()
"""


def make_recording(path: Path, events: int, text_bytes: int = 0) -> None:
    log = TrafficLog()
    recorder = start_recording(path, log, ServerSpec(command=["python", "echo_server.py"]), era="legacy")
    log.info("spawned python echo_server.py (pid 1)", "process", event="spawned", pid=1)

    def exchange(rid: int, method: str, params: object, result: object) -> None:
        request = Request(rid, method, params)
        log.sent(encode(request.to_obj()), request, "stdio")
        log.received(encode(Response(rid, result).to_obj()).encode(), "stdio")

    exchange(
        0,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcpx", "version": "0"}},
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "echo-server", "version": "1.0.0"},
            "instructions": "Echoes.",
        },
    )
    initialized = Notification("notifications/initialized", None)
    log.sent(encode(initialized.to_obj()), initialized, "stdio")
    tools = [
        {
            "name": f"tool_{i}",
            "description": f"Tool number {i}.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        }
        for i in range(40)
    ]
    exchange(1, "tools/list", None, {"tools": tools})
    rid = 1
    filler = ("lorem ipsum dolor sit amet " * (text_bytes // 27 + 1))[:text_bytes]
    while len(log) < events:
        rid += 1
        params = {"name": "tool_1", "arguments": {"text": f"hello {rid}"}}
        text = f"hello {rid} {filler}" if filler else f"hello {rid}"
        exchange(rid, "tools/call", params, {"content": [{"type": "text", "text": text}]})
        if rid % 50 == 0:
            log.stderr(f"handled {rid} calls")
    recorder.close()


def one_run(path: Path, env: dict[str, str]) -> dict[str, float]:
    main, child = os.openpty()  # stdout a terminal: `mcpx replay FILE` opens the TUI only there
    started = time.time()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)],
            stdout=child,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
    finally:
        os.close(child)
        os.close(main)
    for ln in proc.stderr.splitlines():
        if ln.startswith('{"trim"'):
            held, trimmed = json.loads(ln)["trim"]
            print(f"steady RSS {held:.0f} MB, after gc.collect() and malloc_trim(0) {trimmed:.0f} MB")
        if ln.startswith('{"heap_'):
            print(ln)
        if ln.startswith('{"tracemalloc_grown"'):
            traced = json.loads(ln)
            first = traced["traced_first"] / 2**20
            print(f"traced at the first screen {first:.1f} MB; grown since, by line:")
            for where, size, count in traced["tracemalloc_grown"]:
                print(f"  {size / 2**20:+7.1f} MB {count:>+9,} blocks  {where}")
        if ln.startswith('{"tracemalloc"'):
            traced = json.loads(ln)
            print(f"traced {traced['traced'] / 2**20:.1f} MB; the biggest by line:")
            for where, size, count in traced["tracemalloc"]:
                print(f"  {size / 2**20:7.1f} MB {count:>9,} blocks  {where}")
    lines = proc.stderr.splitlines()
    filtered = next((json.loads(ln) for ln in lines if ln.startswith('{"filter_call"')), {})
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith('{"painted"')), None)
    if line is None:
        raise SystemExit(f"the run failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    data = json.loads(line)
    assert data["tools"] == 40, data
    return {
        "first screen": data["painted"] - started,
        "first screen CPU": data["cpu"],
        "log shown": data["log_shown"] - started,
        "all read": data["all_read"] - started,
        "all read CPU": data["all_read_cpu"],
        "lateness": data["lateness"],
        "step": data["step"],
        "step CPU": data["step_cpu"],
        "events": data["events"],
        "first screen RSS": data["rss_first"],
        "steady RSS": data["rss_steady"],
        "peak RSS reading": data["rss_peak_reading"],
        "peak RSS": data["rss_peak"],
        "filter call": filtered["filter_call"],
        "filter all": filtered["filter_all"],
        "filter CPU": filtered["filter_cpu"],
        "filter lateness": filtered["filter_late"],
        "modules": data["modules"],
        "deferred": data["deferred"],
    }


def summary_run(path: Path, env: dict[str, str]) -> dict[str, float]:
    """`mcpx replay FILE` with stdout a pipe: the description, streamed; wall, CPU and peak RSS."""
    code = (
        "import resource, sys; from mcpx.cli.main import run\n"
        "sys.argv = ['mcpx', 'replay', sys.argv[1]]\n"
        "try:\n    run()\nfinally:\n"
        "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
        "    sys.stderr.write(f'@@ {u.ru_utime + u.ru_stime} {u.ru_maxrss / 1024}\\n')"
    )
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    wall = time.perf_counter() - started
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("@@"))
    _, cpu, peak = line.split()
    return {"summary": wall, "summary CPU": float(cpu), "summary peak RSS": float(peak)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--text-bytes", type=int, default=0, help="text added to every tools/call result")
    parser.add_argument("--keep", help="write the recording here (and reuse it when it exists)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        path = Path(args.keep) if args.keep else Path(home) / "big.mcpx.jsonl"
        if not path.exists():
            make_recording(path, args.events, args.text_bytes)
        size = path.stat().st_size
        env = {**os.environ, "MCPX_CACHE_DIR": home, "MCPX_CONFIG_DIR": home, "TEXTUAL_ANIMATIONS": "none"}
        runs = []
        for _ in range(args.runs):  # interleaved with the floor, so a busy machine hurts both alike
            runs.append(one_run(path, env))
            runs[-1]["bare Textual"] = bare_textual(env)
            runs[-1].update(summary_run(path, env))
    print(f"mcpx replay on {runs[0]['events']:,.0f} events ({size / 1e6:.1f} MB), median of {args.runs} runs")
    for key, unit in (
        ("first screen", "s"),
        ("first screen CPU", "s"),
        ("bare Textual", "s"),
        ("log shown", "s"),
        ("all read", "s"),
        ("all read CPU", "s"),
        ("lateness", "ms"),
        ("step", "ms"),
        ("step CPU", "ms"),
        ("filter call", "ms"),
        ("filter all", "s"),
        ("filter CPU", "s"),
        ("filter lateness", "ms"),
        ("first screen RSS", "MB"),
        ("steady RSS", "MB"),
        ("peak RSS reading", "MB"),
        ("peak RSS", "MB"),
        ("summary", "s"),
        ("summary CPU", "s"),
        ("summary peak RSS", "MB"),
    ):
        values = [r[key] * (1000 if unit == "ms" else 1) for r in runs]
        if unit == "MB":
            print(f"  {key:<16} {statistics.median(values):>7.0f} MB   ({min(values):.0f}–{max(values):.0f})")
            continue
        spread = (
            f"{min(values):.3f}–{max(values):.3f}" if unit == "s" else f"{min(values):.0f}–{max(values):.0f}"
        )
        median = statistics.median(values)
        shown = f"{median:.3f} {unit}" if unit == "s" else f"{median:.0f} {unit}"
        print(f"  {key:<16} {shown:>10}   ({spread})")
    modules = statistics.median(r["modules"] for r in runs)
    deferred = sorted({m for r in runs for m in r["deferred"]})
    later = ", ".join(deferred) or "none"
    print(f"  modules loaded at the first screen: {modules:.0f}; of those meant for later: {later}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
