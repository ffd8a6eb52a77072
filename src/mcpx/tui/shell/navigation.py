"""Taking the inspector to a place: a tool's form (loaded or called), the Check tab, one event in the
traffic log, the Info and Roots tabs; the clipboard and the traffic filter. These move focus across
features, so they live with the screen that holds them all (a feature never reaches into another)."""

from __future__ import annotations

import asyncio
import inspect
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.widgets import Input, TabbedContent

from mcpx.tui.asking.roots_view import RootsView
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.check.check_view import CheckView
from mcpx.tui.history.call_history import server_key
from mcpx.tui.shell.info_view import InfoView
from mcpx.tui.widgets.event_list_view import EventListView
from mcpx.wire.traffic import TrafficEvent
from mcpx.workspace.saved_calls import SavedCalls

if TYPE_CHECKING:
    from mcpx.tui.shell.inspect_screen import InspectScreen

#: seconds to wait for a tool's call panel to compose before giving up on loading or calling it
PANEL_WAIT = 5.0
#: a lazily mounted tab's view is looked for every LOOK_AGAIN seconds, LOOKS times (10 s: on a loaded
#: machine twenty refreshes could all come before the view had mounted, and the Check tab then never ran)
LOOK_AGAIN = 0.05
LOOKS = 200


async def open_tool_call(
    screen: InspectScreen, tool_name: str, arguments: dict[str, Any], *, run: bool
) -> None:
    """Select the tool, wait for its call panel, then load the arguments into it or call it with them."""
    tool = next((t for t in (screen.catalog.tools or ()) if t.name == tool_name), None)
    if tool is None:
        screen.notify(f"The server lists no tool named {tool_name!r} now.", severity="warning")
        return
    detail = screen.query_one(ItemDetail)
    detail.selection = ("tools", tool)
    detail.show_call_panel()
    for side in screen.query("#side").results(TabbedContent):
        side.active = "detail-tab"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PANEL_WAIT

    def ready() -> Any:  # the new tool's panel, composed (panels still leaving may have the same name)
        panel = detail.shown_panel
        if (
            panel is not None
            and getattr(panel, "tool_name", None) == tool_name
            and panel.is_attached
            and panel.query("SchemaForm")
        ):
            return panel
        return None

    while (panel := ready()) is None:
        if loop.time() > deadline:
            screen.notify("The tool's call panel did not open: nothing was sent.", severity="warning")
            return
        await asyncio.sleep(0.05)
    await asyncio.sleep(0)  # let the form finish mounting its fields
    if run:
        outcome = panel.call(arguments)
        if inspect.isawaitable(outcome):
            await outcome
    else:
        panel.load_arguments(arguments)


async def open_item_form(screen: InspectScreen) -> None:
    """Enter on an item: focus its form's first field once composed, then hand it what was typed since."""
    from textual import events

    from mcpx.tui.catalogue.item_browser import ItemBrowser

    browsers = screen.query(ItemBrowser)
    detail = screen.query(ItemDetail).first() if screen.query(ItemDetail) else None
    focused = await detail.open_form() if detail is not None else None
    typed = browsers.first().take_typed_ahead() if browsers else []
    if focused is not None:
        for key in typed:
            focused.post_message(events.Key(key.key, key.character))


def saved_calls_of(screen: InspectScreen) -> SavedCalls | None:
    """The current server's saved calls (for the command palette), or None before a connection."""
    key = server_key(screen.session)
    return SavedCalls.load(key) if key else None


def show_check(screen: InspectScreen) -> None:
    """The Check tab, focused; the checks run the first time it is shown."""
    screen.query_one("#side", TabbedContent).active = "check-tab"

    def ready(tries: int) -> None:
        views = list(screen.query(CheckView))
        for view in views:
            view.focus_results()
            if view.report is None and not view.running:
                view.action_run()
        if not views and tries > 0:  # the view mounts lazily: look again shortly, a bounded while
            screen.set_timer(LOOK_AGAIN, partial(ready, tries - 1))

    screen.call_after_refresh(ready, LOOKS)


def show_event(screen: InspectScreen, seq: int) -> None:
    """Show event `seq` in the traffic log, clearing a filter that hides it."""
    if not screen.query("#traffic-panel"):
        return
    panel = screen.panel
    panel.show_traffic()
    if not panel.traffic_view.select_seq(seq):
        screen.set_traffic_filter("")
        panel.traffic_view.select_seq(seq)


def show_info(screen: InspectScreen) -> None:
    """The Info tab, focused when the focus was in the side tabs."""
    side = screen.query_one("#side", TabbedContent)
    side.active = "info-tab"
    # focus left in the tab being hidden would move to a sibling there, and switch that tab back
    focused = screen.focused
    if focused is not None and side in focused.ancestors:
        for view in screen.query(InfoView):
            view.focus()


def show_roots(screen: InspectScreen, tries: int | None = None) -> None:
    """The Roots tab, its table focused (the view mounts lazily: until it has, look again shortly, a
    bounded number of times, so the keys that follow go to its table and not to what had focus)."""
    tries = LOOKS if tries is None else tries
    screen.query_one("#side", TabbedContent).active = "roots-tab"
    views = list(screen.query(RootsView))
    for view in views:
        view.focus_table()
    if not views and tries > 0:
        screen.set_timer(LOOK_AGAIN, partial(show_roots, screen, tries - 1))


def open_event(screen: InspectScreen, view: EventListView, event: TrafficEvent) -> None:
    """The event screen on `event`; closing it on another event selects that one in `view`."""

    def reselect(seq: int | None) -> None:
        if seq is not None:
            view.select_seq(seq)

    from mcpx.tui.traffic.event_screen import EventScreen  # screens load when first opened: a faster start

    screen.app.push_screen(EventScreen(screen.context.traffic, event), reselect)


def copy_event(screen: InspectScreen) -> None:
    """The highlighted event's raw frame (or the newest event's) to the clipboard."""
    traffic = screen.context.traffic
    focused = screen.focused
    view = focused if isinstance(focused, EventListView) else screen.panel.traffic_view
    event = view.event_at_cursor() or (traffic[len(traffic) - 1] if len(traffic) else None)
    if event is None:
        screen.notify("The log is empty: nothing to copy.", severity="warning")
        return
    screen.app.copy_to_clipboard(event.raw)
    screen.notify(f"Copied event #{event.seq} ({len(event.raw):,} characters).")


def set_traffic_filter(screen: InspectScreen, text: str) -> None:
    """Put `text` in the traffic filter and show the traffic log (once the panel has mounted)."""
    if not screen.query("#traffic-panel"):
        return
    panel = screen.panel
    panel.query_one("#traffic-filter", Input).value = text
    panel.traffic_view.filter_text = text
    panel.show_traffic()
