"""Run inside the fresh venv: the TUI's first screen on the bundled demo, driven by Textual's Pilot."""

import asyncio
import html
import os
import re
import sys
import time

import mcpx
from mcpx.tui import make_app


def screen_text(app) -> str:
    # the SVG Textual exports holds each run of text in a <text> element, one row per y
    rows: dict[float, str] = {}
    for y, chunk in re.findall(r'<text [^>]*\by="([0-9.]+)"[^>]*>([^<]*)</text>', app.export_screenshot()):
        rows[float(y)] = rows.get(float(y), "") + html.unescape(chunk).replace("\xa0", " ")
    return "\n".join(rows[y] for y in sorted(rows))


def awaiting(task: asyncio.Task) -> str:
    """Where a task waits: its coroutine's chain of awaits (a task's own stack shows only the outermost)."""
    links, coro = [], task.get_coro()
    while coro is not None:
        frame = getattr(coro, "cr_frame", None)
        links.append(f"{frame.f_code.co_name}:{frame.f_lineno}" if frame else type(coro).__name__)
        coro = getattr(coro, "cr_await", None)
    return " -> ".join(links)


async def watchdog(app, seconds: float, script: asyncio.Task) -> None:
    """A hang says where it waits (the test's own timeout would only kill us): the tasks but the widgets',
    then the app's state, Textual's animator and this script's task last (the test shows stderr's tail)."""
    await asyncio.sleep(seconds)
    for task in asyncio.all_tasks():
        if task is not script and not task.get_name().startswith(("message pump", "await mount")):
            print(f"{task.get_name()}: {awaiting(task)}", file=sys.stderr)
    animator = app.animator
    print(
        f"hung {seconds:.0f} s: app running={app.is_running} return_code={app.return_code}", file=sys.stderr
    )
    print(
        f"animations={list(animator._animations)} complete={animator._complete_event.is_set()}",
        file=sys.stderr,
    )
    print(f"the script: {awaiting(script)}", file=sys.stderr)
    sys.stderr.flush()
    os._exit(3)


async def main() -> int:
    spec = mcpx.ServerSpec(command=[sys.executable, "-m", "mcpx.demo"], name="demo")
    app = make_app(spec)
    guard = asyncio.get_running_loop().create_task(
        watchdog(app, 150, asyncio.current_task()), name="watchdog"
    )
    async with app.run_test(size=(140, 40)) as pilot:
        deadline = time.monotonic() + 60
        text = ""
        while time.monotonic() < deadline:
            await pilot.pause(0.1)
            text = screen_text(app)
            if "connected" in text and re.search(r"Tools \d+", text) and "echo" in text:
                break
        print(text)
        print("mcpx imported from", mcpx.__file__)
        await pilot.press("q")
    guard.cancel()
    return 0


sys.exit(asyncio.run(main()))
