"""`ToolCallPanel`: call the selected tool — its form, the Call button, progress, cancel, the result.

Keys (while the panel has focus): **ctrl+r** calls (when the arguments are valid; the button says why
not otherwise), **ctrl+g** sends anyway (invalid on purpose), **escape** cancels a running call. A tool
annotated `destructiveHint: true` asks first. The call runs in a `requests` worker with no timeout (it
may wait on a person answering an elicitation); progress notifications drive the bar; cancelling the
worker cancels the request (`notifications/cancelled`, or closing the request's stream over HTTP).

When a call ends the panel shows `ResultView` (progress and outcome: `call_outcome`) and posts
`ToolCallPanel.CallFinished` to its screen (the call history is built on those). An idle panel is parked
while the highlight moves, and retargeted to the next tool whose form has the same shape.

A tool whose `execution.taskSupport` is `required` is called as a task (the button says so); an
`optional` one has an "as a task" switch. The task's status and message show where progress does; the
Tasks tab lists it with its polls, and cancels it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widgets import Button, Checkbox, Static
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from mcpx.errors import McpxError
from mcpx.protocol.tasks import TaskState, task_support
from mcpx.tui.catalogue.call_outcome import CallOutcome, CallProgress, response_size
from mcpx.tui.context import InspectContext
from mcpx.tui.forms.schema_form import SchemaForm
from mcpx.tui.widgets.formats import format_latency


def _raw(tool: Any) -> dict[str, Any]:
    raw = getattr(tool, "raw", tool)
    return raw if isinstance(raw, dict) else {}


class ToolCallPanel(Vertical):
    """The form, the call button and the outcome of one tool."""

    HELP: ClassVar[str] = """\
