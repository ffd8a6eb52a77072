"""Tasks (revision 2025-11-25, experimental): requests that answer now and finish later.

**Calling as a task.** A tool whose `execution.taskSupport` is `required` must be called as a task,
`optional` may be. The request carries `params.task` (`{"ttl": ms}`), and the answer is a
`CreateTaskResult` (`{"task": {taskId, status, statusMessage, pollInterval, ttl, …}}`), not the tool's
result. From there mcpx does two things at once: it polls `tasks/get` at the server's `pollInterval` (the
status and its message, for the faces), and it waits on `tasks/result`, which blocks until the task ends
and returns the tool's result — and through which the server delivers what it needs to ask meanwhile
(an elicitation while the task is `input_required`), answered by the client's usual handlers.
`tasks/list` and `tasks/cancel` where the server declares them.

**Serving tasks.** A client that declares `tasks.requests.sampling.createMessage` and
`elicitation.create` lets the server ask *it* for a task: such a request carries `params.task`; the
client answers at once with a `CreateTaskResult`, runs the handler in the background, and answers the
server's `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` about it (`TaskServer`).

Every task of the session, either way, is a `TaskState` in `Tasks.known`; listeners hear each change.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

from mcpx.errors import McpxError, RpcError
from mcpx.wire import Notification, TrafficEvent
from mcpx.wire.jsonrpc import INVALID_PARAMS
from mcpx.wire.waiting import cancel_and_wait, ended

if TYPE_CHECKING:
    from mcpx.protocol.eras import Opened
    from mcpx.protocol.peer import NotificationHandler

TaskSupport = Literal["forbidden", "optional", "required"]
TERMINAL = frozenset({"completed", "failed", "cancelled"})
RELATED_TASK = "io.modelcontextprotocol/related-task"
#: how long a task of ours should be kept by the server, unless the caller says otherwise
DEFAULT_TTL_MS = 300_000
#: polling bounds: a server's pollInterval is honoured between these (seconds)
MIN_POLL, MAX_POLL, DEFAULT_POLL = 0.2, 30.0, 1.0

Request = Callable[..., Awaitable[Any]]
Listener = Callable[["TaskState"], None]


def task_support(tool: Any) -> TaskSupport:
    """A tool's `execution.taskSupport` (a dict from the wire or a typed Tool); `forbidden` when absent."""
    raw = tool if isinstance(tool, dict) else getattr(tool, "model_extra", None) or {}
    execution = raw.get("execution") if isinstance(raw, dict) else None
    if execution is None and not isinstance(tool, dict):
        execution = getattr(tool, "execution", None)
    value = execution.get("taskSupport") if isinstance(execution, dict) else None
    return value if value in ("optional", "required") else "forbidden"


@dataclass(slots=True)
class TaskState:
    """One task as last heard of: from its creation, a poll, a status notification, or its end."""

    task_id: str
    #: what created it: "tools/call" (ours, on the server) or "sampling/createMessage" (the server's, here)
    method: str
    #: a label for the faces: the tool's name, or the request asked of us
    label: str
    #: "server" when the server runs it, "client" when mcpx does (the server asked)
    side: Literal["server", "client"] = "server"
    status: str = "working"
    status_message: str | None = None
    poll_interval: float | None = None
    ttl: int | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    result: Any = None
    error: str | None = None
    polls: int = 0
    #: elicitations and samplings the server asked while the task ran
    input_requests: int = 0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def elapsed(self, now: float | None = None) -> float:
        return (self.ended or now or time.monotonic()) - self.started

    def update(self, task: Any) -> None:
        if not isinstance(task, dict):
            return
        self.raw = task
        if isinstance(task.get("status"), str):
            self.status = task["status"]
        message = task.get("statusMessage")
        self.status_message = message if isinstance(message, str) else self.status_message
        interval = task.get("pollInterval")
        if isinstance(interval, (int, float)) and not isinstance(interval, bool) and interval > 0:
            self.poll_interval = interval / 1000
        ttl = task.get("ttl")
        self.ttl = ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else self.ttl
        if self.terminal and self.ended is None:
            self.ended = time.monotonic()


