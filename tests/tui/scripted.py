"""A scripted MCP server behind an in-memory transport, on a virtual clock: deterministic sessions for
the TUI's snapshot tests and for `scripts/export_screenshots.py`.

The transport speaks the `Transport` protocol (a swap-in, not a patch): `send()` logs the frame and
schedules the server's answer at `now + latency` on a `StepClock` that only moves when a frame is
delivered, so every time, latency and waterfall bar on screen is the same on every run and machine.
"""

from __future__ import annotations

import asyncio
import heapq
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from textual.widgets import Tabs
from textual.widgets._tabs import Underline

from mcpx.errors import ServerExitedError
from mcpx.protocol.client import Client
from mcpx.protocol.eras import LegacyEra
from mcpx.target import ServerSpec
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import InspectApp, make_app
from mcpx.wire import Message, Request, TrafficEvent, TrafficLog


class StepClock:
    """A monotonic clock that moves only when told to (`advance`)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_forecast",
        "title": "Weather forecast",
        "description": "Forecast for a city, day by day.\nUses the public weather service.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
                "units": {"enum": ["metric", "imperial"], "default": "metric"},
            },
            "required": ["city"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"days": {"type": "array", "items": {"type": "object"}}},
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": True},
        "_meta": {"example.com/cost": "free"},
    },
    {
        "name": "delete_city",
        "description": "Forget a saved city.",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "annotations": {"destructiveHint": True, "idempotentHint": True},
    },
    {
        "name": "echo",
        "description": "Answer with the text it was given.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": {"readOnlyHint": True, "idempotentHint": True},
    },
    {
        "name": "long_report",
        "description": "A slow tool that reports progress.",
        "inputSchema": {"type": "object", "properties": {}},
        "icons": [{"src": "https://example.com/report.png", "mimeType": "image/png", "sizes": ["48x48"]}],
    },
]
RESOURCES = [
    {"uri": "weather://cities", "name": "cities", "title": "Saved cities", "mimeType": "application/json"},
    {"uri": "weather://about", "name": "about", "mimeType": "text/markdown", "size": 812},
]
TEMPLATES = [{"uriTemplate": "weather://city/{name}", "name": "city", "description": "One city's record"}]
PROMPTS = [
    {
        "name": "plan_trip",
        "description": "Plan a trip around the weather.",
        "arguments": [
            {"name": "destination", "required": True, "description": "Where to"},
            {"name": "month", "description": "When"},
        ],
    }
]
CONDITIONS_TOOL: dict[str, Any] = {
    "name": "get_conditions",
    "title": "Current conditions",
    "description": "Temperature, conditions and humidity now.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "outputSchema": {
        "type": "object",
        "properties": {
            "temperature": {"type": "number", "description": "°C"},
            "conditions": {"type": "string"},
            "humidity": {"type": "number", "minimum": 0, "maximum": 100},
        },
        "required": ["temperature", "conditions", "humidity"],
    },
}
MAP_TOOL: dict[str, Any] = {
    "name": "render_map",
    "description": "A map of the city, as an image.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def gradient_png(width: int = 24, height: int = 16) -> bytes:
    """A small deterministic RGB PNG (a colour gradient), for image results."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 160)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def result_calls() -> dict[str, dict[str, Any]]:
    """What `get_conditions` (structured content that breaks its outputSchema) and `render_map` (an
    image, a link) answer."""
    import base64

    wrong = {"temperature": "21", "humidity": 140, "wind": 12}
    return {
        "get_conditions": {
            "content": [{"type": "text", "text": json.dumps(wrong)}],
            "structuredContent": wrong,
        },
        "render_map": {
            "content": [
                {"type": "text", "text": "Map of **Oslo**, 1:50 000."},
                {
                    "type": "image",
                    "data": base64.b64encode(gradient_png()).decode(),
                    "mimeType": "image/png",
                    "annotations": {"audience": ["user"], "priority": 0.8},
                },
                {
                    "type": "resource_link",
                    "uri": "weather://city/oslo",
                    "name": "oslo",
                    "mimeType": "application/json",
                },
            ]
        },
    }


INSTRUCTIONS = """Weather for **any city**.

- `get_forecast` first, then `delete_city` to forget one.
- Results are cached for 10 minutes."""


