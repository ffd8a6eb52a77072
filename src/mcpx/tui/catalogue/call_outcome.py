"""What a tool call shows below its form while it runs and once it ends.

`CallProgress` (`#call-progress-row`): the server's progress — a bar mounted only while a call runs (an
idle `ProgressBar` keeps a 1 s timer, and 15 Hz when indeterminate: a panel that waits must cost no CPU)
and a line with the server's message, or a task's status. `CallOutcome` (`#call-result`): the result
(`ResultView`), the error, or the cancellation. Both are driven by `ToolCallPanel`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import ProgressBar, Static

from mcpx.errors import McpxError, RpcError
from mcpx.protocol.tasks import TaskState
from mcpx.tui.context import InspectContext


class CallProgress(Vertical):
    """The bar (while a call runs) and the line of the server's progress message or task status."""

    def compose(self) -> ComposeResult:
        yield Static("", id="progress-message")

    async def start(self) -> None:
        if not self.query("#call-progress"):
            await self.mount(ProgressBar(id="call-progress", show_eta=False), before=0)
        self.say("waiting for the server…")

    async def stop(self) -> None:
        await self.query("#call-progress").remove()

    def say(self, text: str) -> None:
        message = self.query_one("#progress-message", Static)
        if str(message.content) != text:
            message.update(Content(text))

    def progress(self, progress: Any, total: Any, message: Any) -> None:
        """A `notifications/progress` of the running call."""
        bar = next(self.query("#call-progress").results(ProgressBar), None)
        if bar is None:
            pass
        elif isinstance(total, (int, float)) and total > 0:
            done = float(progress) if isinstance(progress, (int, float)) else 0
            bar.update(total=float(total), progress=done)
        elif isinstance(progress, (int, float)):
            bar.update(total=None)
        done_text = f"{progress:g}" if isinstance(progress, (int, float)) else "?"
        of = f" of {total:g}" if isinstance(total, (int, float)) else ""
        shown = f"{done_text}{of}"
        self.say(f"{message}  ({shown})" if isinstance(message, str) and message else shown)

    def task_status(self, state: TaskState) -> None:
        """The status of the task the call created."""
        message = f" — {state.status_message}" if state.status_message else ""
        self.say(f"task {state.task_id[:12]}: {state.status}{message}")


class CallOutcome(Vertical):
    """How the last call ended: its result, its error, or its cancellation (empty before any call)."""

    async def show(
        self,
        outcome: Any,
        *,
        tool: dict[str, Any],
        latency: float | None,
        size: int | None,
        context: InspectContext,
        took: str,
        cancelled: bool,
    ) -> None:
        await self.remove_children()
        if cancelled:
            await self.mount(Static(Content.styled(f"Cancelled after {took}.", "bold $text-warning")))
        elif isinstance(outcome, Mapping):
            from mcpx.tui.results.result_view import ResultView

            view = ResultView(
                outcome, tool=tool, latency=latency, size=size, context=context, classes="call-result-view"
            )
            await self.mount(view)
        else:
            await self.mount(Static(error_text(outcome, took), classes="call-error"))

    def clear(self) -> None:
        if self.children:  # an empty removal still costs a pass of the screen's layout
            self.remove_children()


def response_size(traffic: Any, first: int, result: Any) -> int | None:
    """The length of the response frame that carried `result` (found by identity, not re-encoded), among
    the traffic log's events from `first` on."""
    for event in reversed(list(traffic.since(first))):
        if event.direction == "in" and getattr(event.message, "result", None) is result:
            return len(event.raw)
    return None


def error_text(error: Any, took: str) -> Content:
    if isinstance(error, RpcError):
        text = f"{error.method} failed after {took}: {error.error_message} (error {error.error_code})"
    elif isinstance(error, McpxError):
        text = f"The call failed after {took}: {error.message}"
    else:
        text = f"The call failed after {took}: {type(error).__name__}: {error}"
    return Content.styled(text, "bold $text-error")
