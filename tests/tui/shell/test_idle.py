"""An idle TUI on an idle server schedules nothing periodic: refresh is driven by new events.

Five event lists used to pump at 20 Hz and the app ticked at 10 Hz (6–7 % of a core doing nothing).
Now a quiet session runs no repeating timer, and a new event still reaches every view and the header.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import pytest
from scripted import wait_for
from textual.timer import Timer
from textual.widgets import OptionList

from mcpx.transports.spec import resolve_target
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import InspectApp, make_app
from mcpx.tui.shell.inspect_screen import InspectScreen
from mcpx.tui.widgets.event_list_view import EventListView

SERVER = Path(__file__).resolve().parents[2] / "servers" / "hostile_catalogue.py"
SIZE = (140, 45)


def running_timers(app: InspectApp) -> list[Timer]:
    """Every timer of the app, its screens and their widgets that is waiting to fire (not paused: an
    unfocused input's blink and the screen's update timer wait paused, and cost nothing)."""
    pumps: list[Any] = [app, *app.screen_stack, *app.screen.walk_children(with_self=False)]
    timers = [timer for pump in pumps for timer in list(pump._timers)]
    return [t for t in timers if t._task is not None and not t._task.done() and t._active.is_set()]


async def test_an_idle_app_schedules_no_periodic_refresh(monkeypatch: pytest.MonkeyPatch) -> None:
    passes: list[str] = []
    pump = EventListView.pump
    tick = InspectScreen._tick

    def counted_pump(self: EventListView) -> None:
        passes.append(f"pump {self.id}")
        pump(self)

    def counted_tick(self: InspectScreen) -> None:
        passes.append("tick")
        tick(self)

    monkeypatch.setattr(EventListView, "pump", counted_pump)
    monkeypatch.setattr(InspectScreen, "_tick", counted_tick)
    spec = resolve_target(sys.executable, [str(SERVER), "ref-cycles"])
    app = make_app(spec, settings=InspectSettings(protocol_era="legacy", timeout=30.0))
    gc.unfreeze()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, 30.0)
        # the app's heap leaves the full collections once its first catalogue is painted, even a small one
        # (a full pass over the imported code and the widgets landed on a random key: heap.py)
        await wait_for(pilot, lambda: gc.get_freeze_count() > 0, 10.0)
        await wait_for(pilot, lambda: bool(app.query("#traffic-panel")), 30.0)
        views = app.panel.views()
        await wait_for(pilot, lambda: all(view._scanned == len(app.traffic) for view in views), 30.0)
        # settled: whatever was due has run (the hidden tabs' views mount late), nothing waits to run
        await wait_for(pilot, lambda: not running_timers(app), 10.0)
        for _ in range(50):
            seen = len(passes)
            await pilot.pause(0.3)
            if len(passes) == seen:
                break
        passes.clear()
        await pilot.pause(1.0)
        assert passes == []
        assert running_timers(app) == []

        # and yet a new event reaches the views and the header at once
        assert app.client is not None
        before = len(app.traffic)
        await app.client.ping()
        await wait_for(pilot, lambda: all(view._scanned == len(app.traffic) > before for view in views))
        assert any(p.startswith("pump") for p in passes)
        # the header's tick is woken by the traffic too (armed by the new event, it runs up to 0.1 s later)
        await wait_for(pilot, lambda: "tick" in passes, 5.0)
        traffic = app.panel.traffic_view
        await wait_for(pilot, lambda: app.traffic[traffic.rows[-1]].method == "ping")
        await wait_for(pilot, lambda: not running_timers(app), 10.0)  # and quiet again
        assert app.query_one("#tools-list", OptionList).option_count == 1
        await pilot.press("q")
