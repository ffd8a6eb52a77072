"""SVG snapshots of the screens where the server asks the user, from the scripted session (virtual
clock): the form elicitation, the sampling request, the URL elicitation, and the Roots view."""

from __future__ import annotations

from typing import Any

from asking_frames import FORM, SAMPLING, URL, request
from scripted import quiet, scripted_app, settle, wait_for
from textual.pilot import Pilot

from mcpx.tui.ask_screen import AskScreen

SIZE = (120, 40)


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
        session.app.action_show_roots()
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)
