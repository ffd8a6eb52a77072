"""Scripted scenes of calling a tool, shared by the snapshot tests and scripts/export_screenshots.py.

`book_trip` is a tool with a schema that exercises the form (a nullable enum, a nested object, an array
of objects, a oneOf union, a multi-select, a key/value map, an `x-mcp-header` property); `long_report`
is held by the script so a scene can send its progress by hand on the virtual clock.
"""

from __future__ import annotations

import json
from typing import Any

from scripted import TOOLS, Script, quiet, wait_for
from textual.widgets import OptionList

from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.catalogue.tool_call import ToolCallPanel
from mcpx.tui.forms.schema_fields import FieldView
from mcpx.tui.shell.app import InspectApp

BOOK_TRIP: dict[str, Any] = {
    "name": "book_trip",
    "title": "Book a trip",
    "description": "Books flights and a hotel.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "traveller": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 2},
                    "email": {"type": "string", "format": "email"},
                },
                "required": ["name", "email"],
            },
            "region": {"type": "string", "x-mcp-header": "Region", "description": "Routed by the gateway"},
            "nights": {"type": "integer", "minimum": 1, "maximum": 30},
            "cabin": {"anyOf": [{"enum": ["economy", "business"], "type": "string"}, {"type": "null"}]},
            "legs": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {"from": {"type": "string"}, "to": {"type": "string"}},
                    "required": ["from", "to"],
                },
            },
        },
        "required": ["traveller", "nights", "legs"],
    },
}
FILLED = {
    "traveller": {"name": "Ada Lovelace", "email": "ada@example.com"},
    "region": "eu-west",
    "nights": 4,
    "cabin": None,
    "legs": [{"from": "LHR", "to": "LIS"}, {"from": "LIS", "to": "LHR"}],
}
INVALID = {
    "traveller": {"name": "A", "email": "ada-at-example"},
    "nights": 45,
    "legs": [{"from": "LHR"}],
}


def call_script(**kwargs: Any) -> Script:
    return Script(tools=[*TOOLS, BOOK_TRIP], held={"long_report"}, **kwargs)


async def open_tool(pilot: Any, app: InspectApp, name: str) -> ToolCallPanel:
    tools = app.query_one("#tools-list", OptionList)
    names = [tool.name for tool in app.catalog.tools or ()]
    tools.highlighted = names.index(name)
    tools.focus()
    detail = app.query_one(ItemDetail)
    await wait_for(pilot, lambda: detail.selection is not None and detail.selection[1].name == name)
    await wait_for(
        pilot, lambda: any(p.tool_name == name and p.is_attached for p in detail.query(ToolCallPanel))
    )
    panel = next(p for p in detail.query(ToolCallPanel) if p.tool_name == name)
    await wait_for(pilot, lambda: bool(panel.query(FieldView)))
    return panel


async def show_form(pilot: Any, app: InspectApp, value: dict[str, Any]) -> ToolCallPanel:
    """book_trip's form holding `value`, scrolled into view."""
    panel = await open_tool(pilot, app, "book_trip")
    panel.load_arguments(value)
    await wait_for(pilot, lambda: panel.form.value == value or bool(panel.form.issues))
    await pilot.pause()
    detail = app.query_one(ItemDetail)
    detail.scroll_to_widget(panel.form, animate=False, top=True)
    await quiet(pilot)
    return panel


async def filled_form(pilot: Any, app: InspectApp, session: Any) -> None:
    await show_form(pilot, app, FILLED)


async def invalid_form(pilot: Any, app: InspectApp, session: Any) -> None:
    await show_form(pilot, app, INVALID)


async def progress(pilot: Any, app: InspectApp, session: Any) -> None:
    """long_report running: the server has sent 3 of 10 steps with a message."""
    panel = await open_tool(pilot, app, "long_report")
    first = len(app.traffic)
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: panel.running)
    await wait_for(pilot, lambda: any(e.method == "tools/call" for e in app.traffic.since(first)))
    request = next(e for e in app.traffic.since(first) if e.method == "tools/call")
    token = request.message.params["_meta"]["progressToken"]  # type: ignore[union-attr]
    for step in (1, 2, 3):
        params = {"progressToken": token, "progress": step, "total": 10, "message": f"rendering page {step}"}
        session.transport.emit(
            json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
        )
    bar = panel.query_one("#call-progress")
    await wait_for(pilot, lambda: getattr(bar, "progress", 0) == 3)
    detail = app.query_one(ItemDetail)
    detail.scroll_to_widget(panel.query_one("#call-bar"), animate=False, top=True)
    await quiet(pilot)
