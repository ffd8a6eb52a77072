"""The traffic log under load: ingest, filter, scroll, memory, and a 10 MB frame — medians.

A headless `mcpx inspect` app (a log viewer: no server) is fed 100 000 synthetic events of a busy
session — per ten events: four `tools/call` requests, their four responses, one progress notification,
one stderr line — decoded by the real `TrafficLog`, as a transport would append them.

    ingest        events/s from the first append until every view has taken all of them in and the
                  screen has repainted (target ≥ 20 000/s), with the event loop's worst and 99th
                  percentile lateness on a 10 ms ticker meanwhile (the UI stays responsive)
    filter        one filter over 100 000 events: parse, compile, rebuild the rows (target < 100 ms)
    scroll        one keystroke on the 100 000-row log: the action and the repaint of the log's visible
                  rows, the strip cache cold for page jumps (target < 50 ms)
    memory        MB per 10 000 events: the log itself (tracemalloc) and what the views add
    10 MB frame   Enter on a 10 MB response → its event screen painted, preview first (target ≤ 200 ms)

    python benchmarks/tui_traffic.py             # 5 repetitions
    python benchmarks/tui_traffic.py --events 20000 --reps 3
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from textual.geometry import Region

from mcpx.tui.app import InspectApp, make_app
from mcpx.tui.event_screen import EventScreen
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
                content = [{"type": "text", "text": f"Sunny, {answered % 30} degrees, light wind from the west"}]
                body = {"jsonrpc": "2.0", "id": answered, "result": {"content": content, "isError": False}}
            out.append(("in", json.dumps(body).encode()))
        progress = {"progressToken": ids[0], "progress": rid % 100, "total": 100}
        out.append(("in", json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}).encode()))
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


async def ingest(app: InspectApp, pilot: Any, data: list[tuple[str, Any]], chunk: int = 500) -> dict[str, float]:
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
    while not all(view._scanned == len(log) for view in views):
        await asyncio.sleep(0.005)
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
            results["views_mb_per_10k"] = sum(v.rows.itemsize * len(v.rows) for v in views) / 1e6 / (events / 10_000)
            results["strip_cache_max"] = f"{len(views)} views × 2048 strips"

            filter_times: dict[str, float] = {}
            for text in FILTERS:
                samples = []
                for _ in range(reps):
                    view.filter_text = ""
                    samples.append(timed(lambda text=text: setattr(view, "filter_text", text)))
                filter_times[text] = 1000 * statistics.median(samples)
                filter_times[text + " → rows"] = len(view.rows)
            view.filter_text = ""
            await pilot.pause()
            results["filter_ms"] = filter_times

            view.focus()
            width, height = view.scrollable_content_region.size
            region = Region(0, 0, width, height)
            scroll: dict[str, list[float]] = {}
            view.action_first()
            for name, action in (
                ("down", lambda: view.action_cursor(1)),
                ("up", lambda: view.action_cursor(-1)),
                ("page down", lambda: view.action_page(1)),
                ("page up", lambda: view.action_page(-1)),
                ("end", view.action_follow),
                ("home", view.action_first),
            ):
                for _ in range(reps * 4):
                    if name.startswith("page"):
                        view._strips.clear()  # cold: a page jump renders rows never seen
                    scroll.setdefault(name, []).append(1000 * timed(lambda a=action: (a(), view.render_lines(region))))
                    await pilot.pause()
            results["scroll_ms"] = {k: statistics.median(v) for k, v in scroll.items()}
            keys = []
            view.action_first()
            for _ in range(reps * 4):
                start = time.perf_counter()
                await pilot.press("pagedown")
                keys.append(1000 * (time.perf_counter() - start))
            results["scroll_pilot_pagedown_ms"] = statistics.median(keys)

            results["preview_ms"] = await big_frame(app, pilot, reps)
    results["ingest"] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    return results


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
    while view._scanned != len(log):
        await asyncio.sleep(0.005)
    opened: list[float] = []
    shown_all: list[float] = []
    for _ in range(reps):
        assert view.select_seq(event.seq)
        painted = asyncio.get_running_loop().create_future()
        start = time.perf_counter()
        view.action_open()
        while not isinstance(app.screen, EventScreen):
            await asyncio.sleep(0)
        app.screen.call_after_refresh(lambda: painted.done() or painted.set_result(time.perf_counter()))
        opened.append(1000 * (await painted - start))
        start = time.perf_counter()
        await pilot.press("a")
        while not app.screen.query("#event-raw-all"):
            await asyncio.sleep(0.001)
        await pilot.pause()
        shown_all.append(1000 * (time.perf_counter() - start))
        await pilot.press("escape")
        while isinstance(app.screen, EventScreen):
            await asyncio.sleep(0.001)
    return {"open_preview_ms": statistics.median(opened), "show_all_ms": statistics.median(shown_all)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    results = asyncio.run(bench(args.events, args.reps))
    results["machine"] = {"cpus": os.cpu_count(), "load_average": round(os.getloadavg()[0], 1)}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
