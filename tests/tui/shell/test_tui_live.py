"""Pilot tests on live servers over stdio: the SDK-based `tests/servers/tui_server.py` and, when npm's
peers are installed, @modelcontextprotocol/server-everything.

They select a tool, filter the log, open an event, kill the server and read the banner, reconnect, and
quit with no process left. Every wait is on a condition or a worker, never a fixed sleep.
"""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from scripted import wait_for
from textual.widgets import Input, OptionList, Select, TextArea

from mcpx.transports.spec import resolve_target
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import InspectApp, make_app
from mcpx.tui.shell.death_banner import DeathBanner
from mcpx.tui.shell.raw_message_screen import RawMessageScreen
from mcpx.tui.traffic.event_screen import EventScreen
from mcpx.tui.widgets.confirm_screen import ConfirmScreen

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "tests" / "servers" / "tui_server.py"
EVERYTHING = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
SIZE = (120, 40)
CONNECT = 30.0  # seconds a loaded CI machine may need to start an SDK server


def live_app(target: Path | str, *args: str, era: str = "legacy") -> InspectApp:
    spec = resolve_target(str(target), list(args))
    return make_app(spec, settings=InspectSettings(protocol_era=era, timeout=30.0))


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's group
        return True
    return True


def server_pid(app: InspectApp) -> int:
    assert app.client is not None
    pid = app.client.transport.describe()["pid"]
    assert isinstance(pid, int)
    return pid


async def test_select_filter_open_kill_reconnect_quit() -> None:
    app = live_app(SERVER)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        assert app.session.state == "connected"
        assert app.session.server_name == "tui-test-server"
        tools = app.query_one("#tools-list", OptionList)
        await wait_for(pilot, lambda: tools.option_count == 4)

        # select a tool: the detail pane follows the highlight
        detail = app.query_one(ItemDetail)
        await wait_for(pilot, lambda: detail.selection is not None)
        await pilot.press("down")
        await wait_for(pilot, lambda: detail.selection is not None and detail.selection[1].name == "add")
        assert "destructive" in str(detail.query_one("#detail-title").render())

        # filter the traffic log
        await wait_for(pilot, lambda: bool(app.query("#traffic-panel")))
        await pilot.press("t", "slash", *"method:tools/list", "enter")
        view = app.panel.traffic_view
        await wait_for(pilot, lambda: view.filter_text == "method:tools/list")
        assert len(view.rows) == 2
        assert {app.traffic[seq].method for seq in view.rows} == {"tools/list"}

        # open the response, jump to its request, come back to the log
        await pilot.press("end", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EventScreen))
        assert isinstance(app.screen, EventScreen)
        assert app.screen.event.kind == "response"
        await pilot.press("p")
        await wait_for(
            pilot, lambda: isinstance(app.screen, EventScreen) and app.screen.event.kind == "request"
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, EventScreen))
        assert view.event_at_cursor() is not None and view.event_at_cursor().kind == "request"  # type: ignore[union-attr]

        # kill the server: the banner says so, the log is kept
        first = server_pid(app)
        os.kill(first, signal.SIGKILL)
        await wait_for(pilot, lambda: app.session.state == "exited", CONNECT)
        banner = app.query_one(DeathBanner)
        assert banner.has_class("-visible")
        assert "SIGKILL" in str(banner.render())
        assert "tui-test-server starting" in str(banner.render())
        kept = len(app.traffic)

        # reconnect: a new process, the log goes on after a separator
        await pilot.press("r")
        await wait_for(pilot, lambda: app.session.state == "connected" and app.session.attempt == 2, CONNECT)
        assert not banner.has_class("-visible")
        assert any(e.facts.get("event") == "reconnect" for e in app.traffic.since(kept))
        second = server_pid(app)
        assert second != first

        # quit: the server's process group is gone when the app has exited
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, CONNECT)
    assert not group_alive(second)
    assert not group_alive(first)


async def test_crash_shows_exit_code_and_stderr_tail() -> None:
    """A raw `tools/call crash` sent from the palette's modal: exit code 3 and the last words on screen."""
    app = live_app(SERVER)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        pid = server_pid(app)
        await pilot.press("ctrl+p")
        await pilot.press(*"raw json")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RawMessageScreen))
        editor = app.screen.query_one(TextArea)
        editor.text = '{"jsonrpc": "2.0", "id": "raw-1", "method": "tools/call", "params": {"name": "crash"}}'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.session.state == "exited", CONNECT)
        assert app.session.returncode == 3
        text = str(app.query_one(DeathBanner).render())
        assert "exited with code 3" in text.lower()
        assert "about to crash: boom" in text
        sent = [e for e in app.traffic if e.direction == "out" and e.method == "tools/call"]
        assert (
            sent
            and sent[0].raw
            == '{"jsonrpc":"2.0","id":"raw-1","method":"tools/call","params":{"name":"crash"}}'
        )
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, CONNECT)
    assert not group_alive(pid)


async def test_level_selector_and_server_log() -> None:
    app = live_app(SERVER)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        pid = server_pid(app)
        await wait_for(
            pilot, lambda: bool(app.query("#log-level"))
        )  # the side tabs mount after the first paint
        app.query_one("#log-level", Select).value = "debug"
        await wait_for(
            pilot, lambda: any(e.method == "logging/setLevel" and e.kind == "response" for e in app.traffic)
        )
        request = next(e for e in app.traffic if e.method == "logging/setLevel")
        assert '"level":"debug"' in request.raw
        assert app.client is not None
        await app.client.call_tool("chatty", {})
        await wait_for(pilot, lambda: bool(app.panel.query("#server-log")))
        server_log = app.panel.query_one("#server-log")
        await wait_for(pilot, lambda: len(server_log.rows) == 4)  # type: ignore[attr-defined]
        levels = [app.traffic[seq].message.params["level"] for seq in server_log.rows]  # type: ignore[attr-defined,union-attr]
        assert levels == ["debug", "info", "warning", "error"]
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, CONNECT)
    assert not group_alive(pid)


@pytest.mark.npm
@pytest.mark.skipif(not EVERYTHING.exists() or shutil.which("node") is None, reason="npm peers not installed")
async def test_server_everything() -> None:
    app = live_app(EVERYTHING, "stdio", era="auto")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: app.catalog.tools is not None and app.catalog.prompts is not None, CONNECT
        )
        names = {tool.name for tool in app.catalog.tools or ()}
        assert {"echo", "get-sum"} <= names
        await pilot.press("slash", *"sum", "enter")
        tools = app.query_one("#tools-list", OptionList)
        await wait_for(pilot, lambda: tools.option_count == 1)
        detail = app.query_one(ItemDetail)
        await wait_for(pilot, lambda: detail.selection is not None and detail.selection[1].name == "get-sum")
        pid = server_pid(app)
        # Enter in the filter opened get-sum's form: letters type there; Escape twice is the catalogue
        await wait_for(pilot, lambda: isinstance(app.focused, Input) and app.focused.id != "browser-filter")
        await pilot.press("t", "q")
        assert app.is_running
        await pilot.press("escape", "escape", "t", "q")
        # "tq" is typed input in get-sum's form: q asks before losing it
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running, CONNECT)
    assert not group_alive(pid)


def test_run_inspect_is_the_cli_entry_point() -> None:
    from mcpx.tui.shell.app import run_inspect

    params: Any = run_inspect.__annotations__
    assert "spec" in params and params["return"] in (int, "int")
