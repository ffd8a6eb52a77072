"""`CallHistory`: this session's tool calls (tool, arguments, result, time) and the server's saved calls.

Calls arrive from the tool call panel (`ToolCallPanel.CallFinished`, forwarded by the app to
`record()`). The highlighted call shows its arguments and its result; it can be run again, loaded back
into the tool's form, saved (per server, `mcpx.workspace.saved_calls`) or forgotten. Running and loading
go up as `CallHistory.CallRequested`; `open_tool_call()` selects the tool and hands the arguments to its
panel (`load_arguments()` / `call()`). Saved calls are also in the command palette.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from mcpx.tui.context import InspectContext
from mcpx.tui.history.call_commands import CALL_FORMATS, CallFormat, call_as
from mcpx.tui.results.content_view import json_renderable
from mcpx.tui.results.result_view import ResultView
from mcpx.tui.session_state import Lists, SessionState
from mcpx.tui.widgets.dom import child
from mcpx.tui.widgets.event_list_view import printable, session_start
from mcpx.tui.widgets.formats import format_latency
from mcpx.workspace.saved_calls import SavedCall, SavedCalls

if TYPE_CHECKING:
    from mcpx.target import ServerSpec


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call of this session, as it ended."""

    tool: str
    arguments: dict[str, Any]
    #: the raw result (a tools/call result object), or None when the call failed
    result: Any
    #: why the call failed (an error response, a timeout, a cancellation), or None
    error: str | None
    latency: float | None
    size: int | None
    #: seconds since the session's first event
    at: float
    #: the JSON-RPC error code when the server answered with an error (None: a result, or no answer)
    error_code: int | None = None

    @property
    def status(self) -> str:
        if self.error is not None:
            return "CANCELLED" if self.error.startswith("cancelled") else "FAILED"
        return "ERROR" if isinstance(self.result, Mapping) and self.result.get("isError") is True else "OK"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def server_key(session: SessionState) -> str:
    """Whose saved calls: the server's name, else how it was reached."""
    return session.server_name or session.target