@dataclass
class Script:
    """What the scripted server answers, how fast, and what it does on its own."""

    tools: list[dict[str, Any]] = field(default_factory=lambda: list(TOOLS))
    resources: list[dict[str, Any]] = field(default_factory=lambda: list(RESOURCES))
    templates: list[dict[str, Any]] = field(default_factory=lambda: list(TEMPLATES))
    prompts: list[dict[str, Any]] | None = field(default_factory=lambda: list(PROMPTS))
    instructions: str = INSTRUCTIONS
    #: seconds each method takes to answer
    latency: dict[str, float] = field(
        default_factory=lambda: {
            "initialize": 0.21,
            "tools/list": 0.048,
            "resources/list": 0.031,
            "resources/templates/list": 0.067,
            "prompts/list": 0.022,
            "ping": 0.003,
            "logging/setLevel": 0.004,
        }
    )
    #: tools/call results by tool name, resources/read results by URI (others get an error)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    reads: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: tools whose calls get no answer from the script (a test sends progress and the answer itself)
    held: set[str] = field(default_factory=set)
    #: frames (raw text) the server sends right after `notifications/initialized`
    after_initialized: list[str] = field(default_factory=list)
    stderr_at_start: list[str] = field(
        default_factory=lambda: ["weather server 2.1.0 starting", "cache: 14 cities"]
    )
    #: tools called as tasks (2025-11-25): name → what tasks/result gives once the task is done; a task of
    #: a tool in `held_tasks` never ends by itself (tasks/result waits until it is cancelled)
    task_results: dict[str, dict[str, Any]] = field(default_factory=dict)
    held_tasks: set[str] = field(default_factory=set)
    #: the pollInterval the tasks say (a snapshot sets one long enough that no poll comes before it)
    task_poll_ms: int = 200
    #: the tasks the script holds, by id, and the tasks/result request waiting on each held one
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    task_tools: dict[str, str] = field(default_factory=dict)
    waiting: dict[str, Any] = field(default_factory=dict)
    #: frames to send besides the answer (a waiting tasks/result ended by a cancel)
    extra: list[str] = field(default_factory=list)
    #: skills/list's entries (the Skills extension, SEP-2640); their files are read through `reads`
    skills: list[dict[str, Any]] | None = None

    def capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {
            "tools": {"listChanged": True},
            "resources": {"subscribe": True},
            "logging": {},
        }
        if self.prompts is not None:
            caps["prompts"] = {}
        if self.task_results:
            caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        if self.skills is not None:
            caps["extensions"] = {"io.modelcontextprotocol/skills": {}}
        return caps

    def task_answer(self, request: Request) -> dict[str, Any] | None:
        """tools/call as a task and tasks/*: fixed ids and dates, so snapshots hold still."""
        params = request.params if isinstance(request.params, dict) else {}
        method = request.method
        if method == "tools/call":
            task_id = f"task-{len(self.tasks) + 1}"
            self.task_tools[task_id] = str(params.get("name"))
            self.tasks[task_id] = {
                "taskId": task_id,
                "status": "working",
                "statusMessage": "Gathering sources…",
                "createdAt": "2026-11-24T10:00:00Z",
                "lastUpdatedAt": "2026-11-24T10:00:00Z",
                "ttl": 300000,
                "pollInterval": self.task_poll_ms,
            }
            return {"task": dict(self.tasks[task_id])}
        if method == "tasks/list":
            return {"tasks": [dict(t) for t in self.tasks.values()]}
        task = self.tasks.get(str(params.get("taskId")))
        if task is None:
            return None
        if method == "tasks/get":
            return dict(task)
        if method == "tasks/cancel":
            task.update(status="cancelled", statusMessage="Cancelled by the client")
            task["lastUpdatedAt"] = "2026-11-24T10:00:04Z"
            waiting = self.waiting.pop(task["taskId"], None)
            if waiting is not None:
                error = {"code": -32000, "message": "Task cancelled"}
                self.extra.append(json.dumps({"jsonrpc": "2.0", "id": waiting, "error": error}))
            return dict(task)
        if method == "tasks/result":
            name = self.task_tools[task["taskId"]]
            if name in self.held_tasks:
                self.waiting[task["taskId"]] = request.id
                return {}
            task.update(status="completed", statusMessage="Report ready")
            task["lastUpdatedAt"] = "2026-11-24T10:00:02.500Z"
            related = {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}}
            return {**self.task_results[name], "_meta": related}
        return None

    def answer(self, request: Request) -> tuple[dict[str, Any] | None, float]:
        method = request.method
        delay = self.latency.get(method, 0.01)
        lists = {
            "tools/list": ("tools", self.tools),
            "resources/list": ("resources", self.resources),
            "resources/templates/list": ("resourceTemplates", self.templates),
            "prompts/list": ("prompts", self.prompts or []),
        }
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": "2025-11-25",
                "capabilities": self.capabilities(),
                "serverInfo": {"name": "weather", "version": "2.1.0", "title": "Weather Service"},
                "instructions": self.instructions,
            }
        elif method in lists:
            key, items = lists[method]
            result = {key: items}
        elif method in ("ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"):
            result = {}
        elif method == "skills/list" and self.skills is not None:
            result = {"skills": self.skills}
        elif self.task_results and (
            method.startswith("tasks/")
            or (method == "tools/call" and isinstance(request.params, dict) and "task" in request.params)
        ):
            answer = self.task_answer(request)
            if answer == {} and method == "tasks/result":
                return None, delay  # held: answered when the task is cancelled
            if answer is None:
                error = {"code": -32602, "message": "Unknown task"}
                return {"jsonrpc": "2.0", "id": request.id, "error": error}, delay
            result = answer
        elif method in ("tools/call", "resources/read") and isinstance(request.params, dict):
            key = request.params.get("name") if method == "tools/call" else request.params.get("uri")
            if method == "tools/call" and key in self.held:
                return None, delay
            table = self.calls if method == "tools/call" else self.reads
            if key not in table:
                return {
                    "jsonrpc": "2.0",
                    "id": request.id,
                    "error": {"code": -32602, "message": f"Unknown: {key}"},
                }, delay
            result = table[key]
        else:
            return {
                "jsonrpc": "2.0",
                "id": request.id,
                "error": {"code": -32601, "message": f"Method not found: {method}"},
            }, delay
        return {"jsonrpc": "2.0", "id": request.id, "result": result}, delay


