"""Snapshots at 100×30 and 220×60 of the issue's scene: a tool called by the keyboard (filter, Enter,
typed value, Enter), its text result in view as text, a cancelled call and a tool error in the traffic
log with their states and stopped bars, the header keeping the connection state when narrow."""

from __future__ import annotations

from typing import Any

import pytest
from scripted import TOOLS, Script, scripted_app, settle, wait_for
from textual.pilot import Pilot

from mcpx.tui.catalogue.tool_call import ToolCallPanel
from mcpx.tui.results.result_view import ResultView

YAML = {"content": [{"type": "text", "text": "cities:\n  - oslo\n  - bergen\nunits:   metric"}]}
FAILED = {"content": [{"type": "text", "text": "no such city"}], "isError": True}


@pytest.mark.parametrize("size", [(100, 30), (220, 60)], ids=["100x30", "220x60"])
def test_called_by_the_keyboard(snap_compare: Any, size: tuple[int, int]) -> None:
    session = scripted_app(
        Script(tools=list(TOOLS), calls={"echo": YAML, "delete_city": FAILED}, held={"long_report"})
    )
    app = session.app

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, app)
        app.view.request_tool_call("long_report", {}, run=True)  # held by the server: cancelled below
        await wait_for(pilot, lambda: any(e.method == "tools/call" for e in app.traffic))
        next(p for p in app.query(ToolCallPanel) if p.running).action_cancel()
        await wait_for(pilot, lambda: not any(w.is_running for w in app.workers if w.group == "requests"))
        assert app.client is not None
        await app.client.call_tool("delete_city", {"city": "atlantis"})  # isError
        app.view.action_focus_browser()
        await pilot.press("slash", *"echo", "enter", *"hi", "enter")
        await wait_for(pilot, lambda: any(p.query(ResultView) for p in app.query(ToolCallPanel)))
        await settle(pilot, app)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
