"""Save as test (ctrl+t, or the palette) and Run tests (the palette): the shell picks the call — the one
highlighted in History when History is shown, else the newest call of the tool in the detail pane, else
the newest call — and hands it to `mcpx.tui.testing`, which writes it into the server's collection."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.widgets import TabbedContent

from mcpx.errors import McpxError
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.history.call_history import CallHistory, CallRecord
from mcpx.tui.widgets.event_list_view import printable

if TYPE_CHECKING:
    from mcpx.tui.shell.inspect_screen import InspectScreen


def collection_path(screen: InspectScreen) -> Path | None:
    """The server's collection: `--tests FILE`, else beside its script, else named after it in the cwd."""
    if screen.collection_file is not None:
        return screen.collection_file
    spec = screen.context.spec
    if spec is None:
        return None
    from mcpx.watch.paths import collection_for

    return collection_for(spec, screen.session.server_name)


def pick_call(app: InspectScreen) -> CallRecord | None:
    histories = list(app.query(CallHistory))
    if not histories:
        return None
    history = histories[0]
    sides = list(app.query("#side").results(TabbedContent))
    if sides and sides[0].active == "history-tab" and isinstance(history.highlighted, CallRecord):
        return history.highlighted
    shown = None
    for detail in app.query(ItemDetail):
        selection = detail.selection
        if selection is not None and selection[0] == "tools":
            shown = getattr(selection[1], "name", None)
    calls = [call for call in reversed(history.calls) if shown is None or call.tool == shown]
    return calls[0] if calls else (history.calls[-1] if history.calls else None)


def save_as_test(app: InspectScreen) -> None:
    """Append the picked call to the collection, its answer as the expectation; say where."""
    from mcpx.tui.testing.save_test import call_as_test, names_in, save_call

    path = collection_path(app)
    if path is None:
        app.notify("No server to save tests for (a recording is open).", severity="warning")
        return
    call = pick_call(app)
    if call is None:
        app.notify("No call to save yet: call a tool first (ctrl+r in its form).", severity="warning")
        return
    if call.error is not None and call.error_code is None:
        app.notify(
            f"Not saved: the call got no answer to expect ({printable(call.error)}).", severity="warning"
        )
        return
    test = call_as_test(
        call.tool,
        call.arguments,
        call.result,
        error_code=call.error_code,
        error=call.error,
        taken=names_in(path),
    )
    try:
        saved = save_call(path, test, app.context.spec)
    except (OSError, McpxError) as exc:
        message = exc.message if isinstance(exc, McpxError) else str(exc)
        app.notify(f"Cannot save the test: {printable(message)}", severity="error", timeout=10)
        return
    where = f"a new collection {saved.path}" if saved.created else str(saved.path)
    app.notify(
        f"“{printable(saved.name)}” → {printable(where)}\nEdit its expect: to taste; ctrl+p › Run tests.",
        title="Saved as test",
        timeout=8,
        markup=False,
    )


def run_tests(app: InspectScreen) -> None:
    """The collection's tests on the app's connection, in a screen with pass/fail per test."""
    from mcpx.tui.testing.runs import run_tests as run
    from mcpx.tui.testing.tests_screen import TestsScreen

    path = collection_path(app)
    if path is None or not path.is_file():
        where = f" (they go to {path})" if path is not None else ""
        app.notify(
            f"No tests for this server yet: save a call as a test first, ctrl+t{printable(where)}.",
            severity="warning",
            markup=False,
        )
        return
    app.app.push_screen(TestsScreen(path, lambda: run(path, app.client), clock=app.context.clock))
