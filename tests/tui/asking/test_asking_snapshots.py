"""SVG snapshots of the screens where the server asks the user, from the scripted session (virtual
clock): the form elicitation, the sampling request, the URL elicitation, and the Roots view."""

from __future__ import annotations

import json
from typing import Any

from asking_frames import FORM, SAMPLING, URL, request
from scripted import quiet, scripted_app, settle, wait_for
from textual.pilot import Pilot

from mcpx.tui.asking.ask_screen import AskScreen
from mcpx.tui.asking.sampling_screen import SamplingScreen
from mcpx.tui.asking.url_elicitation_screen import UrlElicitationScreen

SIZE = (120, 40)
URL_DONE = {"elicitationId": URL["elicitationId"]}


def _asked(method: str, params: dict[str, Any]) -> Any:
    session = scripted_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        session.transport.emit(request("srv-1", method, params))
        await wait_for(pilot, lambda: isinstance(session.app.screen, AskScreen))
        await quiet(pilot)

    return session.app, run_before


def test_elicitation_form(snap_compare: Any) -> None:
    app, run_before = _asked("elicitation/create", FORM)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_sampling_request(snap_compare: Any) -> None:
    app, run_before = _asked("sampling/createMessage", SAMPLING)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_url_elicitation(snap_compare: Any) -> None:
    app, run_before = _asked("elicitation/create", URL)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_roots_view(snap_compare: Any) -> None:
    session = scripted_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        roots = [
            {"uri": "file:///srv/weather", "name": "weather"},
            {"uri": "file:///home/ana/cities", "name": "cities"},
        ]
        session.app.asking.set_roots(roots)  # the legacy era tells the server: roots/list_changed
        await wait_for(
            pilot, lambda: any(e.method == "notifications/roots/list_changed" for e in session.app.traffic)
        )
        await settle(pilot, session.app)  # waits for the roots worker too
        session.app.clear_notifications()  # "Sent notifications/roots/list_changed." would come and go
        session.app.view.action_show_roots()
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


# -- behaviour on the same scripted session ----------------------------------------------------------------
async def test_a_completed_url_elicitation_closes_its_screen_and_a_withdrawn_question_goes_away() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        session.transport.emit(request("srv-1", "elicitation/create", URL))
        session.transport.emit(request("srv-2", "sampling/createMessage", SAMPLING))
        await wait_for(pilot, lambda: isinstance(app.screen, UrlElicitationScreen) and app.waiting == 2)
        # the server says the page's flow is done: the screen closes, answered accept
        complete = {"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": URL_DONE}
        session.transport.emit(json.dumps(complete))
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen))
        answer = next(e for e in app.traffic if e.direction == "out" and e.rpc_id == "srv-1")
        assert json.loads(answer.raw)["result"] == {"action": "accept"}
        assert app.waiting == 1 and "link-7" in app.asking.completed
        # the server withdraws the sampling request: its screen closes and nothing is sent for it
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "srv-2"}}
        session.transport.emit(json.dumps(cancel))
        await wait_for(pilot, lambda: not isinstance(app.screen, AskScreen) and app.waiting == 0)
        await pilot.pause()
        assert not [e for e in app.traffic if e.direction == "out" and e.rpc_id == "srv-2"]
        assert "waiting" not in str(app.query_one("#header").render())
