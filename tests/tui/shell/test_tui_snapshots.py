"""SVG snapshots of the main screens at 120×40, from scripted sessions on a virtual clock.

Update with `pytest tests/tui/shell/test_tui_snapshots.py --snapshot-update` and look at the report.
"""

from __future__ import annotations

from typing import Any

from scripted import Script, quiet, scripted_app, settle, wait_for
from textual.pilot import Pilot

from mcpx.tui.shell.header_bar import HeaderBar
from mcpx.tui.traffic.event_screen import EventScreen

SIZE = (120, 40)
LOGS = [
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","logger":"cache","data":"lookup"}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"cache","data":"warm"}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"http","data":{"retry":2}}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"http","data":"upstream 503"}}',
    '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"critical","data":"disk full"}}',
]
FAULTS = [
    "this line is not JSON",
    '{"jsonrpc":"2.0","id":99,"result":{}}',
    '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}',
]


def test_main_screen(snap_compare: Any) -> None:
    session = scripted_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_traffic_filter(snap_compare: Any) -> None:
    session = scripted_app(Script(after_initialized=FAULTS))

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        await pilot.press("t", "slash", *"-dir:info -kind:stderr dur:<60ms", "enter")
        view = session.app.panel.traffic_view
        await wait_for(pilot, lambda: view.filter_text.endswith("60ms"))
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_event_screen(snap_compare: Any) -> None:
    session = scripted_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        app = session.app
        await settle(pilot, app)
        view = app.panel.traffic_view
        seq = next(e.seq for e in app.traffic if e.method == "tools/list" and e.direction == "in")
        view.select_seq(seq)
        await pilot.press("t", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EventScreen))
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_death_banner(snap_compare: Any) -> None:
    session = scripted_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        app = session.app
        await settle(pilot, app)
        session.transport.die(3, ["Traceback (most recent call last):", "RuntimeError: boom"])
        await wait_for(pilot, lambda: app.session.state == "exited")
        await settle(pilot, app)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_server_log(snap_compare: Any) -> None:
    session = scripted_app(Script(after_initialized=LOGS))

    async def run_before(pilot: Pilot[Any]) -> None:
        app = session.app
        await settle(pilot, app)
        await pilot.press("t", "right_square_bracket", "right_square_bracket")
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_problems(snap_compare: Any) -> None:
    session = scripted_app(Script(after_initialized=FAULTS))

    async def run_before(pilot: Pilot[Any]) -> None:
        app = session.app
        await settle(pilot, app)
        await pilot.press("t", "left_square_bracket")
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_info_view(snap_compare: Any) -> None:
    session = scripted_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        await pilot.press("i")
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_help_screen(snap_compare: Any) -> None:
    session = scripted_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        await pilot.press("t", "question_mark")
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_disabled_tab_and_browser_filter(snap_compare: Any) -> None:
    session = scripted_app(Script(prompts=None))

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        await pilot.press("slash", *"city")
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_check_view(snap_compare: Any) -> None:
    session = scripted_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        from mcpx.tui.check.check_view import CheckView

        app = session.app
        await settle(pilot, app)
        await pilot.press("C")
        await wait_for(
            pilot, lambda: bool(app.query(CheckView)) and app.query_one(CheckView).report is not None, 60
        )
        # the report can be in before the header has counted the check's last answer (on a loaded machine)
        await wait_for(pilot, lambda: app.in_flight == 0 and app.query_one(HeaderBar).in_flight == 0, 30)
        await settle(pilot, app)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def _call_scene(step: Any) -> Any:
    from call_scenes import call_script

    session = scripted_app(call_script())

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        await step(pilot, session.app, session)

    return session.app, run_before


def test_tool_form_filled(snap_compare: Any) -> None:
    from call_scenes import filled_form

    app, run_before = _call_scene(filled_form)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_tool_form_invalid(snap_compare: Any) -> None:
    from call_scenes import invalid_form

    app, run_before = _call_scene(invalid_form)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_tool_call_progress(snap_compare: Any) -> None:
    from call_scenes import progress

    app, run_before = _call_scene(progress)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
