"""`Workspace`: many servers connected at once, within a bound, each with what an inspector wants to know.

Each server runs in its own task, which owns its client from connect to close. Starting is bounded — at
most `stdio_slots` (2) stdio servers and `remote_slots` (5) remote ones start at once — and a server
still starting after `slot_seconds` gives its slot to the next one and goes on waiting alone, up to its
own `connect_timeout`: a slow or hung server never holds up the others.

    waiting ──▶ connecting ──▶ connected ──▶ dropped (when, why)      reconnect(): back to waiting
                     └──────▶ failed (reason, stderr tail)           close(): closed

What a server asks (elicitation, sampling, roots) is answered by whatever `client_options(entry)` returns
for that server — the `Client` keyword arguments `on_elicit`, `on_sample`, `roots`, `sampling` — set by a
face (the TUI passes its questions queue); without it the clients declare none of those capabilities.

`notifications/*/list_changed` marks a server's lists dirty (`Entry.dirty`); `refresh()` fetches them
again when someone looks. Listeners (`on_change`) hear of every change of an entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcpx.errors import McpxError, RequestTimeoutError
from mcpx.protocol.client import Client
from mcpx.protocol.facade import Ending
from mcpx.protocol.options import SessionOptions, check_era
from mcpx.protocol.session import open_session
from mcpx.wire.traffic import TrafficLog
from mcpx.wire.waiting import within
from mcpx.workspace.agent_view import AgentTool, agent_tools, definition_size
from mcpx.workspace.discovery import Configured

EntryState = Literal["waiting", "connecting", "connected", "failed", "dropped", "closed"]
#: the counts a row shows, and the capability each needs
COUNTED = {"tools": "tools", "resources": "resources", "prompts": "prompts"}
_LISTERS = {"tools": "list_tools", "resources": "list_resources", "prompts": "list_prompts"}
_CHANGED = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}
Clock = Callable[[], float]
#: a server's extra `Client` keyword arguments (answer handlers and roots), asked each time it connects
ClientOptions = Callable[["Entry"], dict[str, Any]]
#: seconds a remote server whose connect was given up gets to hear of it and close
ABANDON_SECONDS = 1.0


@dataclass(slots=True)
class Entry:
    """One server of the workspace as it stands now (mutated by its task; read by faces)."""

    index: int
    configured: Configured
    traffic: TrafficLog
    state: EntryState = "waiting"
    reason: str | None = None
    stderr_tail: tuple[str, ...] = ()
    returncode: int | None = None
    era: str | None = None
    protocol_version: str | None = None
    server_name: str | None = None
    server_version: str | None = None
    #: tools / resources / prompts listed; None: not offered (or not listed yet, see `loading`)
    counts: dict[str, int | None] = field(default_factory=dict)
    loading: set[str] = field(default_factory=set)
    list_errors: dict[str, str] = field(default_factory=dict)
    tools: list[Any] = field(default_factory=list)
    definition_chars: int = 0
    definition_tokens: int = 0
    connect_seconds: float | None = None
    dropped_at: float | None = None
    dirty: set[str] = field(default_factory=set)
    attempt: int = 0
    client: Client | None = None

    @property
    def name(self) -> str:
        return self.configured.name

    @property
    def settled(self) -> bool:
        """Done changing by itself: failed, dropped, closed, or connected with every list in."""
        if self.state == "connected":
            return not self.loading
        return self.state in ("failed", "dropped", "closed")

    @property
    def failed(self) -> bool:
        return self.state in ("failed", "dropped")

    def to_json(self) -> dict[str, Any]:
        configured = self.configured
        return {
            "name": self.name,
            "host": configured.host,
            "source": configured.source,
            "transport": configured.transport,
            "state": self.state,
            "reason": self.reason,
            "stderr_tail": list(self.stderr_tail),
            "returncode": self.returncode,
            "era": self.era,
            "protocol_version": self.protocol_version,
            "server": {"name": self.server_name, "version": self.server_version},
            "counts": dict(self.counts),
            "list_errors": dict(self.list_errors),
            "connect_seconds": None if self.connect_seconds is None else round(self.connect_seconds, 4),
            "tool_definitions": {"chars": self.definition_chars, "approx_tokens": self.definition_tokens},
            "dropped_at": self.dropped_at,
        }


class Workspace:
    """The servers of one or more config files, connected concurrently within bounds."""

    def __init__(
        self,
        configured: list[Configured],
        *,
        connect_timeout: float = 10.0,
        request_timeout: float | None = 60.0,
        protocol_era: str = "auto",
        probe_timeout: float = 2.0,
        stdio_slots: int = 2,
        remote_slots: int = 5,
        slot_seconds: float = 2.0,
        stderr_lines: int = 10,
        clock: Clock = time.monotonic,
        wall: Clock = time.time,
        client_options: ClientOptions | None = None,
        options: SessionOptions | None = None,
    ) -> None:
        """`options` say how to talk to every server (their `connect_timeout` bounds each one's start);
        without them, the keywords before `stdio_slots` build them."""
        self.entries = [Entry(i, c, TrafficLog(clock=clock, wall=wall)) for i, c in enumerate(configured)]
        if options is None:
            options = SessionOptions(
                era=check_era(protocol_era),
                probe_timeout=probe_timeout,
                timeout=request_timeout,
                connect_timeout=connect_timeout,
            )
        self.options = options
        self.connect_timeout = options.connect_timeout or connect_timeout
        self.slot_seconds = slot_seconds
        self.stderr_lines = stderr_lines
        self.clock = clock
        self.wall = wall
        #: the answer handlers and roots of each server's client (a face sets them before `start()`)
        self.client_options = client_options
        self.slots = {"stdio": stdio_slots, "remote": remote_slots}
        self._slots: dict[str, asyncio.Semaphore] = {}
        #: servers holding a start slot now, and the most seen at once, per kind
        self.starting = {"stdio": 0, "remote": 0}
        self.peak_starting = {"stdio": 0, "remote": 0}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._stops: dict[int, asyncio.Event] = {}
        self._listeners: list[Callable[[Entry], Any]] = []
        self._changed = asyncio.Event() if _has_loop() else None

    # -- observing -----------------------------------------------------------------------------------
    def on_change(self, listener: Callable[[Entry], Any]) -> None:
        self._listeners.append(listener)

    def _notify(self, entry: Entry) -> None:
        if self._changed is not None:
            self._changed.set()
        for listener in list(self._listeners):
            with contextlib.suppress(Exception):  # a face's bug must not kill a connection
                listener(entry)

    async def wait_settled(self, timeout: float | None = None) -> bool:
        """Wait until every entry is settled (True), or `timeout` passes (False)."""
        return await self.wait_for(lambda: all(e.settled for e in self.entries), timeout)

    async def wait_for(self, condition: Callable[[], bool], timeout: float | None = None) -> bool:
        """Wait until `condition()` holds after some entry changed (True), or `timeout` passes (False)."""
        changed = self._changed or asyncio.Event()
        self._changed = changed
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not condition():
            changed.clear()
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            with contextlib.suppress(asyncio.TimeoutError):
                await within(changed.wait(), left)
        return True

    def agent_tools(self) -> list[AgentTool]:
        """The tools of every connected server under the names an agent sees, flagged."""
        return agent_tools((e.name, e.tools) for e in self.entries if e.state == "connected")

    # -- running -------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start every server (call inside the running loop)."""
        self._changed = self._changed or asyncio.Event()
        for kind, size in self.slots.items():
            self._slots.setdefault(kind, asyncio.Semaphore(size))
        for entry in self.entries:
            self._launch(entry)

    def _launch(self, entry: Entry) -> None:
        entry.attempt += 1
        stop = asyncio.Event()
        self._stops[entry.index] = stop
        self._tasks[entry.index] = asyncio.ensure_future(self._run(entry, stop))

    async def reconnect(self, entry: Entry) -> None:
        """Close the server's connection (if any) and connect it again (its log goes on)."""
        await self._stop_one(entry)
        entry.traffic.info(f"reconnect · connection {entry.attempt + 1}", "protocol", event="reconnect")
        self._launch(entry)

    async def close(self) -> None:
        """Close every connection (servers stop in parallel) and wait for them."""
        await asyncio.gather(*(self._stop_one(e) for e in self.entries), return_exceptions=True)

    async def _stop_one(self, entry: Entry, timeout: float = 10.0) -> None:
        task = self._tasks.pop(entry.index, None)
        stop = self._stops.pop(entry.index, None)
        if task is None or task.done():
            return
        if stop is not None:
            stop.set()
        if entry.state in ("waiting", "connecting"):
            task.cancel()
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def refresh(self, entry: Entry) -> None:
        """Fetch the lists `list_changed` marked dirty (a no-op when none is)."""
        client = entry.client
        if client is None or not entry.dirty or entry.state != "connected":
            return
        kinds = set(entry.dirty)
        entry.dirty.clear()
        await self._load(entry, client, kinds, refresh=True)

    async def _run(self, entry: Entry, stop: asyncio.Event) -> None:
        configured = entry.configured
        if configured.spec is None:
            self._set(entry, "failed", reason=configured.problem or "cannot be used")
            return
        self._reset(entry)
        self._notify(entry)
        client: Client | None = None
        first_seq = len(entry.traffic)
        try:
            client = await self._connect(entry, configured, first_seq)
            entry.client = client
            self._connected(entry, client)
            await self._load(entry, client, set(COUNTED), refresh=False)
            error = await client.session.hold(stop)
            if error is None:
                self._set(entry, "closed")
            else:
                entry.dropped_at = self.wall()
                self._failed(entry, error, "dropped", first_seq)
        except asyncio.CancelledError:
            self._set(entry, "closed")
            raise
        except _Reported:
            pass
        except McpxError as exc:
            self._failed(entry, exc, "failed", first_seq)
        except Exception as exc:  # nothing a server does may take the workspace down
            self._failed(entry, McpxError(f"{type(exc).__name__}: {exc}"), "failed", first_seq)
        finally:
            entry.client = None
            if client is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(client.close())

    async def _connect(self, entry: Entry, configured: Configured, first_seq: int) -> Client:
        spec = configured.spec
        assert spec is not None
        options = self.client_options(entry) if self.client_options is not None else {}
        kind = "remote" if configured.remote else "stdio"
        slot = self._slots[kind]
        await slot.acquire()
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                self.starting[kind] -= 1
                slot.release()

        self.starting[kind] += 1
        self.peak_starting[kind] = max(self.peak_starting[kind], self.starting[kind])
        timer = asyncio.get_running_loop().call_later(self.slot_seconds, release)
        self._set(entry, "connecting")
        started = self.clock()
        client = open_session(spec, replace(self.options, **options), traffic=entry.traffic)
        connecting = asyncio.ensure_future(client.connect())
        connecting.add_done_callback(_retrieve)
        try:
            done, _ = await asyncio.wait({connecting}, timeout=self.connect_timeout)
            if not done:
                # failed now; cleaning up may take a while (a hung remote server is told of the cancelled
                # request over a connection that hangs too), and must not delay the verdict
                connecting.cancel()
                error = RequestTimeoutError(f"no answer within {self.connect_timeout:g} s of starting")
                self._failed(entry, error, "failed", first_seq)
                release()
                await self._abandon(connecting, client, configured.remote)
                raise _Reported
            connecting.result()
        except asyncio.CancelledError:
            connecting.cancel()
            await self._abandon(connecting, client, configured.remote)
            raise
        except McpxError:
            await client.close()
            raise
        finally:
            timer.cancel()
            release()
        entry.connect_seconds = self.clock() - started
        return client

    async def _abandon(self, connecting: asyncio.Future[Any], client: Client, remote: bool) -> None:
        """Close a client whose connect was given up; a remote one gets a few seconds at most."""
        await asyncio.wait({connecting}, timeout=ABANDON_SECONDS if remote else None)
        if remote:
            with contextlib.suppress(Exception):
                await within(client.close(), ABANDON_SECONDS)
        else:
            await client.close()  # a process: closing it is bounded by the stdio transport's own grace

    def _connected(self, entry: Entry, client: Client) -> None:
        opened = client.opened
        assert opened is not None
        entry.era = opened.era
        entry.protocol_version = opened.protocol_version
        info = opened.server_info_raw
        entry.server_name = str(info.get("name")) if info.get("name") is not None else None
        entry.server_version = str(info.get("version")) if info.get("version") is not None else None
        entry.counts = {k: None for k in COUNTED}
        entry.loading = {k for k, cap in COUNTED.items() if cap in opened.capabilities}
        for method, kind in _CHANGED.items():
            client.on_notification(method, self._dirtier(entry, client, kind))
        self._set(entry, "connected")

    def _dirtier(self, entry: Entry, client: Client, kind: str) -> Callable[..., None]:
        def dirty(*_: Any) -> None:
            if entry.client is client:
                entry.dirty.add(kind)
                self._notify(entry)

        return dirty

    async def _load(self, entry: Entry, client: Client, kinds: set[str], *, refresh: bool) -> None:
        wanted = [k for k in kinds if COUNTED[k] in (client.server_capabilities or {})]
        entry.loading |= set(wanted)

        async def one(kind: str) -> None:
            try:
                lister = getattr(client, _LISTERS[kind])
                items = await within(lister(refresh=refresh), self.connect_timeout)
            except (McpxError, asyncio.TimeoutError) as exc:
                message = exc.message if isinstance(exc, McpxError) else "no answer in time"
                entry.list_errors[kind] = message
            else:
                entry.list_errors.pop(kind, None)
                entry.counts[kind] = len(items)
                if kind == "tools":
                    entry.tools = [getattr(t, "raw", t) for t in items]
                    entry.definition_chars, entry.definition_tokens = definition_size(entry.tools)
            finally:
                entry.loading.discard(kind)
                self._notify(entry)

        await asyncio.gather(*(one(k) for k in wanted))

    # -- state ---------------------------------------------------------------------------------------
    def _reset(self, entry: Entry) -> None:
        entry.state, entry.reason, entry.stderr_tail, entry.returncode = "waiting", None, (), None
        entry.era = entry.protocol_version = entry.server_name = entry.server_version = None
        entry.counts, entry.loading, entry.list_errors, entry.dirty = {}, set(), {}, set()
        entry.tools, entry.definition_chars, entry.definition_tokens = [], 0, 0
        entry.connect_seconds = entry.dropped_at = None

    def _set(self, entry: Entry, state: EntryState, *, reason: str | None = None) -> None:
        entry.state = state
        if reason is not None:
            entry.reason = reason
        if state != "connected":
            entry.loading = set()
        self._notify(entry)

    def _failed(self, entry: Entry, error: McpxError, state: EntryState, first_seq: int) -> None:
        ending = Ending.of(error, entry.traffic, first_seq, self.stderr_lines)
        entry.returncode = ending.returncode
        entry.stderr_tail = ending.stderr_tail
        self._set(entry, state, reason=error.message)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # seen: the caller reports it, or gave up on it


class _Reported(Exception):
    """The failure is already on the entry (raised to end its task quietly)."""


def _has_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
