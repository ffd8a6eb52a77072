"""Run inside the fresh venv: the TUI's first screen on the bundled demo, driven by Textual's Pilot."""

import asyncio
import html
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


async def main() -> int:
    spec = mcpx.ServerSpec(command=[sys.executable, "-m", "mcpx.demo"], name="demo")
    app = make_app(spec)
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
    return 0


sys.exit(asyncio.run(main()))