Call the tool: fill the form (**F2** for raw JSON), then **Enter** in a field, **ctrl+r** or the
**Call** button. While the arguments do not match the schema the button says why (Enter goes on to the
next field); **ctrl+g** (**Send anyway**) sends them as they are. A destructive tool asks first. A
running call shows the server's progress; **Escape** or **Cancel** cancels it (the server is told). The
result appears below the form, scrolled into view; **ctrl+t** saves the call as a test, this answer
expected (into the server's collection, `server.mcpx.yaml` beside its script).
"""
    BINDING_GROUP_TITLE = "Tool call"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "call", "Call", id="call-tool", tooltip="Call the tool with these arguments"),
        Binding("ctrl+g", "send_anyway", "Send anyway", id="call-anyway", tooltip="Call even if invalid"),
        Binding("escape", "cancel", "Cancel call", id="cancel-call", tooltip="Cancel the running call"),
    ]
    DEFAULT_CSS = """
    ToolCallPanel { height: auto; margin-top: 1; }
    ToolCallPanel > #call-bar { height: auto; margin-top: 1; }
    ToolCallPanel > #call-bar > Button { margin-right: 1; }
    ToolCallPanel > #call-bar > #call-status { width: 1fr; height: auto; color: $text-muted; }
    ToolCallPanel.-invalid > #call-bar > #call-status { color: $text-warning; }
    ToolCallPanel > #call-progress-row { height: auto; display: none; }
    ToolCallPanel.-running > #call-progress-row { display: block; }
    ToolCallPanel #progress-message { color: $text-muted; height: auto; }
    ToolCallPanel #send-anyway, ToolCallPanel #cancel-call { display: none; }
    ToolCallPanel.-invalid #send-anyway { display: block; }
    ToolCallPanel.-running #cancel-call { display: block; }
    ToolCallPanel.-running #send-anyway { display: none; }
    ToolCallPanel > #call-result { height: auto; margin-top: 1; }
    """

    class CallFinished(Message):
        """A call ended: `outcome` is the raw result (a dict) or the error (an McpxError or exception)."""

        def __init__(
            self, tool_name: str, arguments: Any, outcome: Any, latency: float | None, size: int | None
        ) -> None:
            super().__init__()
            self.tool_name = tool_name
            self.arguments = arguments
            self.outcome = outcome
            self.latency = latency
            self.size = size

        @property
        def result_or_error(self) -> Any:
            return self.outcome

    def __init__(self, tool: Any, context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tool = _raw(tool)
        self.context = context
        self.tool_name = str(self.tool.get("name", ""))
        self.worker: Worker[None] | None = None
        self.last_outcome: Any = None
        self._cancelled = False
        #: the task this panel's call created, when it is called as one
        self._task_id: str | None = None
        #: the status line's text (`_say`)
        self._status = ""
        self._home: MessagePump | None = None
        #: hidden and inert while the highlight moves on (`park`): retargeted or removed once it rests
        self.parked = False

    @property
    def destructive(self) -> bool:
        annotations = self.tool.get("annotations")
        return isinstance(annotations, dict) and annotations.get("destructiveHint") is True

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    @property
    def form(self) -> SchemaForm:
        return self.query_one(SchemaForm)

    def compose(self) -> ComposeResult:
        form = SchemaForm(self.tool.get("inputSchema"), id="call-arguments")
        # the form's first verdict is set here, while the panel has no children: set after mounting, the
        # class restyled the whole panel (~50 ms of the ~300 a panel takes to build)
        invalid, tooltip, status = self._verdict(form)
        self.set_class(invalid, "-invalid")
        self._status = status
        yield form
        support = task_support(self.tool)
        with Horizontal(id="call-bar"):
            label = "Call as task  ctrl+r" if support == "required" else "Call  ctrl+r"
            yield Button(
                label, id="call-button", variant="primary", compact=True, disabled=invalid, tooltip=tooltip
            )
            if support == "optional":
                yield Checkbox("as a task", id="call-as-task", compact=True)
            yield Button("Send anyway  ctrl+g", id="send-anyway", variant="warning", compact=True)
            yield Button("Cancel  esc", id="cancel-call", variant="error", compact=True)
            yield Static(Content(status), id="call-status")
        yield CallProgress(id="call-progress-row")
        yield CallOutcome(id="call-result")

    # -- the outside ---------------------------------------------------------------------------------
    def park(self) -> None:
        """Hide the panel and refuse its keys and buttons: the highlight moved to a tool whose panel may be
        this one retargeted once it rests. Hidden, still laid out: the detail keeps its height (its
        scrollbar would go and come back, two more passes of the screen's layout)."""
        self.parked = True
        self.visible = False

    def fits(self, tool: Any) -> bool:
        """Whether `retarget(tool)` would succeed: idle, the same task support, a form of the same shape."""
        raw = _raw(tool)
        return self._may_take(raw) and self.form.fits(raw.get("inputSchema"))

    def _may_take(self, raw: dict[str, Any]) -> bool:
        return not self.running and self.is_mounted and task_support(raw) == task_support(self.tool)

    def retarget(self, tool: Any) -> bool:
        """Become the panel of `tool`, as if built for it, when its form has the same shape (see
        `SchemaForm.retarget`): nothing typed for the previous tool is kept, no result or status of its
        call shown; shown again. False (nothing changed) when it must be built anew."""
        raw = _raw(tool)
        if not self._may_take(raw) or not self.form.retarget(raw.get("inputSchema")):
            return False
        self.tool, self.tool_name = raw, str(raw.get("name", ""))
        self.worker, self.last_outcome, self._home = None, None, None
        self._cancelled, self._task_id = False, None
        self.query_one(CallOutcome).clear()
        self.query_one(CallProgress).say("")
        for box in self.query("#call-as-task").results(Checkbox):
            with box.prevent(Checkbox.Changed):
                box.value = False
        self._refresh_button()
        self.parked = False
        self.visible = True
        return True

    def load_arguments(self, arguments: dict[str, Any]) -> None:
        """Put these arguments into the form (a call from the history, a saved call)."""
        self.form.load(arguments)

    async def call(self, arguments: Any) -> Any:
        """Call the tool with `arguments` (as they are: no validation) and return the outcome."""
        worker = self.start_call(arguments)
        with contextlib.suppress(WorkerCancelled, WorkerFailed):
            await worker.wait()
        return self.last_outcome

    def start_call(self, arguments: Any) -> Worker[None]:
        """Start the call in a `requests` worker (one at a time per panel)."""
        if self.running:
            assert self.worker is not None
            return self.worker
        self._cancelled = False
        # the screen hears how the call ended, even once the user has moved on to another tool
        self._home = self.screen
        self.worker = self.app.run_worker(
            self._call(arguments), name=f"tools/call {self.tool_name}", group="requests", exit_on_error=False
        )
        return self.worker

    # -- actions -------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.parked:
            return False
        if action == "cancel":
            return self.running
        if action in ("call", "send_anyway"):
            return not self.running
        return True

    def action_call(self) -> None:
        self._send(checked=True)

    def action_send_anyway(self) -> None:
        self._send(checked=False)

    def _send(self, *, checked: bool) -> None:
        form = self.form
        if self.parked:  # another tool is highlighted: this panel's arguments are not for it
            return
        if not form.raw_valid_json:
            self._say("The raw JSON does not parse: nothing to send.")
        elif checked and form.issues:
            self.notify(f"Not called: {form.summary()} (ctrl+g sends anyway)", severity="warning")
        else:
            self._confirm_then_call(form.value)

    def action_cancel(self) -> None:
        if self.running and self.worker is not None:
            self._cancelled = True
            self._say("Cancelling…")
            self.worker.cancel()

    def _confirm_then_call(self, arguments: Any) -> None:
        if not isinstance(arguments, dict):
            self._say("Arguments must be a JSON object (use raw JSON-RPC, ctrl+p, to send anything else).")
            return
        if self.context.refused(self, "Not called"):
            return
        if not self.destructive:
            self.start_call(arguments)
            return
        from mcpx.tui.widgets.confirm_screen import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.start_call(arguments)
            else:
                self._say("Not called (declined).")

        text = json.dumps(arguments, indent=2, ensure_ascii=False)
        question = f"{self.tool_name} is marked destructive (destructiveHint). Call it with these arguments?"
        self.app.push_screen(ConfirmScreen(question, text, confirm="Call it"), answered)

    @on(Button.Pressed, "#call-button, #send-anyway, #cancel-call")
    def _button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {"call-button": self.action_call, "send-anyway": self.action_send_anyway}
        actions.get(event.button.id or "", self.action_cancel)()

    @on(SchemaForm.Submitted)
    def _form_submitted(self, event: SchemaForm.Submitted) -> None:
        event.stop()
        if not self.running:
            self.action_call()

    @on(SchemaForm.Changed)
    def _form_changed(self, event: SchemaForm.Changed) -> None:
        event.stop()
        self._refresh_button()

    @staticmethod
    def _verdict(form: SchemaForm) -> tuple[bool, str, str]:
        """(invalid, the call button's tooltip, the status line) for the form's current issues."""
        if form.issues:
            return True, f"Disabled: {form.summary()}", f"Cannot call: {form.summary()}"
        return False, "Call the tool (ctrl+r)", ""

    def _refresh_button(self) -> None:
        if self.running:
            return
        invalid, tooltip, status = self._verdict(self.form)
        self.set_class(invalid, "-invalid")
        button = self.query_one("#call-button", Button)
        button.disabled = invalid
        if button.tooltip != tooltip:
            button.tooltip = tooltip
        self._say(status)

    def _say(self, text: str) -> None:
        if text != self._status:  # the same line again costs a layout of the screen for nothing
            self._status = text
            self.query_one("#call-status", Static).update(Content(text))

    # -- the call ------------------------------------------------------------------------------------
    async def _call(self, arguments: Any) -> None:
        clock = self.context.clock
        client = self.context.client
        if client is None:
            self._say("Not connected: press r to reconnect.")
            return
        await self._show_running()
        traffic = client.traffic
        first = len(traffic)
        started = clock()
        outcome: Any
        latency: float | None = None
        size: int | None = None
        params: dict[str, Any] = {"name": self.tool_name, "arguments": arguments}
        stop_hearing = client.tasks.on_change(self._task_changed)
        try:
            if self._as_task():
                outcome = await client.tasks.call_tool(
                    self.tool_name, arguments, on_created=self._task_created
                )
            else:
                outcome = await client.request("tools/call", params, timeout=None, on_progress=self._progress)
            latency = clock() - started
            size = response_size(traffic, first, outcome)
        except asyncio.CancelledError:
            latency = clock() - started
            outcome = McpxError(f"cancelled by you after {format_latency(latency)}")
            await self._show_outcome(arguments, outcome, latency, None, cancelled=True)
            raise
        except McpxError as exc:
            latency = clock() - started
            outcome = exc
        finally:
            stop_hearing()
        await self._show_outcome(arguments, outcome, latency, size)

    # -- as a task -----------------------------------------------------------------------------------
    def _as_task(self) -> bool:
        support = task_support(self.tool)
        boxes = self.query("#call-as-task").results(Checkbox)
        box = next(boxes, None)
        return support == "required" or (support == "optional" and box is not None and box.value)

    def _task_created(self, state: TaskState) -> None:
        self._task_id = state.task_id
        self._task_changed(state)

    def _task_changed(self, state: TaskState) -> None:
        if state.task_id == self._task_id and self.is_attached:
            self.query_one(CallProgress).task_status(state)

    def _progress(self, progress: Any, total: Any, message: Any) -> None:
        if self.is_attached:
            self.query_one(CallProgress).progress(progress, total, message)

    async def _show_running(self) -> None:
        if not self.is_attached:
            return
        self.set_class(True, "-running")
        self.set_class(False, "-invalid")
        self.query_one("#call-button", Button).disabled = True
        await self.query_one(CallProgress).start()
        self._say(f"Calling {self.tool_name}…")
        await self.query_one(CallOutcome).remove_children()

    async def _show_outcome(
        self,
        arguments: Any,
        outcome: Any,
        latency: float | None,
        size: int | None,
        *,
        cancelled: bool = False,
    ) -> None:
        self.last_outcome = outcome
        assert self._home is not None  # set when the call started
        self._home.post_message(self.CallFinished(self.tool_name, arguments, outcome, latency, size))
        if not self.is_attached:
            return
        self.set_class(False, "-running")
        self.query_one("#call-button", Button).disabled = False
        await self.query_one(CallProgress).stop()
        took = format_latency(latency) if latency is not None else "?"
        cancel = f"✗ Cancelled after {took}: the server was told (notifications/cancelled)."
        self._say(cancel if cancelled else "")
        holder = self.query_one(CallOutcome)
        await holder.show(
            outcome,
            tool=self.tool,
            latency=latency,
            size=size,
            context=self.context,
            took=took,
            cancelled=cancelled,
        )
        self._refresh_button()
        # the result is in view: the detail pane scrolls to its top (it landed below the fold before)
        self.call_after_refresh(holder.scroll_visible, top=True, animate=False)
