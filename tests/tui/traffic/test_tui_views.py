"""Behaviour of the traffic views and screens on scripted sessions (virtual clock, in-memory server)."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from scripted import Script, scripted_app, settle, wait_for
from textual.screen import Screen
from textual.widgets import Input, Log, Static

from mcpx.errors import RpcError
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell import help_screen as help_screen_module
from mcpx.tui.shell.help_screen import HelpScreen
from mcpx.tui.shell.key_footer import KeyFooter, KeyLine
from mcpx.tui.traffic.event_screen import EventScreen

SIZE = (120, 40)


def notification(i: int) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"i": i}})


async def test_follow_mode_sticks_until_the_user_scrolls_up() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        view = app.panel.traffic_view
        for i in range(60):
            session.transport.emit(notification(i))
        await wait_for(pilot, lambda: view._scanned == len(app.traffic) and len(view.rows) > 60)
        await pilot.pause()
        assert view.following and view.scroll_offset.y == view.max_scroll_y > 0

        await pilot.press("t", "up")
        assert not view.following and view.cursor is not None
        top = view.scroll_offset.y
        for i in range(20):
            session.transport.emit(notification(100 + i))
        await wait_for(pilot, lambda: view._scanned == len(app.traffic))
        await pilot.pause()
        assert view.scroll_offset.y == top  # paused: new events do not move the view

        await pilot.press("end")
        await pilot.pause()
        assert view.following and view.cursor is None and view.scroll_offset.y == view.max_scroll_y


async def test_a_request_joins_a_status_filter_when_its_error_arrives() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        view = app.panel.traffic_view
        view.filter_text = "status:error"
        await pilot.pause()
        assert len(view.rows) == 0
        assert app.client is not None
        try:
            await app.client.request("no/such/method")
        except RpcError as exc:
            assert exc.error_code == -32601
        await wait_for(pilot, lambda: len(view.rows) == 2)
        assert [app.traffic[s].kind for s in view.rows] == ["request", "error"]


async def test_bad_filter_keeps_the_old_one_and_says_why() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("t", "slash", *"dir:in", "enter")
        view = app.panel.traffic_view
        await wait_for(pilot, lambda: view.filter_text == "dir:in")
        shown = list(view.rows)
        box = app.panel.query_one("#traffic-filter", Input)
        await pilot.press("slash")
        box.value = "dir:sideways"  # at once: typed slowly, "di" would be a valid free-text filter
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.filter_text == "dir:sideways")
        await wait_for(pilot, lambda: box.has_class("-invalid"))
        assert list(view.rows) == shown
        assert "dir:" in str(app.panel.query_one("#traffic-count").render())


async def test_clear_hides_but_the_log_keeps_everything() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        total = len(app.traffic)
        app.view.action_clear_log()
        await pilot.pause()
        assert all(len(view.rows) == 0 for view in app.panel.views())
        assert len(app.traffic) == total
        session.transport.emit(notification(1))
        await wait_for(pilot, lambda: len(app.panel.traffic_view.rows) == 1)


async def test_a_ten_megabyte_result_opens_as_a_preview() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        big = "x" * (10 * 1024 * 1024)
        session.transport.emit(
            json.dumps({"jsonrpc": "2.0", "method": "notifications/big", "params": {"text": big}})
        )
        view = app.panel.traffic_view
        await wait_for(pilot, lambda: view._scanned == len(app.traffic))
        await pilot.press("t", "end", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EventScreen))
        screen = app.screen
        assert isinstance(screen, EventScreen)
        await pilot.press("r")
        await wait_for(pilot, lambda: bool(screen.query("#event-raw")))
        raw = str(screen.query_one("#event-raw").render())
        assert len(raw) < 20_000 and "more; press a to show all" in raw
        assert "10.0 MB" in str(screen.query_one("#event-show-all").render())
        await pilot.press("a")
        await wait_for(pilot, lambda: bool(screen.query("#event-raw-all")))
        full = screen.query_one("#event-raw-all", Log)
        assert sum(len(line) for line in full.lines) > 10 * 1024 * 1024


async def test_copy_event_json_from_the_palette_action() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("t", "up")
        event = app.panel.traffic_view.event_at_cursor()
        assert event is not None
        app.view.action_copy_event()
        assert app.clipboard == event.raw


async def test_control_characters_never_reach_the_terminal() -> None:
    session = scripted_app(Script(stderr_at_start=["\x1b[2J\x1b]0;pwned\x07 clear screen"]))
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        view = app.panel.traffic_view
        row = next(i for i, seq in enumerate(view.rows) if app.traffic[seq].channel == "stderr")
        strip = view.render_row(app.traffic[view.rows[row]], 100)
        text = "".join(segment.text for segment in strip)
        assert "\x1b" not in text and "\x07" not in text and "␛[2J" in text


def footer_texts(footer: KeyFooter) -> list[tuple[str, str]]:
    return footer.texts()


def wanted_texts(screen: Screen[object]) -> list[tuple[str, str]]:
    """What Textual's own footer shows: the first shown binding of each action, then the palette's."""
    shown: dict[str, tuple[str, str]] = {}
    for _node, binding, _enabled, _tooltip in screen.active_bindings.values():
        if binding.show and binding.action not in shown:
            shown[binding.action] = (screen.app.get_key_display(binding), binding.description)
    palette = screen.active_bindings.get(screen.app.COMMAND_PALETTE_BINDING)
    extra = [(screen.app.get_key_display(palette.binding), palette.binding.description)] if palette else []
    return [*shown.values(), *extra]


@pytest.mark.parametrize("step", ["_start_unshown", "_lay_out_unshown", "_draw_unshown"])
async def test_help_built_ahead_on_textual_internals_that_moved_leaves_f1_as_it_was(
    monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """The help is built ahead through Textual's private methods, and the runtime pin allows any 8.x: one
    that moved must cost the head start only, never the app (a timer that raises would end it)."""
    tried: list[str] = []

    def moved(*args: object) -> None:
        tried.append(step)
        raise AttributeError(f"{step}: Textual moved it")

    monkeypatch.setattr(help_screen_module, "PREPARE_AFTER", 0.05)
    monkeypatch.setattr(help_screen_module, "PREPARE_STEP", 0.01)
    monkeypatch.setattr(help_screen_module, step, moved)
    session = scripted_app(settings=InspectSettings(protocol_era="legacy"))
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await wait_for(pilot, lambda: tried == [step])
        await pilot.pause(0.1)  # the steps after it, had they gone on
        assert app.is_running
        if step == "_start_unshown":  # not installed half-started: F1 builds it the usual way
            assert not app.is_screen_installed(help_screen_module.INSTALLED)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        keys = app.screen.query_one("#help-keys", Static)
        console = Console(width=140, record=True, file=io.StringIO())
        console.print(keys.content)
        assert "reconnect" in console.export_text()


async def test_help_lists_keys_with_their_ids_the_footer_follows_and_the_keymap_applies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(help_screen_module, "PREPARE_AFTER", 0.05)
    session = scripted_app(settings=InspectSettings(protocol_era="legacy", keymap={"reconnect": "ctrl+r"}))
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        # the help screen is built and laid out off screen once the catalogue is in, before any F1 (the
        # first F1 of a session composed it, laid it out twice and drew it whole: 130-220 ms of CPU)
        await wait_for(pilot, lambda: help_screen_module.help_prepared(app))
        ready = app.get_screen(help_screen_module.INSTALLED)
        assert app.screen is not ready and ready not in app.screen_stack  # built, never shown
        await pilot.press("t")
        footer = app.query_one(KeyFooter)
        await wait_for(pilot, lambda: footer_texts(footer) == wanted_texts(app.screen))
        line = footer.query_one(KeyLine)
        keys_before = line.keys
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        assert help_screen is ready  # retexted for the traffic log's page, not composed anew
        keys_text = help_screen.query_one("#help-keys", Static)
        console = Console(width=140, record=True, file=io.StringIO())
        console.print(keys_text.content)
        keys = console.export_text()
        assert "log-open" in keys and "reconnect" in keys and "traffic-filter" in keys
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.pause()
        # the same keys: the footer did not redraw them (Textual's rebuilds them on every screen change)
        assert line.keys is keys_before
        # F1 again: the same help screen is pushed again, not composed anew (nor removed on Esc)
        await pilot.press("f1")
        await wait_for(pilot, lambda: app.screen is help_screen)
        assert help_screen.query_one("#help-keys", Static) is keys_text
        title = help_screen.query_one("#help-dialog").border_title
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        for key in ("tab", "tab", "shift+tab", "shift+tab"):  # and it follows the focus
            await pilot.press(key)
            await wait_for(pilot, lambda: footer_texts(footer) == wanted_texts(app.screen))
        # …and on another pane it says that pane's help and keys
        await pilot.press("shift+tab")
        await pilot.press("f1")
        await wait_for(pilot, lambda: app.screen is help_screen)
        assert help_screen.query_one("#help-dialog").border_title != title
        console = Console(width=140, record=True, file=io.StringIO())
        console.print(keys_text.content)
        assert console.export_text() != keys
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press("tab")  # back to the traffic log, where ctrl+r is the keymap's reconnect
        # the footer is one line: the key under the pointer shows its tooltip, a click runs it
        await wait_for(pilot, lambda: footer_texts(footer) == wanted_texts(app.screen))
        index = next(i for i, shown in enumerate(line.keys) if shown[3] == "help")
        await pilot.hover(KeyLine, offset=(line.cells[index][0] + 1, 0))
        assert line.tooltip == "Help for the focused pane, and its keys"
        await pilot.click(KeyLine, offset=(line.cells[index][0] + 1, 0))
        await wait_for(pilot, lambda: app.screen is help_screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.session.attempt == 2 and app.session.state == "connected")


async def test_problems_found_after_the_fact_are_listed() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.client is not None
        event = app.traffic[len(app.traffic) - 1]
        app.traffic.flag(event, "a schema problem found later")  # the log's flag is all it takes
        problems = app.panel.problems
        await wait_for(pilot, lambda: event.seq in problems.rows)


async def test_death_and_reconnect_on_the_scripted_server() -> None:
    session = scripted_app()
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        session.transport.die(3, ["fatal: out of cheese"])
        await wait_for(pilot, lambda: app.session.state == "exited")
        assert app.session.returncode == 3
        assert app.session.stderr_tail[-1] == "fatal: out of cheese"
        assert app.catalog.tools is not None  # the last catalogue stays readable
        await pilot.press("r")
        await wait_for(pilot, lambda: app.session.state == "connected" and app.session.attempt == 2)
        assert len(session.transports) == 2
        separators = [e for e in app.traffic if e.facts.get("event") == "reconnect"]
        assert len(separators) == 1


async def test_frames_that_break_the_schema_of_the_revision_show_in_problems() -> None:
    """Every frame is judged against the official schema of the negotiated revision as it arrives: a tool
    whose inputSchema has no type is flagged on the tools/list answer and listed in the Problems tab."""
    from scripted import Script

    broken = {"name": "no_type", "description": "an inputSchema without type", "inputSchema": {}}
    session = scripted_app(Script(tools=[broken]))
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        answer = next(e for e in app.traffic if e.method == "tools/list" and e.direction == "in")
        expected = "schema 2025-11-25: result/tools/0/inputSchema: 'type' is a required property"
        await wait_for(pilot, lambda: expected in answer.flags)
        problems = app.panel.problems
        assert problems is not None
        await wait_for(pilot, lambda: answer.seq in problems.rows)
        # the scripted server's other frames keep the schema: nothing else is flagged
        assert [e.seq for e in app.traffic if any(f.startswith("schema") for f in e.flags)] == [answer.seq]
