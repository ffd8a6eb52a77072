"""`TasksView`: the session's tasks (protocol/tasks.py), those mcpx asked of the server and those the
server asked of mcpx, newest first: status, elapsed, polls, input requests and the status message; the
highlighted one in full (the task as last polled, then its result or why it failed).

It hears the client's task table (`client.tasks.on_change`) — nothing polls here; the client polls the
server while a task runs. **x** cancels the highlighted task (`tasks/cancel`), **L** asks the server for
its `tasks/list` (tasks of earlier sessions too, where it keeps them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from mcpx.errors import McpxError
from mcpx.protocol.tasks import TaskState
from mcpx.tui.context import InspectContext
from mcpx.tui.results.content_view import json_renderable
from mcpx.tui.session_state import SessionState
from mcpx.tui.widgets.event_list_view import printable

if TYPE_CHECKING:
    from mcpx.protocol.client import Client

GLYPHS = {"working": "◐", "input_required": "?", "completed": "✓", "failed": "✗", "cancelled": "⊘"}
STYLES = {
    "input_required": "bold yellow",
    "completed": "green",
    "failed": "bold red",
    "cancelled": "dim",
}


class TasksView(Vertical):
    """The session's tasks and the highlighted one in full; Cancel and tasks/list."""

    HELP: ClassVar[str] = """\
Every task of this session, newest first: tools called as tasks (their `execution.taskSupport` is
required, or the form's "as a task" switch was on) and the sampling or elicitation tasks the server asked
mcpx to run. A task's polls (`tasks/get`) are counted here instead of read one by one in the traffic
log. **x** cancels the highlighted task, **L** fetches the server's `tasks/list`.
"""
    BINDING_GROUP_TITLE = "Tasks"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "cancel", "Cancel task", id="tasks-cancel", tooltip="Cancel the highlighted task"),
        Binding("L", "list", "tasks/list", id="tasks-list", tooltip="Ask the server for its tasks"),
    ]
    DEFAULT_CSS = """
    TasksView { height: 1fr; }
    TasksView > #tasks-summary { height: auto; color: $text-muted; }
    TasksView > #tasks-bar { height: auto; }
    TasksView > #tasks-bar > Button { margin-right: 1; }
    TasksView > #task-list { height: 10; border: none; }
    TasksView > #task-detail { height: 1fr; }
    """

    session: reactive[SessionState | None] = reactive(None, init=False)
    """The session (bound from the app): a new connection means a new client to hear."""

    def __init__(self, context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.context = context
        self._client: Client | None = None
        self._stop: Callable[[], None] | None = None
        self._order: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("No tasks yet.", id="tasks-summary")
        with Horizontal(id="tasks-bar"):
            yield Button("Cancel  x", id="tasks-cancel", variant="error", compact=True, disabled=True)
            yield Button("tasks/list  L", id="tasks-list", compact=True)
        yield OptionList(id="task-list")
        with VerticalScroll(id="task-detail"):
            yield Static("", id="task-detail-body")

    def on_mount(self) -> None:
        self._hear(self.context.client)

    def on_unmount(self) -> None:
        self._hear(None)

    def watch_session(self, session: SessionState | None) -> None:
        self._hear(self.context.client)

    # -- hearing the client's tasks ----------------------------------------------------------------
    def _hear(self, client: Client | None) -> None:
        if client is self._client:
            return
        if self._stop is not None:
            self._stop()
            self._stop = None
        self._client = client
        if client is not None:
            self._stop = client.tasks.on_change(lambda state: self.refresh_tasks())
        self.refresh_tasks()

    @property
    def tasks(self) -> dict[str, TaskState]:
        return self._client.tasks.known if self._client is not None else {}

    def refresh_tasks(self) -> None:
        if not self.is_attached or not self.query("#task-list"):
            return  # not composed yet: on_mount refreshes
        tasks = self.tasks
        listing = self.query_one("#task-list", OptionList)
        highlighted = listing.highlighted
        current = (
            self._order[highlighted] if highlighted is not None and highlighted < len(self._order) else None
        )
        self._order = list(reversed(tasks))
        listing.clear_options()
        listing.add_options([Option(self._row(tasks[task_id]), id=task_id) for task_id in self._order])
        if self._order:
            listing.highlighted = self._order.index(current) if current in self._order else 0
        running = sum(not t.terminal for t in tasks.values())
        asked = sum(t.side == "client" for t in tasks.values())
        summary = f"{len(tasks)} task{'s' if len(tasks) != 1 else ''}, {running} running"
        if asked:
            summary += f"; {asked} asked of mcpx by the server"
        self.query_one("#tasks-summary", Static).update(summary if tasks else "No tasks yet.")
        self._show_detail()

    def _row(self, state: TaskState) -> Text:
        elapsed = _server_elapsed(state) if state.terminal else None
        elapsed = state.elapsed() if elapsed is None else elapsed
        style = STYLES.get(state.status, "")
        row = Text()
        row.append(f"{GLYPHS.get(state.status, '·')} ", style=style or None)
        row.append(printable(state.label)[:40])
        row.append(f"  {state.status}", style="bold" if not state.terminal else "dim")
        row.append(f"  {elapsed:.1f}s  {state.polls} poll{'s' if state.polls != 1 else ''}", style="dim")
        if state.side == "client":
            row.append("  (asked of mcpx)", style="italic dim")
        if state.status_message:
            row.append(f"  {printable(state.status_message)[:80]}", style="dim")
        return row

    def _selected(self) -> TaskState | None:
        listing = self.query_one("#task-list", OptionList)
        index = listing.highlighted
        if index is None or index >= len(self._order):
            return None
        return self.tasks.get(self._order[index])

    def _show_detail(self) -> None:
        state = self._selected()
        body = self.query_one("#task-detail-body", Static)
        cancel = self.query_one("#tasks-cancel", Button)
        cancel.disabled = state is None or state.terminal or state.side == "client"
        if state is None:
            body.update("")
            return
        parts: list[Any] = [Text(f"task {state.task_id} ({state.method})", style="bold")]
        parts.append(json_renderable(state.raw))
        if state.error:
            parts.append(Text(printable(state.error), style="bold red"))
        if state.result is not None:
            parts.append(Text("result", style="bold"))
            parts.append(json_renderable(state.result))
        body.update(Group(*parts))

    @on(OptionList.OptionHighlighted, "#task-list")
    def _highlighted(self) -> None:
        self._show_detail()

    # -- actions -------------------------------------------------------------------------------------
    @on(Button.Pressed, "#tasks-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    @on(Button.Pressed, "#tasks-list")
    def _list_pressed(self) -> None:
        self.action_list()

    def action_cancel(self) -> None:
        state = self._selected()
        if state is None or state.terminal or state.side == "client":
            return
        client = self.context.client_for(self, "Not cancelled")
        if client is not None:
            self.run_worker(
                self._send(client, "cancel", state.task_id), group="requests", exit_on_error=False
            )

    def action_list(self) -> None:
        client = self.context.client_for(self, "Not listed")
        if client is None:
            return
        if not client.tasks.can_list:
            self.notify("The server does not declare tasks/list.", severity="warning")
            return
        self.run_worker(self._send(client, "list", None), group="requests", exit_on_error=False)

    async def _send(self, client: Client, what: str, task_id: str | None) -> None:
        try:
            if what == "cancel" and task_id is not None:
                await client.tasks.cancel(task_id)
            else:
                await client.tasks.list()
        except McpxError as exc:
            self.notify(exc.message, severity="error")
        self.refresh_tasks()


def _server_elapsed(state: TaskState) -> float | None:
    """A finished task's life as the server dates it (createdAt → lastUpdatedAt), when it does."""
    try:
        created = _iso_time(state.raw.get("createdAt"))
        updated = _iso_time(state.raw.get("lastUpdatedAt"))
    except ValueError:
        return None
    return max(0.0, (updated - created).total_seconds())


def _iso_time(value: object) -> datetime:
    """An RFC 3339 time as servers write it. Python 3.10's fromisoformat takes no "Z" and only 3 or 6
    digits of a second, while a Go server writes up to 9 ("…:05.12Z"): the fraction is made 6 digits."""
    text = str(value).replace("Z", "+00:00")
    text = re.sub(r"\.(\d+)", lambda m: "." + (m.group(1) + "00000")[:6], text, count=1)
    return datetime.fromisoformat(text)
