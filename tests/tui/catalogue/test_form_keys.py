"""Keys under the fingers, on the scripted server: the issue's own sequences, typed, and the session is
unchanged (no reconnect, no quit, the form kept). One app per test, in memory on a virtual clock."""

from __future__ import annotations

from typing import Any

from rich.markdown import Markdown
from rich.text import Text
from scripted import TOOLS, Script, scripted_app, settle, wait_for
from textual import events
from textual.widgets import Button, Input, OptionList, Static, TextArea

from mcpx.tui.catalogue.item_browser import ItemBrowser
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.catalogue.tool_call import ToolCallPanel
from mcpx.tui.forms.schema_form import SchemaForm
from mcpx.tui.results.result_view import ResultView

SIZE = (160, 45)
#: an array-only tool, as server-filesystem's read_multiple_files and server-memory's write tools are
READ_MANY: dict[str, Any] = {
    "name": "read_many",
    "description": "Read several files.",
    "inputSchema": {
        "type": "object",
        "properties": {"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
        "required": ["paths"],
    },
}
RAW_ONLY: dict[str, Any] = {
    "name": "raw_only",
    "description": "Arguments the form shows as JSON.",
    "inputSchema": {"type": "object", "properties": {"blob": {}}},
}
#: one required text field: Enter sends the form as soon as it is filled
LOOKUP: dict[str, Any] = {
    "name": "lookup",
    "description": "Look a word up.",
    "inputSchema": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
}


def script() -> Script:
    answer = {"content": [{"type": "text", "text": "- a: 1\n  b:   2"}]}
    calls = {"read_many": answer, "echo": answer, "lookup": answer}
    return Script(tools=[READ_MANY, RAW_ONLY, *TOOLS, LOOKUP], calls=calls, held={"long_report"})


def unchanged(app: Any, attempt: int) -> bool:
    return app.is_running and app.session.attempt == attempt and app.session.state == "connected"


def calls(app: Any) -> list[Any]:
    return [e.message.params for e in app.traffic if e.kind == "request" and e.method == "tools/call"]


async def test_enter_from_the_filter_lands_in_the_array_field_and_letters_type_there() -> None:
    """`/`, a name, Enter, then typing: the text is the array item's, `r` and `q` restart or quit
    nothing; Enter sends the filled form, its result is in view as text; letters on its buttons do
    nothing either."""
    session = scripted_app(script())
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        attempt = app.session.attempt
        await pilot.press("slash", *"read_m", "enter", *"rq/tmp")
        panel = app.query_one(ToolCallPanel)
        assert panel.tool_name == "read_many"
        await wait_for(pilot, lambda: panel.form.value == {"paths": ["rq/tmp"]})
        focused = app.focused
        assert isinstance(focused, Input) and focused.display and focused.region.area > 0
        assert unchanged(app, attempt)

        await pilot.press("enter")  # every field is filled: Enter calls
        await wait_for(pilot, lambda: bool(panel.query(ResultView)))
        assert calls(app)[-1]["arguments"] == {"paths": ["rq/tmp"]}
        detail = app.query_one(ItemDetail)
        result = panel.query_one(ResultView)
        await wait_for(pilot, lambda: detail.region.contains_point(result.region.offset))  # scrolled to

        # the YAML-looking text is shown as it is (not as Markdown bullets); the toggle renders Markdown
        shown = result.query_one(".content-block .text", Static)
        assert isinstance(shown.content, Text) and shown.content.plain == "- a: 1\n  b:   2"
        toggle = result.query_one(".markdown-toggle", Button)
        toggle.press()
        await wait_for(pilot, lambda: isinstance(shown.content, Markdown))
        toggle.press()
        await wait_for(pilot, lambda: isinstance(shown.content, Text))

        # letters on the form's own buttons never reach the app's keys (r restarted, q quit)
        adder = next(b for b in panel.query(Button) if b.name == "add")
        adder.focus()
        await pilot.pause()
        # … and the footer does not offer them there (F1 still works from a form)
        offered = {b.binding.id for b in app.screen.active_bindings.values()}
        assert {"quit", "reconnect"}.isdisjoint(offered) and "help" in offered
        await pilot.press(*"rqtiCTRMP?")
        assert unchanged(app, attempt) and app.focused is adder
        assert app.query_one("#side").active == "detail-tab"  # type: ignore[attr-defined]
        call_button = panel.query_one("#call-button", Button)
        call_button.focus()
        await pilot.press("r", "q")
        assert unchanged(app, attempt) and app.focused is call_button
        assert panel.form.value == {"paths": ["rq/tmp"]}  # the form is as it was
        app.query_one("#tools-list", OptionList).focus()
        await wait_for(
            pilot,
            lambda: {"quit", "reconnect"} <= {b.binding.id for b in app.screen.active_bindings.values()},
        )


async def test_escape_tab_filter_highlight_tab_letters_and_asking_before_q_and_r() -> None:
    """Tab leaves JSON editors, Escape leaves the field then the form, a new filter highlights its first
    match, letters switch the catalogue's tabs; q and r ask first with a call in flight or a half-filled
    form, and nothing changes when the answer is no."""
    from mcpx.tui.widgets.confirm_screen import ConfirmScreen

    session = scripted_app(script())
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        tools = app.query_one("#tools-list", OptionList)
        await pilot.press("down", "enter")  # raw_only: a JSON editor field
        await wait_for(pilot, lambda: isinstance(app.focused, TextArea))
        editor = app.focused
        await pilot.press("tab")
        assert app.focused is not editor  # Tab leaves a JSON editor (it never indents)
        assert isinstance(editor, TextArea) and "\t" not in editor.text
        form = app.query_one(SchemaForm)
        await pilot.press("shift+tab", "f2")  # the raw JSON of the whole form: Tab leaves it too
        await wait_for(pilot, lambda: form.raw_mode and isinstance(app.focused, TextArea))
        await pilot.press("tab")
        assert not isinstance(app.focused, TextArea)
        await pilot.press("shift+tab", "escape")
        assert isinstance(app.focused, ItemDetail)  # out of the field, still in the pane
        await pilot.press("escape")
        assert app.focused is tools  # and back to the catalogue

        # a new filter highlights its first match (Enter would call the wrong tool otherwise)
        await pilot.press("down", "down")
        assert tools.highlighted == 3
        await pilot.press("slash", "e")
        await wait_for(pilot, lambda: tools.highlighted == 0)
        await pilot.press("escape")  # (the filter keeps "e"; Escape leaves it)
        browser = app.query_one(ItemBrowser)
        tools.focus()
        for key, kind in (("R", "resources"), ("M", "resourceTemplates"), ("P", "prompts"), ("T", "tools")):
            await pilot.press(key)
            assert browser.active_kind == kind
            assert app.focused is app.query_one(f"#{kind}-list")

        # q and r ask first while a call runs; n leaves everything as it was
        box = browser.query_one("#browser-filter", Input)
        box.value = ""
        # the list's new highlight reaches the detail pane in two messages: wait for it, or it would land
        # after the call below is opened and show another tool in its place
        detail = app.query_one(ItemDetail)
        await wait_for(
            pilot,
            lambda: (
                browser.filter_text == ""
                and detail.selection is not None
                and detail.selection[1] is browser._highlighted_item()
            ),
        )
        attempt = app.session.attempt
        app.view.request_tool_call("long_report", {}, run=True)
        await wait_for(pilot, lambda: app.in_flight == 1 or any(w.group == "requests" for w in app.workers))
        app.query_one("#tools-list", OptionList).focus()
        for key in ("q", "r"):
            await pilot.press(key)
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert "in flight" in str(app.screen.query_one("#confirm-details Static", Static).render())
            await pilot.press("n")
            await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
            assert unchanged(app, attempt)
        panel = next(p for p in app.query(ToolCallPanel) if p.running)  # the call goes on
        await pilot.press("escape")  # (the list has focus: Escape is not the panel's cancel here)
        panel.action_cancel()
        await wait_for(
            pilot,
            lambda: not panel.running and not any(w.is_running for w in app.workers if w.group == "requests"),
        )

        # a half-filled form: typed, then back on the list; q asks, n keeps the form as it was
        await pilot.press("T", "home", "enter", *"x")
        form = app.query_one(SchemaForm)
        await wait_for(pilot, lambda: form.touched)
        typed = form.value
        await pilot.press("escape", "escape", "q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "typed in the form" in str(app.screen.query_one("#confirm-details Static", Static).render())
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert unchanged(app, attempt) and app.query_one(SchemaForm).value == typed
        await pilot.press("q")  # and yes means yes
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running)


async def test_a_word_and_enter_typed_in_one_burst_call_the_tool() -> None:
    """Typing fast: the Enter that follows the last letter at once is judged on what was typed (it was
    judged on the form before those letters, found the required field empty and went to the next one)."""
    session = scripted_app(script())
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("slash", *"lookup", "enter")
        panel = app.query_one(ToolCallPanel)
        assert panel.tool_name == "lookup"
        await wait_for(pilot, lambda: isinstance(app.focused, Input) and panel in app.focused.ancestors)
        for key, character in (("x", "x"), ("y", "y"), ("z", "z"), ("enter", "\r")):
            app.post_message(events.Key(key, character))  # as a terminal delivers a burst: no pause between
        await wait_for(pilot, lambda: bool(panel.query(ResultView)))
        assert calls(app)[-1]["arguments"] == {"word": "xyz"}
