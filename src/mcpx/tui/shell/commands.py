"""`InspectCommands`: the command palette's actions (ctrl+p) — ping, reconnect, log level, clear, copy,
save a recording, raw JSON-RPC, copy a call as a command, a few ready-made traffic filters — and a jump
to any tool, resource, template or prompt by name (searched, not listed: a catalogue may hold 20,000)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from mcpx.protocol.names import LOG_LEVELS

if TYPE_CHECKING:
    from mcpx.tui.session_state import ItemKind
    from mcpx.tui.shell.inspect_screen import InspectScreen

Command = tuple[str, Callable[[], object], str]
#: items of each list the palette searches by name (a 20,000-tool catalogue stays responsive)
JUMP_LIMIT = 5_000


def jump_to_item(screen: InspectScreen, kind: ItemKind, item: Any) -> None:
    """Show the item in the detail pane and focus its form, as Enter on it in the browser does."""
    from mcpx.tui.catalogue.item_browser import ItemBrowser
    from mcpx.tui.shell.navigation import open_item_form

    for browser in screen.query(ItemBrowser):
        browser.show_kind(kind)
    screen.show_item(kind, item)
    screen.run_worker(open_item_form(screen), name="open form", group="focus", exclusive=True)


def sign_in_again(screen: InspectScreen) -> None:
    """Forget the stored OAuth token of the server on screen, then reconnect (a new sign-in)."""
    from mcpx.auth.discovery import canonical_uri
    from mcpx.auth.store import TokenStore

    spec = screen.context.spec
    url = spec.url if spec is not None else None
    if url:
        TokenStore().forget_token(canonical_uri(url))
    screen.action_reconnect()


class InspectCommands(Provider):
    """Every action of `mcpx inspect` that is not a key of its own, searchable by name."""

    def commands(self) -> list[Command]:
        app = cast("InspectScreen", self.screen)  # the screen the palette was opened on
        commands: list[Command] = [
            ("Ping the server", app.action_ping, "Send ping and show how long the answer took"),
            ("Reconnect", app.action_reconnect, "Stop the server (or drop the connection) and connect again"),
            ("Send raw JSON-RPC…", app.action_send_raw, "Type any frame, malformed too, and send it as is"),
            ("Copy event JSON", app.action_copy_event, "Copy the highlighted event's raw frame"),
            (
                "Save recording…",
                app.action_save_recording,
                "Write the session so far to a file (secrets masked); open it with mcpx replay",
            ),
            ("Clear log", app.action_clear_log, "Hide every event so far (the session keeps them)"),
            ("Toggle follow mode", app.action_toggle_follow, "Stick the traffic log to the newest event"),
            ("Show server info", app.action_show_info, "Instructions, capabilities, handshake, process"),
            ("Show roots", app.action_show_roots, "The roots the client advertises: add, remove, rename"),
            (
                "Answer the waiting question",
                app.action_answer_question,
                "Open the next elicitation or sampling request the server is waiting on",
            ),
            (
                "Save call as test",
                app.action_save_as_test,
                "The call in History (or the newest) into the server's collection, its answer expected",
            ),
            (
                "Run tests",
                app.action_run_tests,
                "Run the server's collection (*.mcpx.yaml): pass or fail per test",
            ),
            (
                "Check the server (mcpx check)",
                app.action_show_check,
                "Run the protocol checks on this connection; enter on a finding shows its exchange",
            ),
        ]
        if app.session.signed_in:
            commands.append(
                (
                    "Sign in again",
                    partial(sign_in_again, app),
                    "Forget this server's OAuth token and reconnect, which signs in anew",
                )
            )
        from mcpx.tui.shell.navigation import saved_calls_of

        saved = saved_calls_of(app)
        for call in reversed(saved.calls if saved is not None else []):
            arguments = dict(call.arguments)
            commands.append(
                (
                    f"Re-run saved call: {call.title}",
                    partial(app.request_tool_call, call.tool, arguments, run=True),
                    f"Call {call.tool} again with the saved arguments",
                )
            )
            commands.append(
                (
                    f"Load saved call: {call.title}",
                    partial(app.request_tool_call, call.tool, arguments, run=False),
                    f"Open {call.tool} with the saved arguments in its form",
                )
            )
        from mcpx.tui.history.call_commands import CALL_FORMATS
        from mcpx.tui.history.call_history import CallHistory

        for history in app.query(CallHistory):
            if history.calls or history.highlighted is not None:
                for form, label in CALL_FORMATS.items():
                    commands.append(
                        (
                            f"Copy call as {label}",
                            partial(history.action_copy, form),
                            "The call highlighted in History, else the newest, to the clipboard",
                        )
                    )
        for level in LOG_LEVELS:
            commands.append(
                (
                    f"Set log level: {level}",
                    partial(app.set_log_level, level),
                    f"Send logging/setLevel {level}",
                )
            )
        for label, text in (
            ("errors", "status:error"),
            ("problems", "is:flagged"),
            ("slow requests (> 500 ms)", "dur:>500ms"),
            ("tool calls", "method:tools/call"),
            ("no transport facts", "-dir:info -kind:stderr"),
            ("none (show everything)", ""),
        ):
            commands.append(
                (f"Filter traffic: {label}", partial(app.set_traffic_filter, text), text or "clear")
            )
        return commands

    async def discover(self) -> Hits:
        for name, callback, help_text in self.commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self.commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
        app = cast("InspectScreen", self.screen)  # the screen the palette was opened on
        from mcpx.tui.catalogue.detail_text import SINGULAR
        from mcpx.tui.catalogue.item_browser import item_name
        from mcpx.tui.session_state import KINDS

        needle = query.strip().lower()
        if not needle:
            return
        for kind in KINDS:
            for item in (app.catalog.items(kind) or ())[:JUMP_LIMIT]:
                shown = item_name(kind, item)
                name = getattr(item, "name", None) or getattr(item, "uri", None) or shown
                if needle not in f"{shown} {name}".lower():  # a cheap test first: most items fail it
                    continue
                label = f"Go to {SINGULAR[kind]}: {shown}" + (f" ({name})" if name != shown else "")
                score = matcher.match(label)
                if score > 0:
                    jump = partial(jump_to_item, app, kind, item)
                    yield Hit(score, matcher.highlight(label), jump, help="Show it and focus its form")
