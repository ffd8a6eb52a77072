"""The modern era (2026-07-28): no handshake, no session.

`server/discover` tells what the server is; every request carries a `_meta` envelope naming the
protocol version, the client and its capabilities; a result may say `input_required` and list what the
server needs (elicitation, sampling, roots), which the client answers by re-sending the original request
with a new id, the answers in `inputResponses` and the server's `requestState` echoed byte for byte.

Over Streamable HTTP each message is also mirrored into headers (`HttpMirror`, which the client hands to
its transport), some of them from the called tool's schema; tools whose `x-mcp-header` annotations break
the rules cannot be called correctly there and are left out of the tool list.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from mcpx.errors import McpxError, ProtocolError, RpcError, UnsupportedVersionError
from mcpx.protocol.eras import Answer, ClientIdentity, Opened, Resend, Send
from mcpx.protocol.http_headers import header_annotation_problem, message_headers
from mcpx.protocol.peer import Peer
from mcpx.protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS
from mcpx.transports.base import Mirrored
from mcpx.wire import Message, Notification, Request, TrafficLog

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT = "io.modelcontextprotocol/clientInfo"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER = "io.modelcontextprotocol/serverInfo"
UNSUPPORTED_VERSION = -32022
MISSING_CAPABILITY = -32021
HEADER_MISMATCH = -32020
MAX_ROUNDS = 10
#: methods whose results may ask for input (the spec allows MRTR on these only)
MRTR_METHODS = ("tools/call", "prompts/get", "resources/read")


class InputRoundsExceededError(ProtocolError):
    code = "input_rounds_exceeded"


class MissingCapabilityError(ProtocolError):
    code = "missing_client_capability"


class ModernEra:
    name = "modern"

    def __init__(self, version: str | None = None) -> None:
        if version is not None and version not in MODERN_VERSIONS:
            raise UnsupportedVersionError(
                f"{version} is not a modern revision (mcpx knows {', '.join(MODERN_VERSIONS)})"
            )
        self.version = version or MODERN_VERSIONS[0]
        self.pinned = version is not None
        self.log_level: str | None = None
        self._client: ClientIdentity | None = None

    def envelope(self, client: ClientIdentity) -> dict[str, Any]:
        meta: dict[str, Any] = {
            META_VERSION: self.version,
            META_CLIENT: client.info,
            META_CAPABILITIES: modern_capabilities(client.capabilities),
        }
        if self.log_level is not None:
            meta[META_LOG_LEVEL] = self.log_level
        return meta

    def wrap(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        if self._client is None:
            return params
        wrapped = dict(params or {})
        wrapped["_meta"] = {**self.envelope(self._client), **(wrapped.get("_meta") or {})}
        return wrapped

    async def discover(self, peer: Peer, client: ClientIdentity, timeout: float | None) -> Any:
        """Send `server/discover` at our version; returns the response event (raises RpcError)."""
        self._client = client
        return await peer.request_event(
            "server/discover", {"_meta": self.envelope(client)}, timeout=timeout, cancel_on_timeout=False
        )

    async def open(self, peer: Peer, client: ClientIdentity, timeout: float | None) -> Opened:
        notes: list[str] = []
        try:
            event = await self.discover(peer, client, timeout)
        except RpcError as exc:
            retry = self.retry_version(exc)
            if retry is None:
                raise
            notes.append(
                f"the server refused {self.version} though it lists it; retrying once"
                if retry == self.version
                else f"the server does not support {self.version}; retrying with {retry}"
            )
            self.version = retry
            event = await self.discover(peer, client, timeout)
        opened = self.opened_from(event, peer)
        if opened is None:
            result = event.message.result
            supported = result.get("supportedVersions") if isinstance(result, dict) else None
            raise UnsupportedVersionError(
                f"server/discover lists no revision mcpx speaks in this era (it lists {supported!r}; mcpx "
                f"speaks {', '.join(MODERN_VERSIONS)})"
            )
        opened.notes[:0] = notes
        return opened

    def retry_version(self, exc: RpcError) -> str | None:
        """For -32022, the newest modern version we share with the server's `supported` list.

        That may be the very version just refused, when the server lists it: the refusal was then not
        about the version, and one retry (callers retry once) is what the spec's negotiation asks for.
        """
        if exc.error_code != UNSUPPORTED_VERSION or not isinstance(exc.data, dict):
            return None
        supported = exc.data.get("supported")
        if not isinstance(supported, list):
            return None
        if self.pinned:
            return self.version if self.version in supported else None
        shared = [v for v in MODERN_VERSIONS if v in supported]
        return shared[0] if shared else None

    def opened_from(self, event: Any, peer: Peer) -> Opened | None:
        """The connection a DiscoverResult describes, or None when it names no modern version we speak."""
        result = event.message.result
        if not isinstance(result, dict):
            peer.traffic.flag(event, "server/discover answered with something that is not an object")
            return None
        supported = result.get("supportedVersions")
        versions = [v for v in MODERN_VERSIONS if isinstance(supported, list) and v in supported]
        if not versions:
            return None
        if self.version not in versions:
            self.version = versions[0]
        meta_raw = result.get("_meta")
        meta: dict[str, Any] = meta_raw if isinstance(meta_raw, dict) else {}
        info_raw = meta.get(META_SERVER, result.get("serverInfo"))  # conformance mocks put it at the top
        if info_raw is None:
            peer.traffic.flag(event, f'server/discover result has no _meta["{META_SERVER}"]')
        capabilities = result.get("capabilities")
        instructions = result.get("instructions")
        request_seq = event.request_seq if event.request_seq is not None else event.seq
        return Opened(
            era="modern",
            protocol_version=self.version,
            server_info_raw=info_raw if isinstance(info_raw, dict) else {},
            capabilities=capabilities if isinstance(capabilities, dict) else {},
            instructions=instructions if isinstance(instructions, str) else None,
            raw=result,
            exchange=[request_seq, event.seq],
        )

    async def settle(
        self, method: str, params: dict[str, Any] | None, result: Any, resend: Resend, answer: Answer
    ) -> Any:
        rounds = 0
        while isinstance(result, dict) and result.get("resultType") == "input_required":
            rounds += 1
            if rounds > MAX_ROUNDS:
                raise InputRoundsExceededError(
                    f"{method} still asked for input after {MAX_ROUNDS} rounds; mcpx stopped retrying"
                )
            requests = result.get("inputRequests")
            responses: dict[str, Any] = {}
            if isinstance(requests, dict):
                for key, asked in requests.items():
                    if not isinstance(asked, dict) or not isinstance(asked.get("method"), str):
                        raise ProtocolError(f"{method}: inputRequests[{key!r}] has no method")
                    responses[key] = await answer(asked["method"], asked.get("params"))
            extra: dict[str, Any] = {}
            if responses:
                extra["inputResponses"] = responses
            if "requestState" in result:
                extra["requestState"] = result["requestState"]
            result = await resend(extra)
        if isinstance(result, dict):
            kind = result.get("resultType", "complete")
            if kind != "complete":
                raise ProtocolError(f"{method} answered with an unknown resultType {kind!r}")
        return result

    async def recover(
        self, method: str, error: RpcError, resend: Resend, refresh_tools: Callable[[], Awaitable[None]]
    ) -> Any:
        code = error.error_code
        if code == UNSUPPORTED_VERSION:
            retry = self.retry_version(error)
            if retry is None:
                supported = error.data.get("supported") if isinstance(error.data, dict) else None
                raise UnsupportedVersionError(
                    f"{method}: the server does not support {self.version} and shares no other revision with "
                    f"mcpx (it supports {supported!r})"
                ) from None
            self.version = retry
            return await resend({})
        if code == MISSING_CAPABILITY:
            data = error.data if isinstance(error.data, dict) else {}
            wanted = data.get("requiredCapabilities")
            names = ", ".join(wanted) if isinstance(wanted, dict) else repr(wanted)
            raise MissingCapabilityError(
                f"{method} needs client capabilities mcpx did not declare: {names} (answer elicitation with "
                "--elicit, sampling with --sample, roots with --root)",
                method=method,
                required=wanted,
            ) from None
        if code == HEADER_MISMATCH and method == "tools/call":
            # our Mcp-Param headers came from a stale tools/list: fetch it again and retry once
            await refresh_tools()
            return await resend({})
        raise error

    async def set_log_level(self, level: str, send: Send) -> Any:
        # logging/setLevel is gone in this era: the level rides on every request's _meta
        self.log_level = level
        return {}


class HttpMirror:
    """The handshake-free era over Streamable HTTP, for one client: the headers that mirror each message
    (the transport asks, message by message: see `HeaderMirroring`), and the tools left out because
    their `x-mcp-header` annotations cannot be mirrored. Inactive after a handshake."""

    def __init__(
        self,
        traffic: TrafficLog,
        opened: Callable[[], Opened | None],
        cached_tools: Callable[[], list[Any] | None],
        list_tools: Callable[[], Awaitable[Any]],
    ) -> None:
        """Composed from what it needs of a client, no more: the log, what opening established, the tools
        as last listed (typed views) and a way to list them."""
        self.traffic = traffic
        self._opened = opened
        self._cached_tools = cached_tools
        self._list_tools = list_tools

    @property
    def active(self) -> bool:
        opened = self._opened()
        return opened is not None and opened.era == "modern"

    def __call__(self, message: Message) -> Mirrored | None:
        """The headers of `message`, or None for a message of the handshake era.

        Before the era is known (the probe) a request carrying this era's envelope is one of this era;
        after a handshake none is, whatever it carries.
        """
        opened = self._opened()
        if opened is not None and opened.era != "modern":
            return None
        if isinstance(message, Request):
            params = message.params if isinstance(message.params, dict) else {}
            meta = params.get("_meta")
            version = meta.get(META_VERSION) if isinstance(meta, dict) else None
            if not isinstance(version, str):
                if opened is None:
                    return None  # initialize, after a refused probe
                version = opened.protocol_version  # a raw request sent without the envelope
            schema = self.input_schema(params.get("name")) if message.method == "tools/call" else None
            return Mirrored(message_headers(version, message.method, params, schema))
        if opened is not None and isinstance(message, Notification):
            if message.method == "notifications/cancelled":
                return Mirrored(
                    skip="closing the request's stream was its cancellation (2026-07-28 over HTTP)"
                )
            return Mirrored(message_headers(opened.protocol_version, message.method, message.params))
        return None

    def input_schema(self, name: Any) -> dict[str, Any] | None:
        # a stale list is still the best knowledge: a server that sees wrong headers answers -32020, and
        # `recover` re-lists and retries
        for tool in self._cached_tools() or ():
            if tool.name == name:
                schema: dict[str, Any] = tool.input_schema
                return schema
        return None

    async def learn_tool(self, params: dict[str, Any] | None) -> None:
        """Before the first tool call, list the tools: the tool's schema names the call's headers.

        Only when nothing was listed yet; a tool missing from a list is called as it is (a server that
        knows it and checks headers answers -32020, and `recover` re-lists and retries).
        """
        if self.active and self._cached_tools() is None and isinstance((params or {}).get("name"), str):
            with contextlib.suppress(McpxError):  # the call itself says what is wrong, if anything
                await self._list_tools()

    def usable_tools(self, tools: list[Any]) -> list[Any]:
        """`tools` without those whose x-mcp-header annotations break the rules (the spec: clients on
        HTTP MUST leave them out), each named in the log and among the problems."""
        if not self.active:
            return tools
        kept: list[Any] = []
        for tool in tools:
            problem = header_annotation_problem(tool.get("inputSchema") if isinstance(tool, dict) else None)
            if problem is None:
                kept.append(tool)
                continue
            name = tool.get("name") if isinstance(tool, dict) else None
            log = self.traffic
            event = log.info(
                f"tool {name!r} left out of tools/list: {problem}",
                "protocol",
                event="tool-left-out",
                tool=name,
            )
            log.flag(event, f"tool {name!r} cannot be called over HTTP: {problem}")
        return kept


def modern_capabilities(capabilities: dict[str, Any]) -> dict[str, Any]:
    """Client capabilities as this era spells them (roots lost `listChanged`; tasks as 2025-11-25 defines
    them are not this era's, whose servers never send requests)."""
    out = dict(capabilities)
    out.pop("tasks", None)
    if "roots" in out:
        out["roots"] = {}
    return out


def is_modern_evidence(exc: RpcError) -> bool:
    """A recognised modern error that proves the server speaks this era (never -32601/-32602).

    -32020 and -32021 are codes the spec reserved for this era (servers of the handshake era use
    -32000…-32019 for their own errors), so they say modern as surely as -32022 naming a modern revision.
    """
    if exc.error_code in (HEADER_MISMATCH, MISSING_CAPABILITY):
        return True
    if exc.error_code != UNSUPPORTED_VERSION or not isinstance(exc.data, dict):
        return False
    supported = exc.data.get("supported")
    return isinstance(supported, list) and any(v in MODERN_VERSIONS for v in supported)


def only_legacy(exc: RpcError) -> bool:
    supported = exc.data.get("supported") if isinstance(exc.data, dict) else None
    return isinstance(supported, list) and all(v in LEGACY_VERSIONS for v in supported)
