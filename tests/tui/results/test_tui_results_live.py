"""Pilot tests of results, resources, templates and prompts against server-everything over stdio.

Every wait is on a condition (a widget appearing, a worker finishing), never a fixed sleep.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from scripted import wait_for
from textual.widgets import Button, Input, OptionList, Static, TabbedContent

from mcpx.schema.output import output_mismatches
from mcpx.transports.spec import resolve_target
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.catalogue.prompt_panel import PromptPanel
from mcpx.tui.catalogue.template_panel import TemplatePanel
from mcpx.tui.forms.argument_field import ArgumentField
from mcpx.tui.history.call_history import CallHistory
from mcpx.tui.results.content_view import ContentBlockView, MediaBody, ReadResultView, ResourceContentsView
from mcpx.tui.results.result_view import ResultView
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import InspectApp, make_app
from mcpx.tui.shell.commands import InspectCommands
from mcpx.tui.widgets.json_tree import JsonTree
from mcpx.workspace.saved_calls import SavedCalls

ROOT = Path(__file__).resolve().parents[3]
EVERYTHING = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
CHECK_SERVER = ROOT / "tests" / "servers" / "check_server.py"
SIZE = (140, 50)
CONNECT = 30.0

pytestmark = pytest.mark.skipif(not EVERYTHING.exists(), reason="npm peers not installed")


def everything_app() -> InspectApp:
    spec = resolve_target("node", [str(EVERYTHING), "stdio"])
    return make_app(spec, settings=InspectSettings(protocol_era="legacy", timeout=30.0))


async def select(pilot: Any, app: InspectApp, kind: str, name: str) -> Any:
    """Show `kind`'s tab and highlight the item called `name` (or with that URI); its panel mounts."""
    await wait_for(pilot, lambda: app.catalog.items(kind) is not None, CONNECT)  # type: ignore[arg-type]
    app.query_one("#browser-tabs", TabbedContent).active = f"{kind}-tab"
    items = list(app.catalog.items(kind) or ())  # type: ignore[arg-type]
    index = next(
        i
        for i, item in enumerate(items)
        if name
        in (getattr(item, "name", None), getattr(item, "uri", None), getattr(item, "uri_template", None))
    )
    detail = app.query_one(ItemDetail)
    before = set(detail.query(".call-panel"))
    app.query_one(f"#{kind}-list", OptionList).highlighted = index
    await wait_for(pilot, lambda: detail.selection is not None and detail.selection[1] is items[index])

    def composed() -> (
        bool
    ):  # the previous panel is gone and the new one (built once the highlight rests) is in
        panels = list(detail.query(".call-panel"))
        return len(panels) == 1 and panels[0] not in before and bool(panels[0].query("Button"))

    await wait_for(pilot, composed)
    return items[index]


async def test_template_completion_and_read() -> None:
    app = everything_app()
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "resourceTemplates", "demo://resource/dynamic/text/{resourceId}")
        panel = app.query_one(TemplatePanel)
        field = panel.query_one(ArgumentField)
        field.query_one(Input).focus()
        await pilot.press("2")
        await wait_for(pilot, lambda: field.values == ["2"])
        assert any(e.method == "completion/complete" for e in app.traffic)
        assert panel.uri == "demo://resource/dynamic/text/2"
        panel.query_one("#template-read", Button).press()
        await wait_for(
            pilot, lambda: bool(panel.query(ReadResultView)) and bool(panel.query(ResourceContentsView))
        )
        contents = panel.query_one(ResourceContentsView)
        assert contents.contents["uri"] == "demo://resource/dynamic/text/2"
        assert "text" in contents.contents
        await pilot.press("ctrl+c")