class Tasks:
    """The session's tasks: calling as a task, polling, results, list and cancel (server side)."""

    def __init__(
        self,
        opened: Callable[[], Opened | None],
        request: Request,
        on_notification: Callable[[str, NotificationHandler], Any],
    ) -> None:
        self._opened = opened
        self._request = request
        #: every task of the session, by id, oldest first
        self.known: dict[str, TaskState] = {}
        self._listeners: list[Listener] = []
        on_notification("notifications/tasks/status", self._status)

    # -- what the server offers --------------------------------------------------------------------
    def _capability(self) -> dict[str, Any]:
        opened = self._opened()
        tasks = (opened.capabilities if opened is not None else {}).get("tasks")
        return tasks if isinstance(tasks, dict) else {}

    @property
    def can_list(self) -> bool:
        return isinstance(self._capability().get("list"), dict)

    @property
    def can_cancel(self) -> bool:
        return isinstance(self._capability().get("cancel"), dict)

    @property
    def tool_calls(self) -> bool:
        """The server declares task-augmented `tools/call`."""
        requests = self._capability().get("requests")
        tools = requests.get("tools") if isinstance(requests, dict) else None
        return isinstance(tools, dict) and isinstance(tools.get("call"), dict)

    # -- listeners ---------------------------------------------------------------------------------
    def on_change(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def changed(self, state: TaskState) -> None:
        for listener in list(self._listeners):
            try:
                listener(state)
            except Exception:  # a broken view must not break the task
                self._listeners.remove(listener)

    # -- calling as a task -------------------------------------------------------------------------
    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        ttl_ms: int = DEFAULT_TTL_MS,
        meta: dict[str, Any] | None = None,
        on_created: Callable[[TaskState], None] | None = None,
    ) -> Any:
        """Call a tool as a task and return its raw result (a CallToolResult) once the task ends."""
        params: dict[str, Any] = {"name": name, "task": {"ttl": ttl_ms}}
        if arguments is not None:
            params["arguments"] = arguments
        if meta:
            params["_meta"] = meta
        state = await self.create("tools/call", params, label=name)
        if on_created is not None:
            on_created(state)
        return await self.wait(state)

    async def create(self, method: str, params: dict[str, Any], *, label: str) -> TaskState:
        created = await self._request(method, params)
        task = created.get("task") if isinstance(created, dict) else None
        if not isinstance(task, dict) or not isinstance(task.get("taskId"), str):
            raise RpcError(
                method, INVALID_PARAMS, "expected a CreateTaskResult ({task: {taskId, …}})", created
            )
        state = TaskState(task["taskId"], method, label)
        state.update(task)
        self.known[state.task_id] = state
        self.changed(state)
        return state

    async def wait(self, state: TaskState) -> Any:
        """Poll `tasks/get` while waiting on `tasks/result`; the result, or RpcError if the task failed."""
        poller = asyncio.ensure_future(self._poll(state))
        try:
            result = await self._request("tasks/result", {"taskId": state.task_id}, timeout=None)
        except RpcError as exc:
            state.error = exc.message
            if not state.terminal:
                state.status = "cancelled" if "cancel" in exc.error_message.lower() else "failed"
            state.ended = state.ended or time.monotonic()
            self.changed(state)
            raise
        finally:
            await cancel_and_wait(poller)
        state.result = result
        with contextlib.suppress(RpcError, McpxError):
            # the task as it ended (its final status message and dates), for the faces
            state.update(await self.get(state.task_id))
        if not state.terminal:
            state.status = "completed"
        state.ended = state.ended or time.monotonic()
        self.changed(state)
        return result

    async def _poll(self, state: TaskState) -> None:
        while not state.terminal:
            await asyncio.sleep(min(MAX_POLL, max(MIN_POLL, state.poll_interval or DEFAULT_POLL)))
            try:
                task = await self.get(state.task_id)
            except RpcError:
                return  # the result request says how it ended
            state.polls += 1
            state.update(task)
            self.changed(state)

    # -- the other methods -------------------------------------------------------------------------
    async def get(self, task_id: str) -> dict[str, Any]:
        result = await self._request("tasks/get", {"taskId": task_id})
        return result if isinstance(result, dict) else {}

    async def cancel(self, task_id: str) -> dict[str, Any]:
        result = await self._request("tasks/cancel", {"taskId": task_id})
        state = self.known.get(task_id)
        if state is not None and isinstance(result, dict):
            state.update(result)
            if state.status == "cancelled":
                state.ended = state.ended or time.monotonic()
            self.changed(state)
        return result if isinstance(result, dict) else {}

    async def list(self) -> list[dict[str, Any]]:
        """Every page of `tasks/list`; tasks the session did not know yet are added to `known`."""
        tasks: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(100):
            page = await self._request("tasks/list", {"cursor": cursor} if cursor else {})
            items = page.get("tasks") if isinstance(page, dict) else None
            tasks.extend(t for t in items or [] if isinstance(t, dict))
            cursor = page.get("nextCursor") if isinstance(page, dict) else None
            if not isinstance(cursor, str) or not cursor:
                break
        for task in tasks:
            task_id = task.get("taskId")
            if isinstance(task_id, str):
                state = self.known.get(task_id) or TaskState(task_id, "?", "(listed)")
                state.update(task)
                self.known[task_id] = state
                self.changed(state)
        return tasks

    def _status(self, message: Notification, event: TrafficEvent) -> None:
        params = message.params if isinstance(message.params, dict) else {}
        state = self.known.get(str(params.get("taskId")))
        if state is not None:
            state.update(params)
            self.changed(state)