class CallHistory(Vertical):
    """Session calls and saved calls; the highlighted one in full, with Re-run, Load, Save and Forget."""

    HELP: ClassVar[str] = """\
Every tool call of this session (newest first) and the calls saved for this server. The highlighted
call shows its arguments and result. **R** runs it again, **l** loads its arguments into the tool's
form, **s** saves it for this server (kept across sessions; also in the command palette, ctrl+p),
**delete** forgets a saved call. **c** copies it as an `mcpx call …` command (runnable as is, the
server's arguments after `--`), **x** as the official inspector's `--cli` line, **j** as JSON-RPC.
**ctrl+t** saves it as a test: into the server's collection (`server.mcpx.yaml` beside its script), its
answer as the expectation; "Run tests" in the palette runs them.
"""
    BINDING_GROUP_TITLE = "History"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "R", "rerun", "Re-run", id="history-rerun", tooltip="Call the tool again with these arguments"
        ),
        Binding("l", "load", "Load", id="history-load", tooltip="Put these arguments into the tool's form"),
        Binding("s", "save", "Save", id="history-save", tooltip="Keep this call for this server"),
        Binding("delete", "forget", "Forget", id="history-forget", tooltip="Remove a saved call"),
        Binding("c", "copy('mcpx')", "Copy mcpx call", id="history-copy-mcpx", tooltip="Copy as mcpx call …"),
        Binding(
            "x",
            "copy('inspector')",
            "Copy --cli",
            id="history-copy-inspector",
            tooltip="Copy as inspector --cli",
        ),
        Binding(
            "j", "copy('json-rpc')", "Copy JSON-RPC", id="history-copy-json-rpc", tooltip="Copy as JSON-RPC"
        ),
    ]
    DEFAULT_CSS = """
    CallHistory { height: 1fr; }
    CallHistory > #history-list { height: auto; max-height: 12; border: none; padding: 0 1; }
    CallHistory > .panel-buttons { height: auto; margin: 1 0; }
    CallHistory > .panel-buttons > Button { margin-right: 1; }
    CallHistory > #history-detail { height: 1fr; padding: 0 1; }
    CallHistory #history-detail > ResultView { margin-top: 1; }
    """

    session: reactive[SessionState] = reactive(SessionState, init=False)
    """The connection: whose saved calls are shown."""
    catalog: reactive[Lists] = reactive(Lists, init=False)
    """What the server lists (a result is checked against its tool's outputSchema)."""

    class CallRequested(Message):
        """Run a call again (`run`) or load its arguments into the tool's form."""

        def __init__(self, history: CallHistory, tool: str, arguments: dict[str, Any], run: bool) -> None:
            super().__init__()
            self.history = history
            self.tool = tool
            self.arguments = arguments
            self.run = run

        @property
        def control(self) -> CallHistory:
            return self.history

    def __init__(self, context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.context = context
        self.calls: list[CallRecord] = []
        self.saved: SavedCalls | None = None
        self._rows: list[CallRecord | SavedCall | None] = []
        self._shown_row: CallRecord | SavedCall | None = None

    def compose(self) -> ComposeResult:
        yield OptionList(id="history-list")
        with Horizontal(classes="panel-buttons"):
            yield Button("Re-run  R", id="history-rerun", variant="primary", compact=True)
            yield Button("Load into form  l", id="history-load", compact=True)
            yield Button("Save  s", id="history-save", compact=True)
            yield Button("Forget  del", id="history-forget", compact=True)
        yield VerticalScroll(id="history-detail")

    def on_mount(self) -> None:
        self._reload_saved()

    def watch_session(self, old: SessionState, new: SessionState) -> None:
        if server_key(old) != server_key(new):
            self._reload_saved()

    def _reload_saved(self) -> None:
        key = server_key(self.session)
        self.saved = SavedCalls.load(key) if key else None
        self._refresh_list()

    # -- what comes in -------------------------------------------------------------------------------
    def record(
        self, tool: str, arguments: Any, outcome: Any, latency: float | None = None, size: int | None = None
    ) -> CallRecord:
        """Add a finished call; `outcome` is the result (raw dict or typed view) or the exception."""
        at = self.context.clock() - session_start(self.context.traffic)
        error = None
        result = None
        code = getattr(outcome, "error_code", None) if isinstance(outcome, BaseException) else None
        if isinstance(outcome, BaseException):
            error = getattr(outcome, "message", None) or f"{type(outcome).__name__}: {outcome}"
        else:
            result = outcome.raw if hasattr(outcome, "raw") and not isinstance(outcome, Mapping) else outcome
        call = CallRecord(
            tool,
            dict(arguments or {}),
            result,
            error,
            latency,
            size,
            max(at, 0.0),
            code if isinstance(code, int) else None,
        )
        self.calls.append(call)
        self._refresh_list(select=call)
        return call

    # -- the list ------------------------------------------------------------------------------------
    def _refresh_list(self, select: CallRecord | SavedCall | None = None) -> None:
        option_list = child(self, "#history-list", OptionList)
        if option_list is None:
            return
        previous = self.highlighted
        options: list[Option] = [
            Option(Text(f"This session: {_count(len(self.calls), 'call')}", "bold"), disabled=True)
        ]
        rows: list[CallRecord | SavedCall | None] = [None]
        for call in reversed(self.calls):
            options.append(Option(self._call_line(call)))
            rows.append(call)
        saved = self.saved.calls if self.saved is not None else []
        title = (
            f"Saved for {self.saved.server}: {len(saved)}"
            if self.saved is not None
            else "Saved: not connected"
        )
        options.append(Option(Text(printable(title), "bold"), disabled=True))
        rows.append(None)
        if self.saved is not None and self.saved.problem:
            options.append(Option(Text(printable(self.saved.problem), "yellow"), disabled=True))
            rows.append(None)
        for saved_call in reversed(saved):
            options.append(Option(Text("★ ") + Text(printable(saved_call.title))))
            rows.append(saved_call)
        self._rows = rows
        option_list.set_options(options)
        target = select or previous
        index = next((i for i, row in enumerate(rows) if row is not None and row is target), None)
        if index is None:
            index = next((i for i, row in enumerate(rows) if row is not None), None)
        option_list.highlighted = index
        self._show(rows[index] if index is not None else None)

    def _call_line(self, call: CallRecord) -> Text:
        style = {"OK": "green", "ERROR": "red", "FAILED": "red", "CANCELLED": "yellow"}[call.status]
        line = Text(f"+{call.at:7.3f}s  ", "dim")
        line.append(f"{call.status:<6}", style=f"bold {style}")
        line.append(f" {printable(call.tool)}", "bold")
        args = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"), default=repr)
        line.append(f" {printable(args[:60])}{'…' if len(args) > 60 else ''}")
        if call.latency is not None:
            line.append(f"  {format_latency(call.latency)}", "dim")
        return line

    @property
    def highlighted(self) -> CallRecord | SavedCall | None:
        option_list = child(self, "#history-list", OptionList)
        index = option_list.highlighted if option_list is not None else None
        return self._rows[index] if index is not None and 0 <= index < len(self._rows) else None

    @on(OptionList.OptionHighlighted, "#history-list")
    def _highlight(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show(self.highlighted)

    def _show(self, row: CallRecord | SavedCall | None) -> None:
        detail = child(self, "#history-detail", VerticalScroll)
        if detail is None or (row is not None and row is self._shown_row):
            return
        self._shown_row = row
        detail.remove_children()
        for button_id, enabled in (
            ("#history-rerun", row is not None),
            ("#history-load", row is not None),
            ("#history-save", isinstance(row, CallRecord)),
            ("#history-forget", isinstance(row, SavedCall)),
        ):
            button = child(self, button_id, Button)
            if button is not None:
                button.disabled = not enabled
        if row is None:
            detail.mount(Static(Text("No call yet: call a tool from its detail pane.", "dim")))
            return
        widgets: list[Any] = [
            Static(Text(f"{row.tool} — arguments", "bold")),
            Static(json_renderable(row.arguments)),
        ]
        if isinstance(row, CallRecord):
            if row.error is not None:
                widgets.append(Static(Text(f"FAILED  {printable(row.error)}", "bold red")))
            else:
                tools = self.catalog.tools or ()
                tool = next((t for t in tools if t.name == row.tool), None)
                raw_tool = tool.raw if tool is not None and isinstance(tool.raw, Mapping) else None
                result = ResultView(
                    row.result, tool=raw_tool, latency=row.latency, size=row.size, context=self.context
                )
                widgets.append(result)
        detail.mount(*widgets)

    # -- actions -------------------------------------------------------------------------------------
    @on(Button.Pressed, "#history-rerun")
    def action_rerun(self) -> None:
        self._request(run=True)

    @on(Button.Pressed, "#history-load")
    def action_load(self) -> None:
        self._request(run=False)

    def _request(self, run: bool) -> None:
        row = self.highlighted
        if row is not None:
            self.post_message(self.CallRequested(self, row.tool, dict(row.arguments), run))

    @on(Button.Pressed, "#history-save")
    def action_save(self) -> None:
        row = self.highlighted
        if not isinstance(row, CallRecord) or self.saved is None:
            return
        try:
            saved = self.saved.add(row.tool, row.arguments)
        except OSError as exc:
            self.notify(f"Cannot save the call: {exc}", severity="error")
            return
        self.notify(f"Saved {printable(saved.title)} for {printable(self.saved.server)}")
        self._refresh_list(select=saved)

    def action_copy(self, form: CallFormat) -> None:
        """Copy the highlighted call (else the newest) in `form` to the clipboard."""
        row = self.highlighted or (self.calls[0] if self.calls else None)
        if row is None:
            self.notify("No call yet: nothing to copy.", severity="warning")
            return
        copy_call(self, form, self.context.spec, row.tool, dict(row.arguments))

    @on(Button.Pressed, "#history-forget")
    def action_forget(self) -> None:
        row = self.highlighted
        if isinstance(row, SavedCall) and self.saved is not None:
            try:
                self.saved.remove(row)
            except OSError as exc:
                self.notify(f"Cannot forget the call: {exc}", severity="error")
                return
            self._refresh_list()


def copy_call(
    widget: Widget, form: CallFormat, spec: ServerSpec | None, tool: str, arguments: dict[str, Any]
) -> str | None:
    """Put the call on the clipboard as `form` and say so; the text, or None when it cannot be made."""
    text = call_as(form, spec, tool, arguments)
    if text is None:
        widget.notify("No server to run it against: copy it as JSON-RPC (j).", severity="warning")
        return None
    widget.app.copy_to_clipboard(text)
    widget.notify(printable(text[:300]), title=f"Copied as {CALL_FORMATS[form]}")
    return text
