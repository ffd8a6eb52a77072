"""The traffic log under load: ingest, filter, scroll, memory, and a 10 MB frame — medians.

A headless `mcpx inspect` app (a log viewer: no server) is fed 100 000 synthetic events of a busy
session — per ten events: four `tools/call` requests, their four responses, one progress notification,
one stderr line — decoded by the real `TrafficLog`, as a transport would append them.

    ingest        events/s from the first append until every view has taken all of them in and the
                  screen has repainted (target ≥ 20 000/s), with the event loop's worst and 99th
                  percentile lateness on a 10 ms ticker meanwhile (the UI stays responsive)
    filter        one filter over 100 000 events: parse, compile, rebuild the rows (target < 100 ms)
    scroll        one keystroke on the 100 000-row log, strip cache cold: the action and the repaint of the
                  log's visible rows, and the whole path key event → screen painted (target < 50 ms)
    memory        MB per 10 000 events: the log itself (tracemalloc) and what the views add
    10 MB frame   Enter on a 10 MB response → its event screen painted, preview first (target ≤ 200 ms)

    python benchmarks/tui_traffic.py             # 5 repetitions
    python benchmarks/tui_traffic.py --events 20000 --reps 3
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import Any

from textual.geometry import Region

from mcpx.tui.shell.app import InspectApp, make_app
from mcpx.tui.traffic.event_screen import EventScreen
from mcpx.tui.traffic.traffic_view import TrafficView
from mcpx.wire import Request, decode
from mcpx.wire.traffic import TrafficLog

SIZE = (160, 45)
FILTERS = [
    "tools/call",
    "method:tools/call",
    "status:error",
    "dur:>500ms",
    "-dir:info -kind:stderr",
    "method:tools/call status:ok dur:<100ms",
    "id:4242",
]


def frames(count: int) -> list[tuple[str, Any]]:
    """(kind, payload) pairs: ("out", (text, message)), ("in", bytes), ("stderr", str)."""
    out: list[tuple[str, Any]] = []
    rid = 0
    while len(out) < count:
        ids = []
        for _ in range(4):
            rid += 1
            ids.append(rid)
            params = {"name": "search", "arguments": {"query": f"weather in city {rid}", "limit": 10}}
            text = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
            out.append(("out", (text, Request(rid, "tools/call", params))))
        for i, answered in enumerate(ids):
            if i == 3 and answered % 40 == 0:
                body = {"jsonrpc": "2.0", "id": answered, "error": {"code": -32602, "message": "bad city"}}
            else:
                content = [
                    {"type": "text", "text": f"Sunny, {answered % 30} degrees, light wind from the west"}
                ]
                body = {"jsonrpc": "2.0", "id": answered, "result": {"content": content, "isError": False}}
            out.append(("in", json.dumps(body).encode()))
        progress = {"progressToken": ids[0], "progress": rid % 100, "total": 100}
        out.append(
            (
                "in",
                json.dumps(
                    {"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}
                ).encode(),
            )
        )
        out.append(("stderr", f"INFO handled request {rid} in {rid % 7} ms"))
    return out[:count]


class StepClock:
    """Sessions have latencies: each append moves time on by 1 ms."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def append_all(log: TrafficLog, batch: list[tuple[str, Any]]) -> None:
    for kind, payload in batch:
        if kind == "out":
            log.sent(payload[0], payload[1], "stdio")
        elif kind == "in":
            log.received(payload, "stdio")
        else:
            log.stderr(payload)


async def ingest(
    app: InspectApp, pilot: Any, data: list[tuple[str, Any]], chunk: int = 500
) -> dict[str, float]:
    log = app.traffic
    lateness: list[float] = []
    running = True

    async def ticker() -> None:
        loop = asyncio.get_running_loop()
        while running:
            due = loop.time() + 0.01
            await asyncio.sleep(0.01)
            lateness.append(loop.time() - due)

    tick = asyncio.create_task(ticker())
    start = time.perf_counter()
    for i in range(0, len(data), chunk):
        append_all(log, data[i : i + chunk])
        await asyncio.sleep(0)  # a transport yields between reads
    appended = time.perf_counter()
    views = app.panel.views()
    await until(lambda: all(view._scanned == len(log) for view in views), 0.005)
    await pilot.pause()
    done = time.perf_counter()
    running = False
    await tick
    lateness.sort()
    return {
        "append_s": appended - start,
        "total_s": done - start,
        "rate": len(data) / (done - start),
        "lag_max_ms": 1000 * lateness[-1] if lateness else 0.0,
        "lag_p99_ms": 1000 * lateness[int(len(lateness) * 0.99)] if lateness else 0.0,
    }


async def until(condition: Callable[[], bool], step: float = 0.001) -> None:
    """Poll `condition` (a benchmark may: it measures, it does not test)."""
    for _ in itertools.count():
        if condition():
            return
        await asyncio.sleep(step)


async def painted(app: InspectApp) -> float:
    """The time just after the next screen refresh."""
    done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    app.screen.call_after_refresh(lambda: done.done() or done.set_result(time.perf_counter()))
    return await done


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


