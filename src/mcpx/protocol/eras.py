"""Protocol eras as strategies behind one interface.

An era knows how to open a conversation (`open`), how to dress a request for the wire (`wrap`) and how
a result may ask the client for more before it is final (`settle`). The legacy era (2024-11-05 …
2025-11-25) opens with the `initialize` handshake, sends requests as they are and never asks for input
in a result. The modern era (2026-07-28: `server/discover`, a `_meta` envelope on every request,
`input_required` results answered by retrying) slots in here without touching the peer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from mcpx.errors import ProtocolError, RpcError, UnsupportedVersionError
from mcpx.protocol.peer import Peer
from mcpx.protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS


@dataclass(slots=True)
class ClientIdentity:
    """Who mcpx says it is, and what it can do, in this connection."""

    info: dict[str, Any]
    capabilities: dict[str, Any]


if TYPE_CHECKING:
    from mcpx.protocol.types import Implementation


@dataclass(slots=True)
class Opened:
    """What opening a conversation established."""

    era: str
    protocol_version: str
    #: the server's `Implementation` object as it came (see `server_info` for the typed view)
    server_info_raw: dict[str, Any]
    capabilities: dict[str, Any]
    instructions: str | None
    raw: dict[str, Any]
    #: sequence numbers of the traffic events of the exchange (handshake or discover)
    exchange: list[int] = field(default_factory=list)
    #: sentences worth showing: a version fallback, a spec deviation
    notes: list[str] = field(default_factory=list)

    @property
    def server_info(self) -> Implementation:
        """A typed view of the server's identity, built on first use (pydantic is not needed to connect)."""
        from mcpx.protocol.types import Implementation, parse

        return parse(Implementation, self.server_info_raw, "serverInfo")

    @property
    def server_label(self) -> str:
        name = self.server_info_raw.get("name")
        version = self.server_info_raw.get("version")
        label = name if isinstance(name, str) and name else "(unnamed)"
        return f"{label} {version}" if isinstance(version, str) and version else label


def initialize_problems(result: dict[str, Any]) -> list[str]:
    """Where an initialize result departs from its schema (checked by hand: this runs on every connect)."""
    problems = []
    if not isinstance(result.get("protocolVersion"), str):
        problems.append("initialize result.protocolVersion: a string is required")
    if not isinstance(result.get("capabilities"), dict):
        problems.append("initialize result.capabilities: an object is required")
    info = result.get("serverInfo")
    if not isinstance(info, dict):
        problems.append("initialize result.serverInfo: an object is required")
    else:
        for key in ("name", "version"):
            if not isinstance(info.get(key), str):
                problems.append(f"initialize result.serverInfo.{key}: a string is required")
    if "instructions" in result and not isinstance(result["instructions"], str):
        problems.append("initialize result.instructions: must be a string")
    return problems


#: re-send the original request with extra params (a new id each time)
Resend = Callable[[dict[str, Any]], Awaitable[Any]]
#: answer one thing the server asks (method, params) → result, with the client's handlers
Answer = Callable[[str, Any], Awaitable[Any]]
#: send a request as the client does (dressed by the era)
Send = Callable[[str, "dict[str, Any] | None"], Awaitable[Any]]


class Era(Protocol):
    """How a conversation opens, how requests are dressed, how results may ask for more."""

    @property
    def name(self) -> str:
        """legacy or modern ("auto" until it has chosen)."""
        ...

    async def open(self, peer: Peer, client: ClientIdentity, timeout: float | None) -> Opened: ...

    def wrap(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None: ...

    async def settle(
        self, method: str, params: dict[str, Any] | None, result: Any, resend: Resend, answer: Answer
    ) -> Any: ...

    async def set_log_level(self, level: str, send: Send) -> Any: ...

    async def recover(
        self, method: str, error: RpcError, resend: Resend, refresh_tools: Callable[[], Awaitable[None]]
    ) -> Any:
        """Answer an error the era knows how to correct (retrying), or raise it."""
        ...


class LegacyEra:
    """The handshake era: `initialize` → result → `notifications/initialized`."""

    name = "legacy"

    def __init__(self, version: str | None = None) -> None:
        if version is not None and version not in LEGACY_VERSIONS:
            raise UnsupportedVersionError(
                f"{version} is not a handshake-era revision (mcpx knows {', '.join(LEGACY_VERSIONS)})"
            )
        self.offered = version or LEGACY_VERSIONS[0]
        self.pinned = version is not None

    async def open(self, peer: Peer, client: ClientIdentity, timeout: float | None) -> Opened:
        notes: list[str] = []
        offered = self.offered
        params = {"protocolVersion": offered, "capabilities": client.capabilities, "clientInfo": client.info}
        try:
            event = await peer.request_event("initialize", params, timeout=timeout)
        except RpcError as exc:
            # a server may refuse our version and name the ones it supports: take the newest we share
            supported = exc.data.get("supported") if isinstance(exc.data, dict) else None
            common = [v for v in LEGACY_VERSIONS if isinstance(supported, list) and v in supported]
            if not common or self.pinned:
                raise
            notes.append(f"the server refused {offered} and supports {', '.join(map(str, supported or []))}")
            offered = common[0]
            params = {**params, "protocolVersion": offered}
            event = await peer.request_event("initialize", params, timeout=timeout)
        result = event.message.result  # type: ignore[union-attr]
        request_seq = event.request_seq if event.request_seq is not None else event.seq
        if not isinstance(result, dict):
            raise ProtocolError(f"the server answered initialize with {type(result).__name__}, not an object")
        for problem in initialize_problems(result):
            peer.traffic.flag(event, problem)
        version = result.get("protocolVersion")
        if version not in LEGACY_VERSIONS:
            hint = (
                " (a handshake-free revision, which cannot answer initialize)"
                if version in MODERN_VERSIONS
                else ""
            )
            raise UnsupportedVersionError(
                f"the server answered initialize with protocol version {version!r}{hint}; mcpx offered "
                f"{offered} and speaks {', '.join(LEGACY_VERSIONS)}",
                offered=offered,
                answered=version,
            )
        if version != offered:
            notes.append(f"mcpx offered {offered}; the server chose {version}")
        await peer.notify("notifications/initialized")
        exchange = [request_seq, event.seq, len(peer.traffic) - 1]
        capabilities = result.get("capabilities")
        return Opened(
            era="legacy",
            protocol_version=version,
            server_info_raw=info if isinstance(info := result.get("serverInfo"), dict) else {},
            capabilities=capabilities if isinstance(capabilities, dict) else {},
            instructions=result.get("instructions") if isinstance(result.get("instructions"), str) else None,
            raw=result,
            exchange=exchange,
            notes=notes,
        )

    def wrap(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        return params

    async def settle(
        self, method: str, params: dict[str, Any] | None, result: Any, resend: Resend, answer: Answer
    ) -> Any:
        return result  # the handshake era asks through server→client requests, never in a result

    async def set_log_level(self, level: str, send: Send) -> Any:
        return await send("logging/setLevel", {"level": level})

    async def recover(
        self, method: str, error: RpcError, resend: Resend, refresh_tools: Callable[[], Awaitable[None]]
    ) -> Any:
        raise error
