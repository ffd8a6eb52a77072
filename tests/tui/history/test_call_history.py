"""The History tab with the tool call panel, on the scripted server: calls are recorded as they finish,
one is loaded back into the form, re-run, saved for the server, and re-run from the command palette.
"""

from __future__ import annotations

from scripted import Script, scripted_app, settle, wait_for
from textual.widgets import OptionList

from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.catalogue.tool_call import ToolCallPanel
from mcpx.tui.forms.schema_form import SchemaForm
from mcpx.tui.history.call_history import CallHistory
from mcpx.tui.shell.commands import InspectCommands
from mcpx.workspace.saved_calls import SavedCalls

ECHOED = {"content": [{"type": "text", "text": "hi"}]}


async def test_record_load_rerun_save_and_palette() -> None:
    session = scripted_app(Script(calls={"echo": ECHOED}))
    app = session.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        detail = app.query_one(ItemDetail)
        app.query_one("#tools-list", OptionList).highlighted = 2  # echo
        await wait_for(
            pilot,
            lambda: bool(detail.query(ToolCallPanel)) and detail.query_one(ToolCallPanel).tool_name == "echo",
        )
        panel = detail.query_one(ToolCallPanel)
        await panel.call({"text": "hi"})
        history = app.query_one(CallHistory)
        await wait_for(pilot, lambda: len(history.calls) == 1)
        call = history.calls[0]
        assert (call.tool, call.arguments, call.status, call.result) == ("echo", {"text": "hi"}, "OK", ECHOED)
        assert call.latency is not None and call.latency > 0

        # another tool is shown; Load brings echo back with its arguments in the form
        app.query_one("#tools-list", OptionList).highlighted = 0
        await wait_for(pilot, lambda: any(p.tool_name == "get_forecast" for p in detail.query(ToolCallPanel)))
        assert history.highlighted is call
        history.action_load()
        # the loaded panel (the one before it may still be leaving), once its form has the arguments
        await wait_for(
            pilot,
            lambda: any(
                p.tool_name == "echo" and p.query(SchemaForm) and p.form.value == {"text": "hi"}
                for p in detail.query(ToolCallPanel)
            ),
        )
        assert len(history.calls) == 1

        history.action_rerun()
        await wait_for(pilot, lambda: len(history.calls) == 2)
        sent = [e for e in app.traffic if e.method == "tools/call" and e.direction == "out"]
        assert len(sent) == 2 and '"arguments":{"text":"hi"}' in sent[-1].raw

        history.action_save()
        await wait_for(pilot, lambda: history.saved is not None and len(history.saved.calls) == 1)
        assert SavedCalls.load("weather").calls[0].arguments == {"text": "hi"}
        await wait_for(pilot, lambda: not detail.query_one(ToolCallPanel).running)
        commands = {name: callback for name, callback, _ in InspectCommands(app.screen).commands()}
        commands['Re-run saved call: echo {"text": "hi"}']()
        await wait_for(pilot, lambda: len(history.calls) == 3)