async def test_prompt_with_completion_context_and_embedded_resource() -> None:
    app = everything_app()
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "prompts", "completable-prompt")
        panel = app.query_one(PromptPanel)
        department, name = panel.query(ArgumentField)
        assert department.required and name.required
        department.query_one(Input).focus()
        await pilot.press("E")
        await wait_for(pilot, lambda: department.values == ["Engineering"])
        await pilot.press("right")  # accepts the suggestion
        await wait_for(pilot, lambda: department.value == "Engineering")
        name.query_one(Input).focus()
        await pilot.press("B")
        await wait_for(pilot, lambda: name.values == ["Bob"])  # context: the department narrows the names
        sent = [e for e in app.traffic if e.method == "completion/complete" and e.direction == "out"]
        assert '"context":{"arguments":{"department":"Engineering"}}' in sent[-1].raw
        await pilot.press("right")
        panel.query_one("#prompt-get", Button).press()
        # the messages view composes its blocks a refresh after it mounts
        await wait_for(pilot, lambda: bool(panel.query("PromptMessagesView ContentBlockView")))
        blocks = panel.query(ContentBlockView)
        assert "Please promote Bob to the head of the Engineering team." in blocks.first().block["text"]

        await select(pilot, app, "prompts", "resource-prompt")
        panel = app.query_one(PromptPanel)
        fields = list(panel.query(ArgumentField))
        fields[0].value = "Text"
        fields[1].value = "2"
        panel.query_one("#prompt-get", Button).press()
        # the messages view composes its blocks a refresh after it mounts
        await wait_for(pilot, lambda: bool(panel.query("PromptMessagesView ContentBlockView")))
        kinds = [block.kind for block in panel.query(ContentBlockView)]
        assert kinds == ["text", "resource"]
        await wait_for(pilot, lambda: bool(panel.query(ResourceContentsView)))
        assert panel.query_one(ResourceContentsView).contents["uri"].endswith("/text/2")


async def history_call(pilot: Any, app: InspectApp, tool: str, arguments: dict[str, Any]) -> ResultView:
    """Call `tool` on the live server, record it in the History tab, and return its result view there."""
    assert app.client is not None
    started = app.clock()
    result = await app.client.call_tool(tool, arguments)
    history = app.query_one(CallHistory)
    history.record(tool, arguments, result, app.clock() - started, len(str(result.raw)))
    app.query_one("#side", TabbedContent).active = "history-tab"
    await wait_for(pilot, lambda: any(v.result is result.raw for v in history.query(ResultView)))
    return next(v for v in history.query(ResultView) if v.result is result.raw)


async def test_results_from_server_everything(tmp_path: Path) -> None:
    app = everything_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        view = await history_call(pilot, app, "get-structured-content", {"location": "Chicago"})
        await wait_for(pilot, lambda: bool(view.query("#result-conforms")))
        assert not view.query("#result-mismatches") and view.query(JsonTree)

        view = await history_call(pilot, app, "get-tiny-image", {})
        await wait_for(pilot, lambda: bool(view.query(MediaBody)))
        media = view.query_one(MediaBody)
        assert (media.info.sniffed, media.info.width, media.info.height) == ("image/png", 20, 20)
        await wait_for(pilot, lambda: bool(media.query(".media-preview")))  # a 20×20 PNG is cheap to draw

        view = await history_call(pilot, app, "get-resource-links", {"count": 2})
        await wait_for(pilot, lambda: len(view.query(".open-link")) == 2)
        link = view.query(ContentBlockView).filter(".-resource-link").first()
        link.query_one(".open-link", Button).press()
        await wait_for(pilot, lambda: bool(link.query(ResourceContentsView)))
        assert link.query_one(ResourceContentsView).contents["uri"] == link.block["uri"]

        # save the highlighted call (the last one): it persists per server and shows in the palette
        history = app.query_one(CallHistory)
        history.query_one("#history-save", Button).press()
        await wait_for(pilot, lambda: history.saved is not None and len(history.saved.calls) == 1)
        assert SavedCalls.load("mcp-servers/everything").calls[0].arguments == {"count": 2}
        names = [name for name, _, _ in InspectCommands(app.screen).commands()]
        assert 'Re-run saved call: get-resource-links {"count": 2}' in names


async def test_structured_content_mismatch_is_shown_field_by_field() -> None:
    spec = resolve_target(sys.executable, [str(CHECK_SERVER), "bad-structured"])
    app = make_app(spec, settings=InspectSettings(protocol_era="legacy", timeout=30.0))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        view = await history_call(pilot, app, "add", {"a": 1, "b": 2})
        await wait_for(pilot, lambda: bool(view.query("#result-mismatches")))
        assert "1 mismatch" in str(view.query_one("#result-mismatches", Static).render())
        assert output_mismatches(view.tool["outputSchema"], view.result["structuredContent"]) == [
            ("$.sum", "'3' is not of type 'integer'")
        ]