class ScriptedTransport:
    """An in-memory stdio look-alike: frames go to `Script`, answers come back on the virtual clock."""

    name = "stdio"

    def __init__(self, traffic: TrafficLog, script: Script, clock: StepClock) -> None:
        self.traffic = traffic
        self.script = script
        self.clock = clock
        self.returncode: int | None = None
        self._queue: list[tuple[float, int, str, str]] = []  # (due, order, kind, text)
        self._order = 0
        self._wake = asyncio.Event()
        self._ended = False
        self._exit_logged = False

    # -- the protocol ------------------------------------------------------------------------------------
    async def start(self) -> None:
        self.traffic.info("spawned python weather_server.py (pid 4242)", "process", event="spawned", pid=4242)
        for line in self.script.stderr_at_start:
            self._push(0.002, "stderr", line)

    async def send(self, text: str, message: Message) -> TrafficEvent:
        event = self.traffic.sent(text, message, "stdio")
        if isinstance(message, Request):
            reply, delay = self.script.answer(message)
            if reply is not None:
                self._push(delay, "frame", json.dumps(reply, separators=(",", ":")))
            while self.script.extra:
                self._push(delay, "frame", self.script.extra.pop(0))
        elif getattr(message, "method", None) == "notifications/initialized":
            for raw in self.script.after_initialized:
                self._push(0.005, "frame", raw)
        return event

    async def __aiter__(self) -> AsyncIterator[TrafficEvent]:
        while True:
            while not self._queue:
                if self._ended:
                    return
                self._wake.clear()
                await self._wake.wait()
            for _ in range(3):  # let requests sent in the same breath be scheduled first
                await asyncio.sleep(0)
            due, _, kind, text = heapq.heappop(self._queue)
            self.clock.now = max(self.clock.now, due)
            if kind == "stderr":
                self.traffic.stderr(text)
            elif kind == "eof":
                self._ended = True
                self._log_exit(expected=False)
                return
            else:
                yield self.traffic.received(text.encode(), "stdio")

    async def close(self) -> None:
        if self.returncode is None:
            self.returncode = 0
        self._ended = True
        self._wake.set()
        self._log_exit(expected=True)

    def describe(self) -> dict[str, object]:
        return {
            "transport": "stdio",
            "command": "python weather_server.py",
            "pid": 4242,
            "cwd": "/srv/weather",
        }

    def ended_error(self, doing: str) -> ServerExitedError:
        tail = [e.raw for e in self.traffic if e.channel == "stderr"][-10:]
        what = f"the server exited with code {self.returncode}"
        return ServerExitedError(
            f"{what} while {doing}" if doing else what, returncode=self.returncode, stderr_tail=tail
        )

    # -- what a test makes the server do ---------------------------------------------------------------
    def die(self, code: int, last_words: list[str]) -> None:
        for line in last_words:
            self._push(0.001, "stderr", line)
        self.returncode = code
        self._push(0.002, "eof", "")

    def emit(self, raw: str, delay: float = 0.01) -> None:
        self._push(delay, "frame", raw)

    def _push(self, delay: float, kind: str, text: str) -> None:
        self._order += 1
        heapq.heappush(self._queue, (self.clock.now + delay, self._order, kind, text))
        self._wake.set()

    def _log_exit(self, expected: bool) -> None:
        if not self._exit_logged:
            self._exit_logged = True
            code = self.returncode if self.returncode is not None else 0
            self.traffic.info(
                f"server exited with code {code}",
                "process",
                event="exited",
                returncode=code,
                expected=expected,
            )


@dataclass
class ScriptedSession:
    """An app wired to a scripted server; `transport` is the live one (None between connections)."""

    app: InspectApp
    clock: StepClock
    script: Script
    transports: list[ScriptedTransport] = field(default_factory=list)

    @property
    def transport(self) -> ScriptedTransport:
        return self.transports[-1]


