"""An MCP server on mcpx's own `Peer`, speaking both eras at once.

Which era a request belongs to is decided per request, as the modern era is stateless: a request whose
`params._meta` names a protocol version is served as that (2026-07-28) revision — an unknown version gets
-32022 with the `supported` list; anything else is legacy and needs the `initialize` handshake first. So
one process answers `initialize` (with the revision offered when it knows it, the newest otherwise) and
`server/discover`, and a client may even mix the two.

Every handler gets a `Context` (context.py) and returns a plain result; the core adds what the era
wants on the way out (`resultType` and `_meta["io.modelcontextprotocol/serverInfo"]` on modern results,
cache hints on cacheable ones) and turns `InputRequired` into an `input_required` result.

Requests are cancellable: `notifications/cancelled` cancels the handler's task, and — as the spec wants —
a cancelled request gets no answer. The method handlers live in methods.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcpx.demo.core.catalog import Prompt, Resource, ResourceTemplate, Tool, text
from mcpx.demo.core.context import Context, Era, InputRequired, MissingCapability
from mcpx.demo.core.push import Push
from mcpx.demo.core.state import StateSealer
from mcpx.errors import McpxError, RpcError
from mcpx.protocol.modern import (
    META_CAPABILITIES,
    META_CLIENT,
    META_LOG_LEVEL,
    META_SERVER,
    META_VERSION,
    MISSING_CAPABILITY,
    MRTR_METHODS,
    UNSUPPORTED_VERSION,
)
from mcpx.protocol.names import LOG_LEVELS
from mcpx.protocol.peer import IncomingRequest, Peer
from mcpx.protocol.versions import ALL_VERSIONS, LATEST_LEGACY, LEGACY_VERSIONS, MODERN_VERSIONS
from mcpx.transports.base import Transport
from mcpx.wire import JsonId, Notification, TrafficEvent, TrafficLog
from mcpx.wire.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND

Handler = Callable[[dict[str, Any], Context], Awaitable[Any]]
#: results the 2026-07-28 revision says carry cache hints (`ttlMs`, `cacheScope`)
CACHEABLE = (
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
)


@dataclass(slots=True)
class LegacySession:
    """What `initialize` established (stdio carries one client, so one session)."""

    version: str
    capabilities: dict[str, Any]
    client_info: dict[str, Any]
    #: `logging/setLevel`; until the client sets one the server sends info and above
    log_level: str = "info"


class McpServer:
    """Register tools, resources, templates and prompts, then `bind()` to a peer or `serve_stdio()`."""

    def __init__(
        self,
        name: str,
        version: str,
        *,
        title: str | None = None,
        description: str | None = None,
        instructions: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        website_url: str | None = None,
        list_changed: tuple[str, ...] = ("tools",),
        page_sizes: dict[str, int] | None = None,
        ttl_ms: dict[str, int] | None = None,
    ) -> None:
        info: dict[str, Any] = {"name": name, "version": version}
        for key, value in (
            ("title", title),
            ("description", description),
            ("icons", icons),
            ("websiteUrl", website_url),
        ):
            if value is not None:
                info[key] = value
        self.info = info
        self.instructions = instructions
        self.list_changed = list_changed
        #: list method → page size (a list without one is answered in one page)
        self.page_sizes = page_sizes or {}
        #: cacheable method → ttlMs (default 60 s); lists that can change say 0
        self.ttl_ms = ttl_ms or {}
        self.tools: dict[str, Tool] = {}
        self.resources: dict[str, Resource] = {}
        self.templates: list[ResourceTemplate] = []
        self.prompts: dict[str, Prompt] = {}
        self.sealer = StateSealer()
        self.push = Push(self.notify)
        self.legacy: LegacySession | None = None
        self.peer: Peer | None = None
        self._running: dict[JsonId, asyncio.Task[Any]] = {}
        self._background: list[Callable[[], Awaitable[None]]] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- the catalogue -------------------------------------------------------------------------------
    def add_tool(self, tool: Tool) -> Tool:
        self.tools[tool.name] = tool
        return tool

    def remove_tool(self, name: str) -> bool:
        return self.tools.pop(name, None) is not None

    def add_resource(self, resource: Resource) -> Resource:
        self.resources[resource.uri] = resource
        return resource

    def add_template(self, template: ResourceTemplate) -> ResourceTemplate:
        self.templates.append(template)
        return template

    def add_prompt(self, prompt: Prompt) -> Prompt:
        self.prompts[prompt.name] = prompt
        return prompt

    def background(self, job: Callable[[], Awaitable[None]]) -> None:
        """Run `job` while the server serves (a ticker, a producer of updates)."""
        self._background.append(job)

    def capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {}
        if self.tools:
            caps["tools"] = {"listChanged": "tools" in self.list_changed}
        if self.resources or self.templates:
            caps["resources"] = {"subscribe": True, "listChanged": "resources" in self.list_changed}
        if self.prompts:
            caps["prompts"] = {"listChanged": "prompts" in self.list_changed}
        caps["completions"] = {}
        caps["logging"] = {}
        return caps

    # -- wiring --------------------------------------------------------------------------------------
    def bind(self, peer: Peer) -> None:
        """Answer MCP on `peer` (any transport: stdio for the demo, memory in tests, a replayed one…)."""
        from mcpx.demo.core import methods

        self.peer = peer
        peer.on_request("initialize", self._initialize)
        peer.on_request("ping", self._ping)
        for method, handler, eras in methods.ROUTES:
            self.route(method, handler, eras)
        peer.on_notification("notifications/cancelled", self._cancelled)
        peer.on_notification("notifications/initialized", self._initialized)
        # legacy clients say when their roots change; servers re-ask when they next need them
        peer.on_notification(
            "notifications/roots/list_changed", lambda m, e: self.say("the client says its roots changed")
        )

    def route(self, method: str, handler: Handler, eras: tuple[Era, ...] = ("legacy", "modern")) -> None:
        assert self.peer is not None, "bind() first"

        async def answer(params: Any, request: IncomingRequest) -> Any:
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise RpcError(method, INVALID_PARAMS, "params must be an object")
            ctx = self.context(request, params)
            if ctx.era not in eras:
                raise RpcError(method, METHOD_NOT_FOUND, f"{method} does not exist in the {ctx.era} era")
            task = asyncio.current_task()
            if task is not None:
                self._running[request.id] = task
            try:
                result = await handler(params, ctx)
            except InputRequired as asked:
                result = {
                    "resultType": "input_required",
                    "inputRequests": asked.requests,
                    "requestState": asked.state,
                }
            except MissingCapability as missing:
                if ctx.era == "modern":
                    raise RpcError(
                        method, MISSING_CAPABILITY, str(missing), {"requiredCapabilities": missing.required}
                    ) from None
                if method != "tools/call":
                    raise RpcError(method, INVALID_REQUEST, str(missing)) from None
                result = {"content": [text(f"{missing} (declare it in initialize)")], "isError": True}
            finally:
                if self._running.get(request.id) is task:
                    del self._running[request.id]
            return self.finish(method, result, ctx)

        self.peer.on_request(method, answer)

    def context(self, request: IncomingRequest, params: dict[str, Any]) -> Context:
        """Which era and revision this request is served under, from its `_meta` envelope or the session."""
        method = request.method
        meta = params.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        version = meta.get(META_VERSION)
        if version is None:
            if self.legacy is None:
                raise RpcError(
                    method,
                    INVALID_PARAMS,
                    "no protocol version: send initialize first, or name one in "
                    f'params._meta["{META_VERSION}"]',
                )
            session = self.legacy
            return Context(
                self,
                request,
                params,
                "legacy",
                session.version,
                session.capabilities,
                session.client_info,
                session.log_level,
            )
        if version not in MODERN_VERSIONS:
            raise RpcError(
                method,
                UNSUPPORTED_VERSION,
                "Unsupported protocol version",
                {"supported": list(ALL_VERSIONS), "requested": version},
            )
        capabilities = meta.get(META_CAPABILITIES)
        if not isinstance(capabilities, dict):
            raise RpcError(method, INVALID_PARAMS, f'params._meta["{META_CAPABILITIES}"] is required')
        level = meta.get(META_LOG_LEVEL)
        if level is not None and level not in LOG_LEVELS:
            raise RpcError(method, INVALID_PARAMS, f"unknown log level {level!r}")
        client = meta.get(META_CLIENT)
        ctx = Context(
            self,
            request,
            params,
            "modern",
            version,
            capabilities,
            client if isinstance(client, dict) else {},
            level,
        )
        if method in MRTR_METHODS:
            if "requestState" in params:
                ctx.answers.update(self.sealer.open(method, params, params["requestState"]))
            responses = params.get("inputResponses")
            if responses is not None and not isinstance(responses, dict):
                raise RpcError(method, INVALID_PARAMS, "inputResponses must be an object")
            ctx.answers.update(responses or {})
        return ctx

    def finish(self, method: str, result: Any, ctx: Context) -> Any:
        if ctx.era != "modern" or not isinstance(result, dict):
            return result
        result = dict(result)
        result.setdefault("resultType", "complete")
        if method in CACHEABLE and result["resultType"] == "complete":
            result.setdefault("ttlMs", self.ttl_ms.get(method, 60_000))
            result.setdefault("cacheScope", "public")
        meta = dict(result.get("_meta") or {})
        meta.setdefault(META_SERVER, self.info)
        result["_meta"] = meta
        return result

    # -- the legacy handshake and what every era shares ---------------------------------------------
    async def _initialize(self, params: Any, request: IncomingRequest) -> dict[str, Any]:
        params = params if isinstance(params, dict) else {}
        offered = params.get("protocolVersion")
        version = offered if offered in LEGACY_VERSIONS else LATEST_LEGACY
        capabilities = params.get("capabilities")
        client = params.get("clientInfo")
        self.legacy = LegacySession(
            version,
            capabilities if isinstance(capabilities, dict) else {},
            client if isinstance(client, dict) else {},
        )
        self.say(f"initialize: {client_name(client)} offered {offered!r}; answered {version}")
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self.capabilities(),
            "serverInfo": self.info,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _initialized(self, message: Notification, event: TrafficEvent) -> None:
        self.push.legacy_open = True

    async def _ping(self, params: Any, request: IncomingRequest) -> dict[str, Any]:
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and META_VERSION in meta:
            raise RpcError("ping", METHOD_NOT_FOUND, "ping was removed in 2026-07-28")
        return {}

    def _cancelled(self, message: Notification, event: TrafficEvent) -> None:
        params = message.params if isinstance(message.params, dict) else {}
        rid = params.get("requestId")
        task = self._running.get(rid) if isinstance(rid, (int, str)) else None
        if task is not None and not task.done():
            self.say(f"request {rid!r} cancelled by the client ({params.get('reason', 'no reason given')})")
            task.cancel()

    # -- talking to the client -----------------------------------------------------------------------
    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        if self.peer is None:
            return
        with contextlib.suppress(McpxError, OSError):  # the client may be gone; nothing to tell then
            await self.peer.notify(method, params)

    async def peer_request(self, method: str, params: Any = None) -> Any:
        assert self.peer is not None
        return await self.peer.request(method, params, timeout=None)  # a human may be answering

    async def announce(self, kind: str) -> None:
        """Tell listening clients that a list ("tools", "resources", "prompts") changed."""
        await self.push.list_changed(kind)

    def say(self, line: str) -> None:
        """A line on stderr: the server's own log, which clients show as such (never stdout)."""
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"[{self.info['name']}] {line}\n")
            sys.stderr.flush()

    # -- running -------------------------------------------------------------------------------------
    async def serve(self, transport: Transport) -> None:
        """Serve until the client goes away."""
        peer = Peer(transport, timeout=None)
        self.bind(peer)
        await peer.start()
        for job in self._background:
            self._tasks.add(asyncio.ensure_future(job()))
        try:
            await peer.closed.wait()
        finally:
            for task in [*self._tasks, *self._running.values()]:
                task.cancel()
            await peer.close()

    async def serve_stdio(self) -> None:
        from mcpx.transports.stdio_server import StdioServerTransport

        await self.serve(StdioServerTransport(traffic=TrafficLog()))


def client_name(info: Any) -> str:
    if isinstance(info, dict):
        return f"{info.get('name', '?')} {info.get('version', '')}".strip()
    return "a client"
