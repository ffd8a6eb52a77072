"""Render the README's screenshots (screenshots/*.svg) of `mcpx inspect`'s main screens.

They come from the same scripted sessions as the snapshot tests (tests/tui/scripted.py: an in-memory
server on a virtual clock), so they are the same on every machine and every run — except `demo`, which
is `mcpx demo` itself: the real demo server, so its timings are this machine's. `replay` is `mcpx replay`
on the recording the replay snapshot test opens (tests/tui/recordings/record_server.mcpx.jsonl), the
scrubber at the first tool call's answer.

    python scripts/export_screenshots.py              # all of them, into screenshots/
    python scripts/export_screenshots.py --size 140x42 --out /tmp/shots
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "tui"))

from asking_frames import FORM, SAMPLING, URL, request  # noqa: E402
from call_scenes import call_script, filled_form, invalid_form, progress  # noqa: E402
from scripted import (  # noqa: E402
    CONDITIONS_TOOL,
    MAP_TOOL,
    TOOLS,
    Script,
    quiet,
    result_calls,
    scripted_app,
    settle,
    show_call,
    wait_for,
)
from scripted_workspace import workspace_app  # noqa: E402

from mcpx.tui.asking.ask_screen import AskScreen  # noqa: E402
from mcpx.tui.shell.app import InspectApp  # noqa: E402
from mcpx.tui.traffic.event_screen import EventScreen  # noqa: E402
from mcpx.tui.widgets.json_tree import JsonTree  # noqa: E402

LOGS = [
    json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
    for params in (
        {"level": "debug", "logger": "cache", "data": "lookup"},
        {"level": "info", "logger": "cache", "data": "warm"},
        {"level": "warning", "logger": "http", "data": {"retry": 2}},
        {"level": "error", "logger": "http", "data": "upstream 503"},
    )
] + ["this line is not JSON", '{"jsonrpc":"2.0","id":99,"result":{}}']
Step = Callable[[Any, InspectApp, Any], Awaitable[None]]


async def main_screen(pilot: Any, app: InspectApp, session: Any) -> None:
    await pilot.press("down")
    await quiet(pilot)


async def traffic_filter(pilot: Any, app: InspectApp, session: Any) -> None:
    await pilot.press("t", "slash", *"-dir:info -kind:stderr dur:<60ms", "enter")
    await wait_for(pilot, lambda: app.panel.traffic_view.filter_text.endswith("60ms"))
    await quiet(pilot)


async def event_detail(pilot: Any, app: InspectApp, session: Any) -> None:
    seq = next(e.seq for e in app.traffic if e.method == "tools/list" and e.direction == "in")
    app.panel.traffic_view.select_seq(seq)
    await pilot.press("t", "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, EventScreen))
    tree = app.screen.query_one(JsonTree)
    first_tool = tree.root.children[2].children[0].children[0]  # result → tools → [0]
    first_tool.expand()
    tree.move_cursor(first_tool)
    await quiet(pilot)


async def server_died(pilot: Any, app: InspectApp, session: Any) -> None:
    last_words = ["Traceback (most recent call last):", "RuntimeError: the weather service is down"]
    session.transport.die(3, last_words)
    await wait_for(pilot, lambda: app.session.state == "exited")
    await settle(pilot, app)


async def server_log(pilot: Any, app: InspectApp, session: Any) -> None:
    await pilot.press("t", "right_square_bracket", "right_square_bracket")
    await quiet(pilot)


async def info(pilot: Any, app: InspectApp, session: Any) -> None:
    await pilot.press("i")
    await quiet(pilot)


async def help_screen(pilot: Any, app: InspectApp, session: Any) -> None:
    await pilot.press("t", "question_mark")
    await quiet(pilot)


def asked(method: str, params: dict[str, Any]) -> Step:
    """The server asks the user something (elicitation, sampling): its screen opens."""

    async def step(pilot: Any, app: InspectApp, session: Any) -> None:
        session.transport.emit(request("srv-1", method, params))
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen))
        await quiet(pilot)

    return step


async def roots(pilot: Any, app: InspectApp, session: Any) -> None:
    app.asking.set_roots(
        [
            {"uri": "file:///srv/weather", "name": "weather"},
            {"uri": "file:///home/ana/cities", "name": "cities"},
        ]
    )
    await wait_for(pilot, lambda: any(e.method == "notifications/roots/list_changed" for e in app.traffic))
    await settle(pilot, app)
    app.clear_notifications()
    app.view.action_show_roots()
    await quiet(pilot)


async def structured_mismatch(pilot: Any, app: InspectApp, session: Any) -> None:
    await show_call(pilot, app, "get_conditions", {"city": "Oslo"}, focus="#result-mismatches")


async def image_result(pilot: Any, app: InspectApp, session: Any) -> None:
    await show_call(pilot, app, "render_map", {"city": "Oslo"}, focus=".-image")


#: shots whose server also lists the tools with results to show
RESULT_SHOTS = {"inspect-structured-mismatch", "inspect-image-result"}
SHOTS: dict[str, Step] = {
    "inspect-main": main_screen,
    "inspect-filter": traffic_filter,
    "inspect-event": event_detail,
    "inspect-server-died": server_died,
    "inspect-server-log": server_log,
    "inspect-info": info,
    "inspect-help": help_screen,
    "inspect-elicitation": asked("elicitation/create", FORM),
    "inspect-url-elicitation": asked("elicitation/create", URL),
    "inspect-sampling": asked("sampling/createMessage", SAMPLING),
    "inspect-roots": roots,
    "inspect-structured-mismatch": structured_mismatch,
    "inspect-image-result": image_result,
    "inspect-tool-form": filled_form,
    "inspect-tool-form-invalid": invalid_form,
    "inspect-tool-progress": progress,
}
#: shots whose session needs the calling script (book_trip, a held long_report)
CALL_SHOTS = {"inspect-tool-form", "inspect-tool-form-invalid", "inspect-tool-progress"}


async def shoot(name: str, step: Step, size: tuple[int, int], out: Path) -> Path:
    script = Script(after_initialized=LOGS)
    if name in RESULT_SHOTS:
        script = Script(
            after_initialized=LOGS, tools=[*TOOLS, CONDITIONS_TOOL, MAP_TOOL], calls=result_calls()
        )
    if name in CALL_SHOTS:
        script = call_script()
    session = scripted_app(script)
    app = session.app
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await step(pilot, app, session)
        path = out / f"{name}.svg"
        title = f"mcpx inspect — {name.removeprefix('inspect-')}"
        path.write_text(app.export_screenshot(title=title), "utf-8")
    return path


async def shoot_demo(size: tuple[int, int], out: Path) -> Path:
    """`mcpx demo` as a new user sees it, with a tool selected and a call in the log."""
    from mcpx.cli.demo import demo_spec
    from mcpx.tui.settings import InspectSettings
    from mcpx.tui.shell.app import make_app

    app = make_app(demo_spec(), settings=InspectSettings())
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        assert app.client is not None
        await app.client.call_tool("weather", {"city": "Lisbon"})
        await pilot.press("down", "down")
        await quiet(pilot)
        path = out / "demo.svg"
        path.write_text(app.export_screenshot(title="mcpx demo"), "utf-8")
        await pilot.press("q")
    return path


async def shoot_workspace(name: str, keys: list[str], size: tuple[int, int], out: Path) -> Path:
    """The workspace (`mcpx inspect` with no target) over a fixed set of eight servers."""
    from mcpx.tui.workspace.workspace_screen import WorkspaceScreen

    app = workspace_app()
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WorkspaceScreen))
        await pilot.press(*keys)
        await quiet(pilot)
        path = out / f"{name}.svg"
        path.write_text(app.export_screenshot(title=f"mcpx inspect — {name}"), "utf-8")
    return path


WORKSPACE_SHOTS = {
    "workspace": ["down"] * 5,
    "workspace-agent-view": ["a", *["down"] * 10],
}


async def shoot_replay(size: tuple[int, int], out: Path) -> Path:
    """`mcpx replay FILE`: a recording of a real session, read-only, the scrubber mid-way."""
    from mcpx.tui.replay.replay_app import make_replay_app
    from mcpx.tui.settings import InspectSettings

    recording = ROOT / "tests" / "tui" / "recordings" / "record_server.mcpx.jsonl"
    app = make_replay_app(recording, settings=InspectSettings())
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: not app.loading and bool(app.query("#traffic")))
        length = len(app.traffic)
        await wait_for(pilot, lambda: all(view._scanned == length for view in app.panel.views()))
        answer = next(e.seq for e in app.traffic if e.method == "tools/call" and e.direction == "in")
        await pilot.press("less_than_sign", *["full_stop"] * answer)
        await wait_for(pilot, lambda: app.moment == answer)
        await pilot.press("b", "down")
        await wait_for(pilot, lambda: not app.panel.counts_pending)
        await quiet(pilot)
        path = out / "replay.svg"
        path.write_text(app.export_screenshot(title="mcpx replay — a recording, read-only"), "utf-8")
    return path


EXTRA = {"demo": shoot_demo, "replay": shoot_replay}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", default="120x40", help="COLUMNSxROWS (default 120x40)")
    parser.add_argument("--out", default=str(ROOT / "screenshots"))
    parser.add_argument("names", nargs="*", help=f"some of: {', '.join([*SHOTS, *WORKSPACE_SHOTS, *EXTRA])}")
    args = parser.parse_args()
    columns, rows = (int(n) for n in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    for name in args.names or [*SHOTS, *WORKSPACE_SHOTS, *EXTRA]:
        if name in WORKSPACE_SHOTS:
            path = asyncio.run(shoot_workspace(name, WORKSPACE_SHOTS[name], (columns, rows), out))
        elif name in EXTRA:
            path = asyncio.run(EXTRA[name]((columns, rows), out))
        else:
            path = asyncio.run(shoot(name, SHOTS[name], (columns, rows), out))
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()
