"""`Connection`: the one long-lived `connection` worker of `mcpx inspect`, and what it tells the app.

The worker owns the client's async context (opened and closed in the same task, as anyio requires) and
waits until the server goes away or the app asks it to stop. It runs on the app (it outlives any screen);
what it learns goes to the screen that shows it as messages — `SessionChanged`, `CatalogChanged`,
`Opened` (which goes on up to the app), `Ended` — that the screen turns into its reactives (the
connection writes nobody's attributes); it starts short `requests` workers to list the catalogue.
A connector builds the client: `spec_connector()` for a real server, anything with the same shape (an
in-memory server, a workspace's live client) for tests and workspaces.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.worker import Worker

from mcpx.errors import ConnectError, McpxError, RpcError
from mcpx.protocol.facade import Ending
from mcpx.tui.session_state import CAPABILITY, KINDS, ItemKind, Lists, ServerInfo, SessionState, State
from mcpx.tui.settings import InspectSettings, session_options
from mcpx.tui.shell.heap import settle_after_listing
from mcpx.wire.traffic import TrafficLog
from mcpx.wire.waiting import within

if TYPE_CHECKING:
    from textual.app import App
    from textual.message_pump import MessagePump

    from mcpx import ServerSpec
    from mcpx.protocol.client import Client
    from mcpx.tui.asking.asking import Asking
    from mcpx.tui.context import Clock

#: builds a connected client over the given log; the worker enters and leaves it in its own task
Connector = Callable[[TrafficLog], AbstractAsyncContextManager["Client"]]
LISTERS: dict[ItemKind, str] = {
    "tools": "list_tools",
    "resources": "list_resources",
    "resourceTemplates": "list_resource_templates",
    "prompts": "list_prompts",
}
#: seconds to wait for a server to stop (the stdio transport's own grace periods fit in it)
STOP_TIMEOUT = 10.0


def signed_in_text(client: Client) -> str | None:
    """Who mcpx is signed in as on this server and when the token expires, when OAuth signs its requests."""
    facts = client.session.describe()
    url = facts.get("url")
    if facts.get("auth") != "McpOAuth" or not isinstance(url, str):
        return None
    from mcpx.auth.discovery import canonical_uri
    from mcpx.auth.store import TokenStore

    record = TokenStore().token(canonical_uri(url))
    if record is None:
        return None
    text = f"signed in as {record.get('client_id')}"
    expires = record.get("expires_at")
    if isinstance(expires, (int, float)):
        text += f" · expires {time.strftime('%H:%M', time.localtime(expires))}"
    return text


def spec_connector(spec: ServerSpec, settings: InspectSettings, asking: Asking | None = None) -> Connector:
    """The connector for a real server: `open_session()` with the settings' timeouts and era; what the
    server asks (elicitation, sampling, roots) is answered through `asking` (the app's queue)."""

    @asynccontextmanager
    async def open_client(traffic: TrafficLog) -> AsyncIterator[Client]:
        from mcpx.protocol.session import open_session

        options = session_options(settings, **(asking.client_options() if asking is not None else {}))
        async with open_session(spec, options, traffic=traffic) as client:
            yield client

    return open_client


class Connection:
    """Connects, reports, and disconnects — one worker at a time (reconnect: stop, then start)."""

    class SessionChanged(Message, bubble=False):
        """The connection's state, as the header and the death banner show it."""

        def __init__(self, session: SessionState) -> None:
            super().__init__()
            self.session = session

    class CatalogChanged(Message, bubble=False):
        """What the server lists changed (a list arrived, failed, or was reset for a new connection)."""

        def __init__(self, catalog: Lists) -> None:
            super().__init__()
            self.catalog = catalog

    class Opened(Message):
        """The server answered the handshake (or discover): what it established, and the client."""

        def __init__(self, client: Client, server_info: ServerInfo) -> None:
            super().__init__()
            self.client = client
            self.server_info = server_info

    class Ended(Message, bubble=False):
        """The connection's task ended (its client is gone: nothing is in flight any more)."""

    def __init__(
        self,
        host: App[Any],
        connector: Connector,
        *,
        traffic: TrafficLog,
        clock: Clock,
        settings: InspectSettings,
        target: str,
        session: Callable[[], SessionState],
        report_to: MessagePump,
    ) -> None:
        #: where the workers run
        self.host = host
        #: where the messages go (the screen that shows this connection)
        self.report_to = report_to
        self.connector = connector
        self.traffic = traffic
        self.clock = clock
        self.settings = settings
        self.target = target
        #: the session as the app shows it now (a reconnect counts on from its attempt; quitting says
        #: "closing" there)
        self.shown = session
        #: what this connection reported last (the app may not have taken the message in yet)
        self.session = SessionState(target=target)
        self.client: Client | None = None
        self.worker: Worker[None] | None = None
        self.catalog = Lists()
        self._stop = asyncio.Event()

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def start(self) -> None:
        """Start the worker (a previous one must have ended: see `stop`)."""
        self._stop = asyncio.Event()
        self.worker = self.host.run_worker(
            self._run(self.connector, self._stop),
            name="connection",
            group="connection",
            exclusive=True,
            exit_on_error=False,
        )

    def _report(self, session: SessionState) -> None:
        self.session = session
        self.report_to.post_message(self.SessionChanged(session))

    def _set_catalog(self, catalog: Lists) -> None:
        self.catalog = catalog
        self.report_to.post_message(self.CatalogChanged(catalog))

    async def _run(self, connector: Connector, stop: asyncio.Event) -> None:
        attempt = self.shown().attempt + 1
        self._report(SessionState("connecting", target=self.target, attempt=attempt))
        self._set_catalog(Lists())
        first_seq = len(self.traffic)
        started = self.clock()
        ended: McpxError | None = None
        connected = False
        try:
            async with connector(self.traffic) as client:
                connected = True
                self.client = client
                self._connected(client, attempt, self.clock() - started)
                ended = await client.session.hold(stop)
        except McpxError as exc:
            ended = exc
        finally:
            self.client = None
            self.report_to.post_message(self.Ended())
        if stop.is_set() and ended is None:
            self._report(replace(self.session, state="closed"))
        else:
            self._report(self._dead(ended or ConnectError("the connection ended"), connected, first_seq))

    def _connected(self, client: Client, attempt: int, seconds: float) -> None:
        opened = client.opened
        assert opened is not None
        info = opened.server_info
        self._report(
            SessionState(
                "connected",
                target=self.target,
                attempt=attempt,
                server_name=info.name,
                server_version=info.version,
                server_title=info.title,
                era=opened.era,
                protocol_version=opened.protocol_version,
                transport=client.session.transport_name or None,
                connect_seconds=seconds,
                signed_in=signed_in_text(client),
            )
        )
        traffic = self.traffic
        exchange = tuple(
            (
                traffic[seq].direction,
                traffic[seq].method or traffic[seq].kind,
                traffic[seq].raw,
            )
            for seq in opened.exchange
            if 0 <= seq < len(traffic)
        )
        server_info = ServerInfo(
            instructions=opened.instructions,
            server_info=info.raw
            if isinstance(info.raw, dict)
            else info.model_dump(by_alias=True, exclude_none=True),
            server_capabilities=opened.capabilities,
            client_info=client.identity.info,
            client_capabilities=client.identity.capabilities,
            exchange=exchange,
            transport=client.session.describe(),
            notes=tuple(opened.notes),
        )
        unavailable = {
            kind: f"The server did not declare the “{CAPABILITY[kind]}” capability."
            for kind in KINDS
            if CAPABILITY[kind] not in opened.capabilities
        }
        self.report_to.post_message(self.Opened(client, server_info))
        self._set_catalog(Lists(unavailable=unavailable))
        for kind in KINDS:
            if kind not in unavailable:
                self.host.run_worker(
                    self._load(client, kind), name=f"list-{kind}", group="requests", exit_on_error=False
                )
        client.on_list_changed(self._list_changed)

    def _dead(self, error: McpxError, connected: bool, first_seq: int) -> SessionState:
        ending = Ending.of(error, self.traffic, first_seq, self.settings.stderr_tail)
        if ending.returncode is not None:
            state: State = "exited"
        elif not connected:
            state = "failed"
        else:
            state = "disconnected"
        return replace(
            self.session,
            state=state,
            returncode=ending.returncode,
            error=error.message,
            stderr_tail=ending.stderr_tail,
        )

    async def _load(self, client: Client, kind: ItemKind) -> None:
        try:
            items = await getattr(client, LISTERS[kind])()
        except RpcError as exc:
            if client is self.client:
                reason = f"{exc.method} failed: {exc.error_message} ({exc.error_code})"
                catalog = self.catalog
                self._set_catalog(replace(catalog, unavailable={**catalog.unavailable, kind: reason}))
            return
        if client is self.client:
            self._set_catalog(self.catalog.with_items(kind, tuple(items)))
            settle_after_listing(len(items))

    def _list_changed(self, name: ItemKind) -> None:
        client = self.client
        if client is None:
            return
        items = client.cached(name)
        if name in KINDS and items is not None:
            self._set_catalog(self.catalog.with_items(name, tuple(items)))

    async def stop(self) -> None:
        """End the worker (the client closes the server in that task) and wait for it."""
        worker = self.worker
        if worker is None or worker.is_finished:
            return
        self._stop.set()
        if self.session.state == "connecting" and self.shown().state != "closing":
            worker.cancel()
        with contextlib.suppress(Exception):
            await within(worker.wait(), STOP_TIMEOUT)
        if not worker.is_finished:
            worker.cancel()
