"""The TUI masks what recordings mask: a server given a secret (`-e API_TOKEN=…`) echoes it in its
serverInfo, instructions, a tool's result (split content, JSON text, structuredContent), a log
notification, stderr and an error; every screen is searched for the literal secret. The event screen's
`u` reveals it on purpose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripted import wait_for
from textual.widgets import Button, OptionList, TabbedContent

from mcpx.transports.spec import resolve_target
from mcpx.tui.catalogue.tool_call import ToolCallPanel
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import InspectApp, make_app
from mcpx.tui.traffic.event_screen import EventScreen

ECHO = Path(__file__).resolve().parents[2] / "servers" / "secret_echo.py"
SECRET = "tui-5c1e9a7b3d08"
SIZE = (160, 50)
CONNECT = 30.0


def screen_text(app: InspectApp) -> str:
    """Every character on the screen now, as drawn (line filters applied)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def call(pilot: Any, app: InspectApp, name: str) -> None:
    names = [tool.name for tool in app.catalog.tools or ()]
    app.query_one("#tools-list", OptionList).highlighted = names.index(name)
    await wait_for(pilot, lambda: any(p.tool_name == name for p in app.query(ToolCallPanel)), CONNECT)
    panel = next(p for p in app.query(ToolCallPanel) if p.tool_name == name)
    before = len(app.traffic)
    await wait_for(pilot, lambda: bool(panel.query("#call-button")), CONNECT)
    button = panel.query_one("#call-button", Button)
    await wait_for(pilot, lambda: not button.disabled, CONNECT)
    button.press()
    await wait_for(
        pilot,
        lambda: any(
            e.method == "tools/call" and e.kind in ("response", "error") for e in app.traffic.since(before)
        ),
        CONNECT,
    )
    await pilot.pause()


async def test_no_screen_shows_an_echoed_secret_until_revealed() -> None:
    spec = resolve_target(str(ECHO), env={"API_TOKEN": SECRET})
    app = make_app(spec, settings=InspectSettings(protocol_era="legacy", timeout=30.0))
    seen: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        assert SECRET in app.session.server_name  # the server did echo it: the test is not empty
        seen.append(screen_text(app))
        await call(pilot, app, "leak")
        seen.append(screen_text(app))
        await call(pilot, app, "fail")
        seen.append(screen_text(app))
        tabs = app.query_one("#traffic-tabs", TabbedContent)
        for pane in ("traffic-pane", "notifications-pane", "server-log-pane", "stderr-pane"):
            tabs.active = pane
            await pilot.pause()
            seen.append(screen_text(app))
        stderr = [e.raw for e in app.traffic if e.channel == "stderr"]
        assert any(SECRET in line for line in stderr)  # the log keeps the exact bytes
        await pilot.press("i")  # the Info view: instructions, serverInfo
        await pilot.pause()
        seen.append(screen_text(app))
        assert all(SECRET not in text for text in seen)
        assert any("••••" in text for text in seen)

        # the event screen masks too; u reveals this event on purpose, and u again masks it
        response = next(e for e in reversed(app.traffic) if e.kind == "response" and SECRET in e.raw)
        app.push_screen(EventScreen(app.traffic, response))
        await wait_for(pilot, lambda: isinstance(app.screen, EventScreen))
        for view in ("j", "r", "f"):
            await pilot.press(view)
            await pilot.pause()
            assert SECRET not in screen_text(app)
        await pilot.press("r", "u")
        await wait_for(pilot, lambda: SECRET in screen_text(app))
        await pilot.press("u")
        await wait_for(pilot, lambda: SECRET not in screen_text(app))
