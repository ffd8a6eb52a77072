"""Time to the first paint of a big tool result in `ResultView`, and to "Show all".

A headless Textual app mounts one `ResultView` per case; the clock runs from just before the mount to
the first refresh after it (the user sees the result), then, for long texts, from pressing "Show all"
to the refresh that shows the whole text in a read-only editor. Medians over --runs runs.

    case                     what the server sent
    text 10 MB (lines)       one text block, 10 MB in 80-column lines
    text 10 MB (one line)    one text block, 10 MB without a line break
    json text 1 MB           one text block holding a 1 MB JSON document (parsed, pretty-printed)
    structured 10 MB         structuredContent: 100,000 objects, checked against an outputSchema
    200 small blocks         200 short text blocks

    python benchmarks/tui_result.py            # 5 runs
    python benchmarks/tui_result.py --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Button

from mcpx.tui.results.result_view import ResultView


def cases() -> dict[str, tuple[dict[str, Any], dict[str, Any] | None]]:
    line = "x" * 79 + "\n"
    lines = line * (10_000_000 // len(line))
    items = [{"id": i, "name": f"item {i}", "tags": ["a", "b"], "score": i / 7} for i in range(100_000)]
    schema = {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
                    "required": ["id", "name"],
                },
            }
        },
    }
    doc = json.dumps({"rows": [{"k": i, "v": "y" * 20} for i in range(25_000)]})
    return {
        "text 10 MB (lines)": ({"content": [{"type": "text", "text": lines}]}, None),
        "text 10 MB (one line)": ({"content": [{"type": "text", "text": "y" * 10_000_000}]}, None),
        "json text 1 MB": ({"content": [{"type": "text", "text": doc}]}, None),
        "structured 10 MB": (
            {
                "content": [{"type": "text", "text": "(see structured)"}],
                "structuredContent": {"items": items},
            },
            {"name": "t", "outputSchema": schema},
        ),
        "200 small blocks": ({"content": [{"type": "text", "text": f"block {i}"} for i in range(200)]}, None),
    }


class Bench(App[None]):
    def compose(self) -> Any:
        yield VerticalScroll(id="box")


async def measure(result: dict[str, Any], tool: dict[str, Any] | None) -> tuple[float, float | None]:
    size = len(json.dumps(result))  # what the call panel passes: the answer's size in bytes
    app = Bench()
    async with app.run_test(size=(140, 50)) as pilot:
        box = app.query_one("#box")
        painted = asyncio.Event()
        started = time.perf_counter()
        await box.mount(ResultView(result, tool=tool, latency=0.01, size=size))
        app.call_after_refresh(painted.set)
        await painted.wait()
        first = time.perf_counter() - started
        buttons = app.query(".show-all").results(Button)
        button = next(iter(buttons), None)
        if button is None:
            return first, None
        shown = asyncio.Event()
        started = time.perf_counter()
        button.press()
        while not app.query("PlainTextView") and not app.query("JsonTree"):
            await pilot.pause(0.005)
        app.call_after_refresh(shown.set)
        await shown.wait()
        return first, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{'case':<24} {'first paint':>12} {'show all':>10}")
    for name, (result, tool) in cases().items():
        firsts, alls = [], []
        for _ in range(args.runs):
            first, all_ = asyncio.run(measure(result, tool))
            firsts.append(first)
            if all_ is not None:
                alls.append(all_)
        shown = f"{statistics.median(alls) * 1000:8.0f} ms" if alls else f"{'—':>10}"
        print(f"{name:<24} {statistics.median(firsts) * 1000:9.0f} ms {shown}")


if __name__ == "__main__":
    main()
