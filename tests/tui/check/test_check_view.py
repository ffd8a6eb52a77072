"""The Check view: `mcpx check` on the connected (scripted) server from inside the inspector."""

from __future__ import annotations

from typing import Any

from scripted import scripted_app, settle, wait_for
from textual.pilot import Pilot

from mcpx.check.model import all_checks
from mcpx.tui.check.check_view import OWN_CONNECTION, CheckView
from mcpx.tui.shell.inspect_screen import InspectScreen


async def run_checks_in(pilot: Pilot[Any], app: Any) -> CheckView:
    """Open the Check tab with its key and wait for the report (the checks run on first show)."""
    await settle(pilot, app)
    await pilot.press("C")
    await wait_for(
        pilot, lambda: bool(app.query(CheckView)) and app.query_one(CheckView).report is not None, 60
    )
    await pilot.pause()
    return app.query_one(CheckView)


async def test_the_check_key_runs_the_checks_on_the_connected_server() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=(120, 40)) as pilot:
        view = await run_checks_in(pilot, app)
        report = view.report
        assert report is not None
        statuses = {r.id: r.status for r in report.results}
        # the scripted server cannot read the resources it lists: found, on the app's own connection
        assert {i for i, s in statuses.items() if s == "fail"} == {"behaviour.resource-read"}
        assert statuses["jsonrpc.unknown-tool"] == "pass" and statuses["legacy.ping"] == "pass"
        # checks that may break their connection (a line that is not JSON, odd ids) never run on the app's:
        # they are left to `mcpx check`, like those that need a fresh process or the other era
        own = {r.id for r in report.results if r.detail == OWN_CONNECTION}
        isolated = {c.id for c in all_checks() if c.isolated}
        assert own == {
            "legacy.version-negotiation",
            "legacy.before-initialize",
            *isolated,
            *(r.id for r in report.results if r.id.startswith("modern.")),
        }
        assert (
            next(r for r in report.results if r.id == "http.origin").detail == "applies to http servers only"
        )
        # the checks' exchanges are in the app's own traffic log (and no line that is not JSON went to the
        # server), and the connection is still usable
        assert not any(e.raw == "mcpx check: this line is not JSON {" for e in app.traffic)
        read = next(e for e in app.traffic if e.method == "resources/read" and e.direction == "out")
        assert app.session.state == "connected"
        # the first failure is highlighted and shows its rule
        result = view.highlighted_result()
        assert result is not None and result.id == "behaviour.resource-read"
        assert view.exchange_seqs(result)[0] == read.seq


async def test_enter_on_a_finding_shows_its_exchange_in_the_traffic_log() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=(120, 40)) as pilot:
        view = await run_checks_in(pilot, app)
        app.view.set_traffic_filter("method:tools/list")  # a filter that hides the exchange is cleared
        view.focus_results()
        await pilot.press("enter")
        traffic = app.panel.traffic_view
        await wait_for(pilot, lambda: traffic.event_at_cursor() is not None)
        event = traffic.event_at_cursor()
        assert event is not None and event.method == "resources/read" and event.direction == "out"
        assert traffic.filter_text == "" and app.focused is traffic


async def test_the_palette_offers_the_checks() -> None:
    from mcpx.tui.shell.commands import InspectCommands

    session = scripted_app()
    app = session.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        provider = InspectCommands(app.screen)
        names = [name for name, _, _ in provider.commands()]
        assert "Check the server (mcpx check)" in names
        binding = next(b for b in InspectScreen.BINDINGS if getattr(b, "id", None) == "show-check")
        assert binding.action == "show_check"
        assert CheckView.HELP.strip()


async def test_a_server_that_cannot_be_reached_points_at_the_doctor() -> None:
    import socket

    from mcpx.transports.spec import resolve_target
    from mcpx.tui.settings import InspectSettings
    from mcpx.tui.shell.app import make_app
    from mcpx.tui.shell.death_banner import DeathBanner

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"  # nothing listens there
    app = make_app(resolve_target(url), settings=InspectSettings())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.session.state == "failed", 30)
        await pilot.pause()
        banner = app.query_one(DeathBanner)
        text = str(banner.render())
        assert "Could not connect" in text and f"mcpx doctor {url}" in text


async def test_the_doctor_hint_for_a_dead_stdio_server_runs_as_printed() -> None:
    """A server command with dashed arguments and a space: the banner's hint quotes them after `--`, so
    the printed line runs `mcpx doctor` on the very same command."""
    import shlex

    from mcpx.target import resolve_target
    from mcpx.tui.settings import InspectSettings
    from mcpx.tui.shell.app import make_app
    from mcpx.tui.shell.death_banner import DeathBanner

    missing = "/nonexistent dir/mcp-server"  # cannot be started: the connection fails
    spec = resolve_target(missing, ["-c", "import sys; sys.exit(3)", "--flag x"])
    app = make_app(spec, settings=InspectSettings())
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for(pilot, lambda: app.session.is_dead, 30)
        await pilot.pause()
        banner = app.query_one(DeathBanner)
        hint = banner.doctor_hint
        assert hint is not None
        assert shlex.split(hint) == [
            "mcpx",
            "doctor",
            missing,
            "--",
            "-c",
            "import sys; sys.exit(3)",
            "--flag x",
        ]
        assert app.session.state == "failed", app.session.state  # it never answered: could not connect
        assert hint in str(banner.render())