def scripted_app(
    script: Script | None = None, *, settings: InspectSettings | None = None, spec: ServerSpec | None = None
) -> ScriptedSession:
    """`make_app()` over the scripted server, with the virtual clock shared by the log and the app."""
    clock = StepClock()
    script = script or Script()
    session_ref: list[ScriptedSession] = []

    def connector(traffic: TrafficLog) -> AbstractAsyncContextManager[Client]:
        @asynccontextmanager
        async def open_client() -> AsyncIterator[Client]:
            transport = ScriptedTransport(traffic, script, clock)
            session_ref[0].transports.append(transport)
            options = session_ref[0].app.asking.client_options()  # elicitation, sampling, roots
            async with Client(transport, era=LegacyEra(), timeout=None, **options) as client:
                yield client

        return open_client()

    settings = settings or InspectSettings(protocol_era="legacy")
    app = make_app(
        spec,  # what the header's hints and copied commands name (the scripted connector answers)
        settings=settings,
        connector=connector,
        traffic=TrafficLog(clock=clock, wall=clock),
        clock=clock,
        target="python weather_server.py",
    )
    app.animation_level = "none"  # a tab underline caught mid-slide would make snapshots flap
    session = ScriptedSession(app, clock, script)
    session_ref.append(session)
    return session


async def wait_for(pilot: Any, condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Pause the pilot until `condition()` holds (a condition, never a fixed sleep). The bound only
    catches a hang: a loaded CI machine took over 10 s to pump 60 events in one full run."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {getattr(condition, '__name__', 'a condition')}")
        await pilot.pause(0.02)


async def settle(pilot: Any, app: InspectApp) -> None:
    """Wait until the app is connected, the catalogue is in and every view has taken in the log."""
    await wait_for(pilot, lambda: app.session.state in ("connected", "exited", "failed", "disconnected"))
    await wait_for(
        pilot,
        lambda: (
            all(
                app.catalog.items(k) is not None or k in app.catalog.unavailable
                for k in ("tools", "resources", "resourceTemplates", "prompts")
            )
            or app.session.is_dead
        ),
    )
    requests = [w for w in app.workers if w.group == "requests"]
    if requests:  # an empty list would mean "every worker", the never-ending connection included
        await app.workers.wait_for_complete(requests)
    await pilot.pause()
    length = len(app.traffic)
    await wait_for(pilot, lambda: bool(app.query("#traffic-panel")))  # mounted after the first paint
    await wait_for(pilot, lambda: all(view._scanned == length for view in app.panel.views()))
    await wait_for(pilot, lambda: not app.panel.counts_pending)  # tab counts update a few times a second
    await quiet(pilot)


async def quiet(pilot: Any) -> None:
    """Let relabelled tabs lay out and their underlines catch up with the labels' new widths.

    Textual places a tab's underline from the tab's region right after a relabel, which can be before
    the new width is laid out; a counted tab title ("Traffic 17") then keeps a stale underline for a frame
    or more. Snapshots wait until every underline matches its tab (nudging the stale ones).
    """
    for _ in range(50):
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        stale = [tabs for tabs in _all_tabs(pilot.app) if not _underline_matches(tabs)]
        if not stale:
            return
        for tabs in stale:
            tabs._highlight_active(animate=False)
    raise AssertionError("tab underlines did not settle")


def _all_tabs(app: Any) -> list[Tabs]:
    return [tabs for screen in app.screen_stack for tabs in screen.query(Tabs)]


def _underline_matches(tabs: Tabs) -> bool:
    active = tabs.active_tab
    if active is None or not tabs.display:
        return True
    start, end = active.virtual_region.shrink(active.styles.gutter).column_span
    underline = tabs.query_one(Underline)
    return (underline.highlight_start, underline.highlight_end) == (start, end)


async def show_call(
    pilot: Any, app: InspectApp, tool: str, arguments: dict[str, Any], focus: str = ""
) -> None:
    """Call `tool` on the scripted server and show its result in the History tab (scrolled to `focus`)."""
    from mcpx.tui.history.call_history import CallHistory
    from mcpx.tui.results.result_view import ResultView

    assert app.client is not None
    started = app.clock()
    result = await app.client.call_tool(tool, arguments)
    answer = next(e for e in reversed(app.traffic) if e.method == "tools/call" and e.direction == "in")
    history = app.query_one(CallHistory)
    history.record(tool, arguments, result, app.clock() - started, len(answer.raw.encode()))
    app.query_one("#side").active = "history-tab"  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: any(v.children for v in history.query(ResultView)))
    await pilot.pause()
    if focus:
        await wait_for(pilot, lambda: bool(history.query(focus)))
        history.query_one(focus).scroll_visible(animate=False, top=True)
    await quiet(pilot)