class TaskServer:
    """Tasks the server asks mcpx to run (client-side tasks): sampling and elicitation as tasks."""

    def __init__(self, tasks: Tasks) -> None:
        self._tasks = tasks
        self._running: dict[str, asyncio.Task[Any]] = {}

    @staticmethod
    def capability(methods: list[str]) -> dict[str, Any]:
        """The `tasks` capability for the request methods this client answers."""
        requests: dict[str, Any] = {}
        if "sampling/createMessage" in methods:
            requests["sampling"] = {"createMessage": {}}
        if "elicitation/create" in methods:
            requests["elicitation"] = {"create": {}}
        return {"list": {}, "cancel": {}, "requests": requests} if requests else {}

    def wrap(self, method: str, answer: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
        """`answer`, or — when the request asks for a task — a CreateTaskResult now and the answer later."""

        async def maybe_as_task(params: Any) -> Any:
            task = params.get("task") if isinstance(params, dict) else None
            if not isinstance(task, dict):
                return await answer(params)
            ttl = task.get("ttl") if isinstance(task.get("ttl"), int) else None
            state = TaskState(str(uuid.uuid4()), method, method, side="client", ttl=ttl)
            state.raw = self._describe(state)
            self._tasks.known[state.task_id] = state
            self._running[state.task_id] = asyncio.ensure_future(self._run(state, answer, params))
            self._tasks.changed(state)
            return {"task": self._describe(state)}

        return maybe_as_task

    async def _run(self, state: TaskState, answer: Callable[[Any], Awaitable[Any]], params: Any) -> Any:
        inner = {k: v for k, v in params.items() if k != "task"}
        try:
            state.result = await answer(inner)
            state.status = "completed"
        except asyncio.CancelledError:
            state.status = "cancelled"
            raise
        except Exception as exc:
            state.status, state.error = "failed", str(exc)
        finally:
            state.ended = time.monotonic()
            state.raw = self._describe(state)
            self._tasks.changed(state)
        return state.result

    def _describe(self, state: TaskState) -> dict[str, Any]:
        now = datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")
        task: dict[str, Any] = {
            "taskId": state.task_id,
            "status": state.status,
            "createdAt": state.raw.get("createdAt", now),
            "lastUpdatedAt": now,
            "ttl": state.ttl,
            "pollInterval": 500,
        }
        if state.error:
            task["statusMessage"] = state.error
        return task

    def _state(self, params: Any) -> TaskState:
        task_id = params.get("taskId") if isinstance(params, dict) else None
        state = self._tasks.known.get(str(task_id))
        if state is None or state.side != "client":
            raise RpcError("tasks/get", INVALID_PARAMS, "Unknown task", {"taskId": task_id})
        return state

    async def get(self, params: Any) -> dict[str, Any]:
        return self._describe(self._state(params))

    async def result(self, params: Any) -> Any:
        state = self._state(params)
        running = self._running.get(state.task_id)
        if running is not None:
            await ended(running)  # not cancelled if this wait is
        if state.status != "completed":
            raise RpcError("tasks/result", -32000, f"Task {state.status}", {"taskId": state.task_id})
        result = state.result if isinstance(state.result, dict) else {}
        return {**result, "_meta": {**result.get("_meta", {}), RELATED_TASK: {"taskId": state.task_id}}}

    async def list(self, params: Any) -> dict[str, Any]:
        ours = [s for s in self._tasks.known.values() if s.side == "client"]
        return {"tasks": [self._describe(s) for s in ours]}

    async def cancel(self, params: Any) -> dict[str, Any]:
        state = self._state(params)
        if state.terminal:
            raise RpcError(
                "tasks/cancel", INVALID_PARAMS, f"Task already {state.status}", {"taskId": state.task_id}
            )
        running = self._running.get(state.task_id)
        if running is not None:
            await cancel_and_wait(running)
        state.status = "cancelled"
        state.ended = state.ended or time.monotonic()
        return self._describe(state)