async def bench(events: int, reps: int) -> dict[str, Any]:
    data = frames(events)
    results: dict[str, Any] = {"events": events}

    # baseline: the log alone, no UI (what the core costs per event)
    log_only = []
    for _ in range(reps):
        bare = TrafficLog(clock=StepClock())
        log_only.append(events / timed(lambda bare=bare: append_all(bare, data)))
    results["log_only_rate"] = statistics.median(log_only)

    # memory of the log (tracemalloc, so it counts the decoded messages too)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    measured = TrafficLog(clock=StepClock())
    append_all(measured, data)
    results["log_mb_per_10k"] = (tracemalloc.get_traced_memory()[0] - before) / 1e6 / (events / 10_000)
    tracemalloc.stop()
    del measured

    runs = []
    for _ in range(reps):
        app = make_app(None, traffic=TrafficLog(clock=StepClock()))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            runs.append(await ingest(app, pilot, data))
            if len(runs) < reps:
                continue
            # the last app stays for the other measurements
            view = app.panel.traffic_view
            views = app.panel.views()
            results["views_mb_per_10k"] = (
                sum(v.rows.itemsize * len(v.rows) for v in views) / 1e6 / (events / 10_000)
            )
            results["strip_cache_max"] = f"{len(views)} views × 2048 strips"

            results["filter_ms"] = filters(view, reps)
            view.filter_text = ""
            await pilot.pause()
            results["scroll_ms"] = await scrolling(app, view, reps)

            results["preview_ms"] = await big_frame(app, pilot, reps)
    results["ingest"] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    return results


def filters(view: TrafficView, reps: int) -> dict[str, float]:
    """Wall and CPU (process) time of each filter: on a shared machine the CPU time is the steadier."""
    times: dict[str, float] = {}
    for text in FILTERS:
        wall, cpu = [], []
        for _ in range(reps):
            view.filter_text = ""
            started, started_cpu = time.perf_counter(), time.process_time()
            view.filter_text = text
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        times[text] = round(1000 * statistics.median(wall), 1)
        times[text + " (cpu)"] = round(1000 * statistics.median(cpu), 1)
        times[text + " → rows"] = len(view.rows)
    return times


async def scrolling(app: InspectApp, view: TrafficView, reps: int) -> dict[str, float]:
    """Per key: the action plus the repaint of the log's rows, timed directly; and the whole path from a
    key event to the screen painted (bindings, action, compositor)."""
    view.focus()
    width, height = view.scrollable_content_region.size
    region = Region(0, 0, width, height)
    actions: dict[str, Callable[[], None]] = {
        "down": partial(view.action_cursor, 1),
        "up": partial(view.action_cursor, -1),
        "pagedown": partial(view.action_page, 1),
        "pageup": partial(view.action_page, -1),
        "end": view.action_follow,
        "home": view.action_first,
    }
    direct: dict[str, list[float]] = {}
    view.action_first()
    for name, action in actions.items():
        for _ in range(reps * 4):
            if name.startswith("page"):
                view._strips.clear()  # cold: a page jump renders rows never seen
            direct.setdefault(name, []).append(
                1000 * timed(lambda a=action: (a(), view.render_lines(region)))
            )
            await painted(app)
    keyed: dict[str, list[float]] = {}
    view.action_first()
    for key in ("down", "pagedown", "pagedown", "up", "pageup"):
        for _ in range(reps * 2):
            before = (view.cursor, view.scroll_offset.y)
            view._strips.clear()
            start = time.perf_counter()
            app.simulate_key(key)
            await until(lambda b=before: (view.cursor, view.scroll_offset.y) != b, 0)
            keyed.setdefault(key, []).append(1000 * (await painted(app) - start))
    result = {f"{k} (direct)": statistics.median(v) for k, v in direct.items()}
    result |= {f"{k} (key → painted)": statistics.median(v) for k, v in keyed.items()}
    return result


async def big_frame(app: InspectApp, pilot: Any, reps: int) -> dict[str, float]:
    log = app.traffic
    text = "x" * (10 * 1024 * 1024)
    log.sent('{"jsonrpc":"2.0","id":"big","method":"tools/call"}', Request("big", "tools/call"), "stdio")
    body = {"jsonrpc": "2.0", "id": "big", "result": {"content": [{"type": "text", "text": text}]}}
    raw = json.dumps(body).encode()
    assert decode(raw).message is not None
    event = log.received(raw, "stdio")
    view = app.panel.traffic_view
    view.filter_text = ""
    await until(lambda: view._scanned == len(log), 0.005)
    opened: list[float] = []
    shown_all: list[float] = []
    for _ in range(reps):
        assert view.select_seq(event.seq)
        start = time.perf_counter()
        view.action_open()
        await until(lambda: isinstance(app.screen, EventScreen), 0)
        opened.append(1000 * (await painted(app) - start))
        start = time.perf_counter()
        await pilot.press("a")
        await until(lambda: bool(app.screen.query("#event-raw-all")))
        shown_all.append(1000 * (await painted(app) - start))
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, EventScreen))
    return {"open_preview_ms": statistics.median(opened), "show_all_ms": statistics.median(shown_all)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    results = asyncio.run(bench(args.events, args.reps))
    results["machine"] = {"cpus": os.cpu_count(), "load_average": round(os.getloadavg()[0], 1)}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
