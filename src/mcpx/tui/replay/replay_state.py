"""The screen's state as of one moment of a recording: `SessionState`, `ServerInfo` and `Lists` built from
the recorded frames (the same shapes a live connection fills in, so every widget works unchanged)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mcpx.record.session import META_PREFIX
from mcpx.record.timeline import Listing, Timeline
from mcpx.tui.session_state import CAPABILITY, KINDS, ItemKind, Lists, ServerInfo, SessionState
from mcpx.wire.jsonrpc import Notification, Request, Response
from mcpx.wire.traffic import TrafficEvent

if TYPE_CHECKING:
    from mcpx.record.reader import Recording


def _result(opening: TrafficEvent | None) -> dict[str, Any]:
    message = opening.message if opening is not None else None
    result = message.result if isinstance(message, Response) else None
    return result if isinstance(result, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _server_info(result: dict[str, Any]) -> dict[str, Any]:
    meta = _dict(result.get("_meta"))
    return _dict(meta.get(META_PREFIX + "serverInfo") or result.get("serverInfo"))


def _request_params(recording: Recording, opening: TrafficEvent | None) -> dict[str, Any]:
    request = recording.log.find_request(opening) if opening is not None else None
    message = request.message if request is not None else None
    return _dict(message.params) if isinstance(message, Request) else {}


def _version(opening: TrafficEvent | None, result: dict[str, Any], params: dict[str, Any]) -> str | None:
    if opening is None:
        return None
    if opening.method == "initialize":
        version = result.get("protocolVersion")
    else:
        version = _dict(params.get("_meta")).get(META_PREFIX + "protocolVersion")
    return version if isinstance(version, str) else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def session_at(
    recording: Recording,
    timeline: Timeline,
    seq: int,
    opening: TrafficEvent | None,
    exited: TrafficEvent | None,
    tail: int,
) -> SessionState:
    """The header's and the banner's view of the recorded connection at event `seq`."""
    result = _result(opening)
    info = _server_info(result)
    params = _request_params(recording, opening)
    transport = recording.header.get("transport")
    state = SessionState(
        "connected" if opening is not None else "connecting",
        target=recording.target,
        attempt=max(len(timeline.openings), 1),
        server_name=_text(info.get("name")),
        server_version=_text(info.get("version")),
        server_title=info.get("title") if isinstance(info.get("title"), str) else None,
        era=None if opening is None else ("legacy" if opening.method == "initialize" else "modern"),
        protocol_version=_version(opening, result, params),
        transport=transport if isinstance(transport, str) else None,
    )
    if exited is None:
        return state
    if exited.facts.get("expected"):
        return replace(state, state="closed")
    code = exited.facts.get("returncode")
    log = recording.log
    stderr = [log[s].raw for s in range(max(0, exited.seq - 200), exited.seq) if log[s].channel == "stderr"]
    return replace(
        state,
        state="exited",
        returncode=code if isinstance(code, int) else None,
        error=exited.raw,
        stderr_tail=tuple(stderr[-tail:]) if tail else (),
    )


def server_info_at(recording: Recording, opening: TrafficEvent | None) -> ServerInfo | None:
    """What the Info view shows for the session opened by `opening` (None: not opened yet)."""
    if opening is None:
        return None
    log = recording.log
    result = _result(opening)
    params = _request_params(recording, opening)
    request = log.find_request(opening)
    exchange: list[tuple[str, str, str]] = []
    if request is not None:
        exchange.append((request.direction, request.method or request.kind, request.raw))
    exchange.append((opening.direction, opening.method or opening.kind, opening.raw))
    for seq in range(opening.seq + 1, min(opening.seq + 20, len(log))):
        event = log[seq]
        message = event.message
        if event.direction == "out" and isinstance(message, Notification):
            if message.method == "notifications/initialized":
                exchange.append((event.direction, message.method, event.raw))
            break
    if opening.method == "initialize":
        client_info, client_caps = _dict(params.get("clientInfo")), _dict(params.get("capabilities"))
    else:
        meta = _dict(params.get("_meta"))
        client_info = _dict(meta.get(META_PREFIX + "clientInfo"))
        client_caps = _dict(meta.get(META_PREFIX + "clientCapabilities"))
    header = recording.header
    transport: dict[str, Any] = {"recording": str(recording.path), "recorded": header.get("started")}
    transport["mcpx"] = header.get("mcpx_version")
    transport["transport"] = header.get("transport")
    transport.update(_dict(header.get("target")))
    return ServerInfo(
        instructions=result.get("instructions") if isinstance(result.get("instructions"), str) else None,
        server_info=_server_info(result),
        server_capabilities=_dict(result.get("capabilities")),
        client_info=client_info,
        client_capabilities=client_caps,
        exchange=tuple(exchange),
        transport=transport,
        notes=(f"From a recording: the session opened at event {opening.seq:,}.",),
    )


def catalog_at(
    opening: TrafficEvent | None,
    listings: tuple[Listing | None, ...],
    typed: dict[int, tuple[Any, ...]],
) -> Lists:
    """The browsers' catalogue from the opening and listings in force (`typed`: a cache of typed items)."""
    if opening is None:
        why = "The session had not opened yet at this moment of the recording."
        return Lists(unavailable=dict.fromkeys(KINDS, why))
    capabilities = _dict(_result(opening).get("capabilities"))
    items: dict[str, Any] = {}
    unavailable: dict[ItemKind, str] = {}
    for kind, listing in zip(KINDS, listings, strict=True):
        if listing is not None:
            items[kind] = _typed(kind, listing, typed)
        elif CAPABILITY[kind] not in capabilities:
            unavailable[kind] = f"The server did not declare the “{CAPABILITY[kind]}” capability."
        else:
            unavailable[kind] = "Not listed yet at this moment of the recording."
    return Lists(**items, unavailable=unavailable)


def _typed(kind: ItemKind, listing: Listing, cache: dict[int, tuple[Any, ...]]) -> tuple[Any, ...]:
    found = cache.get(listing.seq)
    if found is None:
        from mcpx.protocol.types import Prompt, Resource, ResourceTemplate, Tool, parse_list

        model: Any = {
            "tools": Tool,
            "resources": Resource,
            "resourceTemplates": ResourceTemplate,
            "prompts": Prompt,
        }
        views, _ = parse_list(model[kind], list(listing.items), kind)
        found = cache[listing.seq] = tuple(views)
    return found
