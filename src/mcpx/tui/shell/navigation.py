"""Taking the inspector to a place: a tool's form (loaded or called), the Check tab, one event in the
traffic log. These move focus across features, so they live with the app that holds them all (a feature
never reaches into another)."""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING, Any

from textual.widgets import TabbedContent

from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.check.check_view import CheckView
from mcpx.tui.history.call_history import server_key
from mcpx.workspace.saved_calls import SavedCalls

if TYPE_CHECKING:
    from mcpx.tui.shell.app import InspectApp

#: seconds to wait for a tool's call panel to compose before giving up on loading or calling it
PANEL_WAIT = 5.0


async def open_tool_call(app: InspectApp, tool_name: str, arguments: dict[str, Any], *, run: bool) -> None:
    """Select the tool, wait for its call panel, then load the arguments into it or call it with them."""
    tool = next((t for t in (app.catalog.tools or ()) if t.name == tool_name), None)
    if tool is None:
        app.notify(f"The server lists no tool named {tool_name!r} now.", severity="warning")
        return
    detail = app.query_one(ItemDetail)
    detail.selection = ("tools", tool)
    detail.show_call_panel()
    for side in app.query("#side").results(TabbedContent):
        side.active = "detail-tab"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PANEL_WAIT

    def ready() -> Any:  # the new tool's panel, composed (the previous one may still be leaving)
        for panel in detail.query("#call-form ToolCallPanel"):
            if (
                getattr(panel, "tool_name", None) == tool_name
                and panel.is_attached
                and panel.query("SchemaForm")
            ):
                return panel
        return None

    while (panel := ready()) is None:
        if loop.time() > deadline:
            app.notify("The tool's call panel did not open: nothing was sent.", severity="warning")
            return
        await asyncio.sleep(0.05)
    await asyncio.sleep(0)  # let the form finish mounting its fields
    if run:
        outcome = panel.call(arguments)
        if inspect.isawaitable(outcome):
            await outcome
    else:
        panel.load_arguments(arguments)


async def open_item_form(app: InspectApp) -> None:
    """Enter on an item: focus its form's first field once composed, then hand it what was typed since."""
    from textual import events

    from mcpx.tui.catalogue.item_browser import ItemBrowser

    browsers = app.query(ItemBrowser)
    detail = app.query(ItemDetail).first() if app.query(ItemDetail) else None
    focused = await detail.open_form() if detail is not None else None
    typed = browsers.first().take_typed_ahead() if browsers else []
    if focused is not None:
        for key in typed:
            focused.post_message(events.Key(key.key, key.character))


def saved_calls_of(app: InspectApp) -> SavedCalls | None:
    """The current server's saved calls (for the command palette), or None before a connection."""
    key = server_key(app.session)
    return SavedCalls.load(key) if key else None


def show_check(app: InspectApp) -> None:
    """The Check tab, focused; the checks run the first time it is shown."""
    app.query_one("#side", TabbedContent).active = "check-tab"

    def ready() -> None:
        for view in app.query(CheckView):
            view.focus_results()
            if view.report is None and not view.running:
                view.action_run()

    app.call_after_refresh(ready)


def show_event(app: InspectApp, seq: int) -> None:
    """Show event `seq` in the traffic log, clearing a filter that hides it."""
    if not app.query("#traffic-panel"):
        return
    panel = app.panel
    panel.show_traffic()
    if not panel.traffic_view.select_seq(seq):
        app.set_traffic_filter("")
        panel.traffic_view.select_seq(seq)
