"""The MCP client the faces use: connect, typed calls for every client→server method, pagination and
cached lists refreshed on `list_changed` (`Catalogue`, in catalogue.py), progress callbacks, and handlers
for what the server asks (`ServerAsks`, in server_asks.py).

Every method has a raw twin (`request()`, `list_all()`), so a face can show exactly what came back.

Over Streamable HTTP an `HttpMirror` (the handshake-free era's part, in `modern`) names the headers of each
message for the transport, and leaves out of `tools/list` the tools it could not call correctly.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from mcpx.__about__ import __version__
from mcpx.errors import McpxError, RpcError, SessionExpiredError
from mcpx.protocol.auto import AutoEra
from mcpx.protocol.catalogue import Catalogue, Timeout
from mcpx.protocol.eras import ClientIdentity, Era, LegacyEra, Opened
from mcpx.protocol.facade import Session
from mcpx.protocol.modern import HttpMirror
from mcpx.protocol.names import ListName
from mcpx.protocol.options import ServerRequestHandler
from mcpx.protocol.peer import NotificationHandler, Peer, ProgressCallback
from mcpx.protocol.server_asks import ServerAsks
from mcpx.protocol.subscriptions import Watch
from mcpx.protocol.tasks import Tasks
from mcpx.protocol.url_elicitation import RETRY_KEY, URL_ELICITATION_REQUIRED, after_urls
from mcpx.transports.base import HeaderMirroring, ProtocolVersionAware, StreamLostError, Transport
from mcpx.wire import TrafficEvent, TrafficLog

if TYPE_CHECKING:  # the typed views load pydantic, which connecting and raw requests never need
    from mcpx.protocol.skills import Skills
    from mcpx.protocol.types import (
        CallToolResult,
        CompleteResult,
        GetPromptResult,
        Implementation,
        Prompt,
        ReadResourceResult,
        Resource,
        ResourceTemplate,
        Tool,
    )

_T = TypeVar("_T")


#: `mcpx.protocol.types`, once a typed result has asked for it: it loads pydantic, which connecting and
#: raw requests never need. Kept here because an import statement in a function costs each call ~2 µs
#: (Python 3.11 looks the module up and checks its spec again), as much as parsing a small result.
_VIEWS: Any = None


def _views() -> Any:
    global _VIEWS
    from mcpx.protocol import types

    _VIEWS = types
    return types


class Client:
    """An MCP client over one transport. Faces and features get one from `open_session()`; scripts from
    `mcpx.connect()`."""

    def __init__(
        self,
        transport: Transport,
        *,
        era: Era | None = None,
        timeout: float | None = 60.0,
        connect_timeout: float | None = None,
        client_info: dict[str, Any] | None = None,
        roots: list[dict[str, Any]] | None = None,
        on_elicit: ServerRequestHandler | None = None,
        on_sample: ServerRequestHandler | None = None,
        sampling: dict[str, Any] | None = None,
        max_total_timeout: float | None = None,
    ) -> None:
        """`sampling` is the sampling capability to declare with `on_sample` (default `{}`; the TUI, whose
        user can write tool_use replies, declares `{"tools": {}}`). `max_total_timeout` bounds each
        request in all, though progress restarts `timeout` (None: no bound)."""
        self.transport = transport
        self.peer = Peer(transport, timeout=timeout, max_total_timeout=max_total_timeout)
        self.era: Era = era or AutoEra()
        self.timeout = timeout
        self.connect_timeout = connect_timeout if connect_timeout is not None else timeout
        #: the session's tasks (calling tools as tasks), and the ones the server asks of us
        self.tasks = Tasks(lambda: self.opened, self.request, self.peer.on_notification)
        #: what the server may ask and how this client answers (server_asks.py)
        self.asks = ServerAsks(
            self.peer, self.tasks, roots=roots, on_elicit=on_elicit, on_sample=on_sample, sampling=sampling
        )
        self.identity = ClientIdentity(
            info=client_info or {"name": "mcpx", "title": "mcpx inspector", "version": __version__},
            capabilities=self.asks.capabilities,
        )
        self.opened: Opened | None = None
        #: bumped each time a new session replaces one the server forgot
        self._session_epoch = 0
        self._reopening = asyncio.Lock()
        #: the paginated and cached lists (catalogue.py); the list methods below forward to it
        self.catalogue = Catalogue(self.peer.traffic, self.request, self.peer.on_notification)
        #: the front door's façade: what faces may ask about the connection (see `session`)
        self.session = Session(self.peer, self.reconnect)
        # composed from narrow callables, not the whole client (no import back into this module)
        self.watching = Watch(lambda: self.opened, self.request, self.peer.on_notification)
        #: over a transport that mirrors messages into HTTP headers (Streamable HTTP)
        self.http: HttpMirror | None = None
        if isinstance(transport, HeaderMirroring):
            self.http = HttpMirror(
                self.peer.traffic, lambda: self.opened, lambda: self.cached("tools"), self.list_tools
            )
            self.catalogue.filter_tools = self.http.usable_tools
            transport.mirror_headers(self.http)

    @functools.cached_property
    def skills(self) -> Skills:
        """The Skills extension (SEP-2640): list, get, load with verification (imported when first used:
        `mcpx call` rarely needs it)."""
        from mcpx.protocol.skills import Skills

        return Skills(lambda: self.opened, self.request, self.peer.traffic)

    def declare_extension(self, name: str, settings: dict[str, Any]) -> None:
        """Declare a client extension (`capabilities.extensions[name]`), before connecting."""
        extensions = self.identity.capabilities.setdefault("extensions", {})
        extensions[name] = settings

    # -- lifecycle -----------------------------------------------------------------------------------
    async def connect(self) -> Opened:
        """Start the transport and open the conversation (`start()` then `open()`)."""
        await self.start()
        return await self.open()

    async def start(self) -> None:
        """Start the transport only (spawn the process, get ready to POST): nothing is said yet."""
        await self.peer.start()

    async def open(self) -> Opened:
        """Open the conversation over a started transport: the era's probe or handshake."""
        return await self._open()

    async def reconnect(self) -> Opened:
        """Close the transport, start it again and reopen in the era chosen the first time (an `auto`
        era that has chosen does not probe again); the traffic log goes on."""
        era: Era = getattr(self.era, "chosen", None) or self.era
        await self.peer.restart()
        opened = await self._open(era)
        self._session_epoch += 1
        self.catalogue.forget()  # a new server may list other things
        return opened

    async def _open(self, era: Era | None = None) -> Opened:
        era = era or self.era
        self.opened = opened = await era.open(self.peer, self.identity, self.connect_timeout)
        for note in opened.notes:
            self.traffic.info(note, "protocol")
        self.traffic.info(
            f"connected: {opened.era} era, protocol {opened.protocol_version}, server {opened.server_label}",
            "protocol",
            event="opened",
            era=opened.era,
            protocol_version=opened.protocol_version,
        )
        if self.opened.era == "legacy" and isinstance(self.transport, ProtocolVersionAware):
            # after a handshake only: the handshake-free era has no session and no GET stream
            self.transport.set_protocol_version(self.opened.protocol_version)
        return self.opened

    async def _in_session(self, call: Callable[[], Awaitable[_T]]) -> _T:
        """Run `call`; if the server forgot the session (HTTP 404), open a new one and run it once more."""
        epoch = self._session_epoch
        try:
            return await call()
        except SessionExpiredError as expired:
            await self._renew(expired, epoch)
            return await call()

    async def _renew(self, expired: SessionExpiredError, epoch: int) -> None:
        """Open a new session after the server forgot the one of `epoch` (once, however many requests met
        the same expiry together)."""
        async with self._reopening:
            if epoch == self._session_epoch:
                note = f"{expired.message}; opening a new session and retrying once"
                self.traffic.info(note, "protocol", event="reopen")
                await self._open()
                self._session_epoch += 1
                self.catalogue.forget()  # a new session may list other things

    async def close(self) -> None:
        await self.watching.stop()
        self.catalogue.stop()
        await self.peer.close()

    async def __aenter__(self) -> Client:
        if self.opened is not None:
            return self  # already connected by the caller
        try:
            await self.connect()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- what the connection established -------------------------------------------------------------
    @property
    def traffic(self) -> TrafficLog:
        return self.peer.traffic

    def _opened(self) -> Opened:
        if self.opened is None:
            raise McpxError("not connected yet")
        return self.opened

    @property
    def server_info(self) -> Implementation:
        return self._opened().server_info

    @property
    def server_capabilities(self) -> dict[str, Any]:
        return self._opened().capabilities

    @property
    def protocol_version(self) -> str:
        return self._opened().protocol_version

    @property
    def instructions(self) -> str | None:
        return self._opened().instructions

    # -- raw requests --------------------------------------------------------------------------------
    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: Timeout = "default",
        on_progress: ProgressCallback | None = None,
    ) -> Any:
        """Send any method with any params (dressed by the era) and return the raw result."""
        if method == "tools/call" and self.http is not None:
            await self.http.learn_tool(params)
        try:
            # `_in_session(lambda: resend({}))` written out: the layers a plain request passes through are
            # each a coroutine to make and resume, on every call
            epoch = self._session_epoch
            try:
                dressed = self.era.wrap(method, params)
                peer = self.peer
                event = await peer.request_event(method, dressed, timeout=timeout, on_progress=on_progress)
                result = event.message.result  # type: ignore[union-attr]
            except SessionExpiredError as expired:
                await self._renew(expired, epoch)
                result = await self._resender(method, params, timeout, on_progress)({})
        except RpcError as exc:
            resend = self._resender(method, params, timeout, on_progress)
            if exc.error_code == URL_ELICITATION_REQUIRED and "elicitation/create" in self.asks.handlers:
                result = await after_urls(method, exc, resend, self.answer, self.traffic)
            else:
                result = await self.era.recover(method, exc, resend, self._refresh_tools)
        except StreamLostError as exc:
            # the handshake-free era cannot resume a broken stream: the spec says to send it anew
            self.traffic.info(f"{exc.message}; sending it again with a new id", "protocol", event="reissue")
            result = await self._resender(method, params, timeout, on_progress)({})
        era = self.era
        if type(era) is LegacyEra or type(getattr(era, "chosen", None)) is LegacyEra:
            return result  # the handshake era never asks in a result (LegacyEra.settle): no coroutine for it
        return await era.settle(
            method, params, result, self._resender(method, params, timeout, on_progress), self.answer
        )

    def _resender(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: Timeout,
        on_progress: ProgressCallback | None,
    ) -> Callable[[dict[str, Any]], Awaitable[Any]]:
        """How to send the request again (with `extra` params), for the paths that may: made only there,
        since a closure in `request()` itself made every call allocate its captured variables' cells."""

        async def resend(extra: dict[str, Any]) -> Any:
            # dressed again each time: a corrective retry may have changed the era's version
            again = self.era.wrap(method, {**(params or {}), **extra} if extra else params)
            return await self.peer.request(method, again, timeout=timeout, on_progress=on_progress)

        return resend

    async def _refresh_tools(self) -> None:
        await self.list_tools(refresh=True)

    async def answer(self, method: str, params: Any) -> Any:
        """Answer one thing the server asks with the handlers this client was given."""
        return await self.asks.answer(method, params)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._in_session(lambda: self.peer.notify(method, params))

    async def send_raw(self, text: str) -> TrafficEvent:
        return await self.peer.send_raw(text)

    # -- lists (the catalogue's) ---------------------------------------------------------------------
    async def list_page(self, method: str, cursor: str | None = None, *, timeout: Timeout = "default") -> Any:
        return await self.catalogue.list_page(method, cursor, timeout=timeout)

    async def list_all(self, method: str, key: str, *, timeout: Timeout = "default") -> dict[str, Any]:
        """Follow `nextCursor` and merge every page's items into one result (the last page's other fields)."""
        return await self.catalogue.list_all(method, key, timeout=timeout)

    async def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        return await self.catalogue.list_tools(refresh=refresh)

    async def list_resources(self, *, refresh: bool = False) -> list[Resource]:
        return await self.catalogue.list_resources(refresh=refresh)

    async def list_resource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        return await self.catalogue.list_resource_templates(refresh=refresh)

    async def list_prompts(self, *, refresh: bool = False) -> list[Prompt]:
        return await self.catalogue.list_prompts(refresh=refresh)

    def cached(self, name: ListName | str) -> list[Any] | None:
        """A list as last fetched ("tools", "resources", "resourceTemplates", "prompts"), or None."""
        return self.catalogue.cached(name)

    def on_list_changed(self, listener: Callable[[ListName], Any]) -> None:
        """Call `listener(name)` after a cached list was refreshed because the server said it changed."""
        self.catalogue.on_list_changed(listener)

    # -- typed calls ---------------------------------------------------------------------------------
    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: Timeout = "default",
        on_progress: ProgressCallback | None = None,
        meta: dict[str, Any] | None = None,
    ) -> CallToolResult:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        if meta:
            params["_meta"] = meta
        raw = await self.request("tools/call", params, timeout=timeout, on_progress=on_progress)
        views = _VIEWS or _views()
        result: CallToolResult = views.parse(views.CallToolResult, raw, "tools/call result")
        return result

    async def read_resource(self, uri: str, *, timeout: Timeout = "default") -> ReadResourceResult:
        raw = await self.request("resources/read", {"uri": uri}, timeout=timeout)
        views = _VIEWS or _views()
        result: ReadResourceResult = views.parse(views.ReadResourceResult, raw, "resources/read result")
        return result

    async def get_prompt(
        self, name: str, arguments: dict[str, str] | None = None, *, timeout: Timeout = "default"
    ) -> GetPromptResult:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        raw = await self.request("prompts/get", params, timeout=timeout)
        views = _VIEWS or _views()
        result: GetPromptResult = views.parse(views.GetPromptResult, raw, "prompts/get result")
        return result

    async def complete(
        self,
        ref: dict[str, Any],
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
    ) -> CompleteResult:
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": context}
        raw = await self.request("completion/complete", params)
        views = _VIEWS or _views()
        result: CompleteResult = views.parse(views.CompleteResult, raw, "completion/complete result")
        return result

    async def set_logging_level(self, level: str) -> Any:
        """Legacy: `logging/setLevel`. Modern: the level rides on every later request's `_meta`."""
        return await self.era.set_log_level(level, self.request)

    async def ping(self) -> Any:
        return await self.request("ping")

    async def watch(self) -> None:
        """Receive list changes as they happen (modern: opens a `subscriptions/listen` request)."""
        await self.watching.start()

    async def subscribe_resource(self, uri: str) -> None:
        await self.watching.subscribe(uri)

    async def unsubscribe_resource(self, uri: str) -> None:
        await self.watching.unsubscribe(uri)

    def on_notification(self, method: str | None, handler: NotificationHandler) -> Callable[[], None]:
        return self.peer.on_notification(method, handler)

    # -- what the server asks (server_asks.py) -------------------------------------------------------
    @property
    def roots(self) -> list[dict[str, Any]] | None:
        return self.asks.roots

    @property
    def roots_asked(self) -> int:
        """How many times the server asked for the roots."""
        return self.asks.roots_asked

    async def set_roots(self, roots: list[dict[str, Any]]) -> bool:
        """Change the roots this client advertises; True when the server was told (legacy era only:
        2026-07-28 has no `notifications/roots/list_changed`, servers ask again when they need them)."""
        self.asks.roots = roots
        if self.opened is None or self.opened.era != "legacy" or "roots/list" not in self.asks.handlers:
            return False
        await self.notify("notifications/roots/list_changed")
        return True


__all__ = ["RETRY_KEY", "Client", "RpcError", "ServerRequestHandler"]
