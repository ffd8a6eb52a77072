"""Pilot tests of calling tools from the TUI against real servers over stdio.

`tests/servers/hard_catalogue.py` (official Python SDK, every schema construct the form renders; its tools
answer with the arguments they received, so the test reads exactly what the form sent) and, when npm's
peers are installed, @modelcontextprotocol/server-everything (get-sum's typed numbers, a long-running
operation cancelled half-way). Every wait is on a condition, never a fixed sleep.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from scripted import wait_for
from textual.widgets import Button, Input, OptionList, ProgressBar, TextArea

from mcpx.transports.spec import resolve_target
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.catalogue.tool_call import ToolCallPanel
from mcpx.tui.forms.schema_fields import FieldView
from mcpx.tui.forms.schema_form import SchemaForm
from mcpx.tui.results.result_view import ResultView
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import InspectApp, make_app
from mcpx.tui.traffic.traffic_filter import status_of
from mcpx.tui.widgets.confirm_screen import ConfirmScreen

ROOT = Path(__file__).resolve().parents[3]
HARD = ROOT / "tests" / "servers" / "hard_catalogue.py"
EVERYTHING = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
SIZE = (140, 50)
CONNECT = 30.0


def live_app(target: Path | str, *args: str, era: str = "legacy") -> InspectApp:
    spec = resolve_target(str(target), list(args))
    return make_app(spec, settings=InspectSettings(protocol_era=era, timeout=30.0))


async def select_tool(pilot: Any, app: InspectApp, name: str) -> ToolCallPanel:
    tools = app.query_one("#tools-list", OptionList)
    detail = app.query_one(ItemDetail)
    names = [tool.name for tool in app.catalog.tools or ()]
    tools.highlighted = names.index(name)
    await wait_for(pilot, lambda: detail.selection is not None and detail.selection[1].name == name)
    await wait_for(
        pilot, lambda: bool(app.query(ToolCallPanel)) and app.query_one(ToolCallPanel).tool_name == name
    )
    panel = app.query_one(ToolCallPanel)
    await wait_for(pilot, lambda: bool(panel.query(SchemaForm)) and len(panel.query(FieldView)) > 1)
    return panel


def field(panel: ToolCallPanel, *path: str | int) -> FieldView:
    return next(view for view in panel.query(FieldView) if view.node.path == tuple(path))


async def type_into(pilot: Any, panel: ToolCallPanel, path: tuple[str | int, ...], text: str) -> None:
    # a field view mounts its Input a refresh after itself (on Python 3.13 always after select_tool's wait)
    await wait_for(pilot, lambda: bool(field(panel, *path).query(Input)))
    box = field(panel, *path).query_one(Input)
    box.focus()
    box.value = ""
    await pilot.press(*text)
    await wait_for(pilot, lambda: box.value == text)


async def called(pilot: Any, panel: ToolCallPanel) -> dict[str, Any]:
    await wait_for(pilot, lambda: not panel.running and bool(panel.query(ResultView)), CONNECT)
    outcome = panel.last_outcome
    assert isinstance(outcome, dict)
    return outcome


def sent_arguments(result: dict[str, Any]) -> Any:
    return json.loads(result["content"][0]["text"])


async def test_hard_catalogue_forms_validate_call_confirm_progress_and_cancel() -> None:
    app = live_app(HARD)
    finished: list[ToolCallPanel.CallFinished] = []

    def hook(message: Any) -> None:
        if isinstance(message, ToolCallPanel.CallFinished):
            finished.append(message)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)

        # the keyboard way in: b (the catalogue), Enter on the tool → its form's first field has focus
        await pilot.press("b")
        tools = app.query_one("#tools-list", OptionList)
        await wait_for(pilot, lambda: tools.has_focus and tools.highlighted is not None)
        await pilot.press("enter")

        def in_the_form() -> bool:
            focused = app.focused
            return (
                focused is not None
                and not isinstance(focused, Button)
                and any(isinstance(node, ToolCallPanel) for node in focused.ancestors)
            )

        await wait_for(pilot, in_the_form)

        panel = await select_tool(pilot, app, "everything")
        form = panel.form
        button = panel.query_one("#call-button", Button)

        # required and empty: the button is disabled and says why; the error sits beside the field
        await wait_for(pilot, lambda: button.disabled)
        assert "code: required" in str(button.tooltip)
        assert field(panel, "code").has_class("-invalid")

        # "012" in a string field stays a string; the integer keeps its default 3
        await type_into(pilot, panel, ("code",), "012")
        await wait_for(pilot, lambda: not button.disabled)
        first = len(app.traffic)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: any(e.method == "tools/call" for e in app.traffic.since(first)))
        result = await called(pilot, panel)
        assert sent_arguments(result) == {"code": "012", "count": 3, "verbose": False}
        assert finished and finished[-1].tool_name == "everything" and finished[-1].size
        assert finished[-1].arguments == {"code": "012", "count": 3, "verbose": False}

        # a number field holding text: the error shows at once, the button is disabled, send anyway sends it
        await type_into(pilot, panel, ("count",), "12x")
        await wait_for(pilot, lambda: field(panel, "count").has_class("-invalid"))
        assert "not an integer" in str(field(panel, "count").query_one(".field-error").render())
        assert button.disabled
        await pilot.press("ctrl+g")
        result = await called(pilot, panel)
        assert sent_arguments(result)["count"] == "12x"  # the server got exactly what was typed

        # raw JSON and back: what was typed survives both ways ("1.50" too)
        await type_into(pilot, panel, ("count",), "4")
        await type_into(pilot, panel, ("ratio",), "1.50")
        await pilot.press("f2")
        raw = form.query_one("#form-raw", TextArea)
        await wait_for(pilot, lambda: form.raw_mode and raw.has_focus)
        assert json.loads(raw.text) == {"code": "012", "count": 4, "ratio": 1.5, "verbose": False}
        await pilot.press("f2")
        await wait_for(pilot, lambda: not form.raw_mode)
        assert field(panel, "ratio").query_one(Input).value == "1.50"
        await pilot.press("f2")
        await wait_for(pilot, lambda: form.raw_mode)
        raw.load_text(json.dumps({"code": "abc", "count": 5, "tags": ["hot"], "colour": None}))
        await pilot.press("f2")
        await wait_for(pilot, lambda: not form.raw_mode and bool(panel.query(FieldView)))
        await wait_for(
            pilot, lambda: form.value == {"code": "abc", "count": 5, "tags": ["hot"], "colour": None}
        )
        assert field(panel, "count").query_one(Input).value == "5"

        # a destructive tool asks first: no, then yes
        panel = await select_tool(pilot, app, "delete_everything")
        first = len(app.traffic)
        panel.query_one("#call-button", Button).press()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert not any(e.method == "tools/call" for e in app.traffic.since(first))
        panel.query_one("#call-button", Button).press()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await called(pilot, panel)

        # a slow tool: the progress bar follows the server's notifications; escape cancels it
        panel = await select_tool(pilot, app, "slow")
        await type_into(pilot, panel, ("steps",), "40")
        await type_into(pilot, panel, ("delay",), "0.2")
        await pilot.press("ctrl+r")
        bar = panel.query_one("#call-progress", ProgressBar)
        await wait_for(pilot, lambda: bar.total == 40 and (bar.progress or 0) >= 1, CONNECT)
        assert "of 40" in str(panel.query_one("#progress-message").render())
        first = len(app.traffic)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not panel.running, CONNECT)
        assert "Cancelled" in str(panel.query_one("#call-status").render())
        cancel = [e for e in app.traffic.since(first) if e.method == "notifications/cancelled"]
        assert cancel and cancel[0].direction == "out"
        assert finished[-1].tool_name == "slow" and "cancelled" in str(finished[-1].outcome)

        # the traffic log: the cancelled call ends in its state (its bar stops), a tool's isError counts
        # as an error, each row names its tool, and the filter finds both
        log, view = app.traffic, app.panel.traffic_view
        slow = [e for e in log if e.kind == "request" and e.method == "tools/call"][-1]
        await wait_for(pilot, lambda: status_of(slow, log) == "cancelled")
        assert app.client is not None
        outcome = await app.client.call_tool("no_such_tool", {})
        assert outcome.is_error
        failed = [e for e in log if e.kind == "request" and e.method == "tools/call"][-1]
        await wait_for(pilot, lambda: view._scanned == len(log))
        row = "".join(s.text for s in view.render_row(failed, 140))
        assert "tools/call no_such_tool" in row and "isError" in row
        view.filter_text = "status:cancelled"
        await wait_for(pilot, lambda: list(view.rows) == [slow.seq])
        view.filter_text = "status:error method:tools/call"
        await wait_for(pilot, lambda: list(view.rows) == [failed.seq, failed.response_seq])
        app.action_quit()
        await wait_for(pilot, lambda: not app.is_running, CONNECT)


@pytest.mark.npm
@pytest.mark.skipif(not EVERYTHING.exists() or shutil.which("node") is None, reason="npm peers not installed")
async def test_server_everything_typed_numbers_and_cancelled_long_operation() -> None:
    app = live_app(EVERYTHING, "stdio", era="auto")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        panel = await select_tool(pilot, app, "get-sum")
        await type_into(pilot, panel, ("a",), "1.5")
        await type_into(pilot, panel, ("b",), "2")
        await pilot.press("ctrl+r")
        result = await called(pilot, panel)
        assert "3.5" in result["content"][0]["text"]
        request = next(
            e for e in reversed(list(app.traffic)) if e.method == "tools/call" and e.direction == "out"
        )
        assert '"arguments":{"a":1.5,"b":2}' in request.raw.replace(" ", "")

        panel = await select_tool(pilot, app, "trigger-long-running-operation")
        await type_into(pilot, panel, ("duration",), "30")
        await type_into(pilot, panel, ("steps",), "30")
        await pilot.press("ctrl+r")
        bar = panel.query_one("#call-progress", ProgressBar)
        await wait_for(pilot, lambda: (bar.progress or 0) >= 1, CONNECT)
        first = len(app.traffic)
        panel.query_one("#cancel-call", Button).press()
        await wait_for(pilot, lambda: not panel.running, CONNECT)
        assert any(e.method == "notifications/cancelled" for e in app.traffic.since(first))
        assert "Cancelled" in str(panel.query_one("#call-status").render())
        app.action_quit()
        await wait_for(pilot, lambda: not app.is_running, CONNECT)


async def test_a_tool_without_properties_is_called_with_an_empty_object() -> None:
    """`{"type": "object"}` and nothing more (odd_names' `silent`): the call button is enabled with the
    form left empty, and the call sends `arguments: {}`."""
    app = live_app(ROOT / "tests" / "servers" / "odd_names.py")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        tools = app.query_one("#tools-list", OptionList)
        detail = app.query_one(ItemDetail)
        tools.highlighted = [tool.name for tool in app.catalog.tools or ()].index("silent")
        await wait_for(
            pilot,
            lambda: bool(app.query(ToolCallPanel)) and app.query_one(ToolCallPanel).tool_name == "silent",
        )
        assert detail.selection is not None
        panel = app.query_one(ToolCallPanel)
        button = panel.query_one("#call-button", Button)
        await wait_for(pilot, lambda: not button.disabled)
        button.press()

        def sent() -> list[Any]:
            return [e for e in app.traffic if e.direction == "out" and e.method == "tools/call"]

        await wait_for(pilot, lambda: bool(sent()), CONNECT)
        params = json.loads(sent()[-1].raw)["params"]
        assert params["name"] == "silent" and params["arguments"] == {}
