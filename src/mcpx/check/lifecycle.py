"""Lifecycle in both eras: the handshake and `ping` (legacy); `server/discover`, version errors, the `_meta`
envelope and what every result carries (modern, 2026-07-28)."""

from __future__ import annotations

from typing import Any

from mcpx.check.context import CheckContext
from mcpx.check.model import Outcome, Skip, broken, check, held
from mcpx.check.session import Session
from mcpx.protocol.modern import META_CAPABILITIES, META_CLIENT, META_SERVER, META_VERSION
from mcpx.protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS
from mcpx.wire import Request, Response, TrafficEvent

SPEC = "https://modelcontextprotocol.io/specification"
LIFECYCLE = f"{SPEC}/2025-11-25/basic/lifecycle"
BASIC = f"{SPEC}/2026-07-28/basic"
UNKNOWN_VERSION = "2099-12-31"
CACHEABLE = (
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
)
RESULT_TYPES = ("complete", "input_required")


def _client_info() -> dict[str, Any]:
    from mcpx.__about__ import __version__

    return {"name": "mcpx-check", "version": __version__}


def _initialize(version: str) -> dict[str, Any]:
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": _client_info()}


# -- legacy -------------------------------------------------------------------------------------------
@check(
    "legacy.initialize",
    "initialize answers with a protocol version, capabilities and serverInfo",
    level="MUST",
    rule="""MCP lifecycle: "The server MUST respond with its own capabilities and information" —
    InitializeResult requires protocolVersion, capabilities and serverInfo (name, version).""",
    source=f"{LIFECYCLE}#initialization",
    era="legacy",
)
async def legacy_initialize(ctx: CheckContext) -> Outcome:
    session = await ctx.session("legacy")
    assert session.client is not None and session.client.opened is not None
    opened = session.client.opened
    result = opened.raw
    problems = []
    if result.get("protocolVersion") not in LEGACY_VERSIONS:
        problems.append(f"protocolVersion {result.get('protocolVersion')!r} is not a handshake-era revision")
    if not isinstance(result.get("capabilities"), dict):
        problems.append("capabilities is not an object")
    info = result.get("serverInfo")
    if not isinstance(info, dict):
        problems.append("serverInfo is missing")
    else:
        problems += [
            f"serverInfo.{k} is not a string" for k in ("name", "version") if not isinstance(info.get(k), str)
        ]
    ref = session.ref(*(session.log[s] for s in opened.exchange[:2]))
    if problems:
        return broken("; ".join(problems), ref)
    return held(f"{result['protocolVersion']}, server {info['name']} {info['version']}", ref)  # type: ignore[index]


@check(
    "legacy.version-negotiation",
    "initialize offering an unknown version is answered with a version the server supports",
    level="MUST",
    rule="""MCP lifecycle, Version Negotiation: "If the server supports the requested protocol version, it
    MUST
    respond with the same version. Otherwise, the server MUST respond with another protocol version it
    supports." """,
    source=f"{LIFECYCLE}#version-negotiation",
    era="legacy",
    fresh=1,
)
async def legacy_version_negotiation(ctx: CheckContext) -> Outcome:
    await ctx.session("legacy")  # skips when the server does not speak this era
    session = await ctx.fresh()
    reply = await session.ask("initialize", _initialize(UNKNOWN_VERSION))
    if reply.ok:
        await session.notify("notifications/initialized")
    answered = reply.result.get("protocolVersion") if isinstance(reply.result, dict) else None
    if reply.ok and answered in LEGACY_VERSIONS:
        return held(f"offered {UNKNOWN_VERSION}, the server answered {answered}", reply.ref)
    if reply.ok:
        return broken(
            f"offered {UNKNOWN_VERSION}, the server answered {answered!r}, not a handshake-era revision",
            reply.ref,
        )
    return broken(
        f"offered {UNKNOWN_VERSION}, the server answered {reply.describe()} instead of a version it supports",
        reply.ref,
    )


@check(
    "legacy.before-initialize",
    "A request before initialize is answered, and initialize still works after it",
    level="MUST",
    rule="""JSON-RPC 2.0 §4: "When a rpc call is made, the Server MUST reply with a Response, except for in
    the case of Notifications." (MCP lifecycle: "The client SHOULD NOT send requests other than pings before
    the server has responded to the initialize request" — clients do anyway; a result or an error are both
    fine answers, silence or an exit are not.)""",
    source=f"{LIFECYCLE}#initialization",
    era="legacy",
    fresh=1,
    warns="""JSON-RPC strictness hosts do not lean on: a legacy host sends initialize first, and the
    2026-07-28 compatibility matrix expects a legacy server to "reject the request with an
    implementation-defined error, stay silent, or even process" a modern client's first request.""",
)
async def before_initialize(ctx: CheckContext) -> Outcome:
    await ctx.session("legacy")
    session = await ctx.fresh()
    early = await session.ask("tools/list")
    if early.response is None:
        what = "the server exited" if not session.alive else f"no answer ({early.describe()})"
        return broken(f"tools/list before initialize: {what}", early.ref)
    late = await session.ask("initialize", _initialize(LEGACY_VERSIONS[0]))
    if not late.ok:
        return broken(
            f"tools/list before initialize got {early.describe()}, then initialize got {late.describe()}",
            early.ref,
            late.ref,
        )
    await session.notify("notifications/initialized")
    return held(
        f"tools/list before initialize got {early.describe()}; initialize then worked", early.ref, late.ref
    )


@check(
    "legacy.ping",
    "ping is answered promptly with an empty result",
    level="MUST",
    rule="""MCP ping: "The receiver MUST respond promptly with an empty response" ({"jsonrpc": "2.0", "id":
    …, "result": {}}).""",
    source=f"{SPEC}/2025-11-25/basic/utilities/ping",
    era="legacy",
)
async def ping(ctx: CheckContext) -> Outcome:
    session = await ctx.session("legacy")
    reply = await session.ask("ping", timeout=min(ctx.options.timeout, 5.0))
    if not reply.ok:
        return broken(f"ping was answered with {reply.describe()}", reply.ref)
    extra = [k for k in reply.result if k != "_meta"] if isinstance(reply.result, dict) else None
    if extra is None:
        return broken(f"ping was answered with {type(reply.result).__name__}, not an empty object", reply.ref)
    if extra:
        return broken(f"ping result is not empty: {', '.join(extra)}", reply.ref)
    return held("answered {}", reply.ref)


# -- modern -------------------------------------------------------------------------------------------
@check(
    "modern.discover",
    "server/discover lists the supported versions and the capabilities",
    level="MUST",
    rule="""MCP 2026-07-28: "Servers MUST implement server/discover." DiscoverResult: "supportedVersions:
    Protocol versions the server supports … capabilities: Capabilities the server supports". """,
    source=f"{SPEC}/2026-07-28/server/discover",
    era="modern",
)
async def discover(ctx: CheckContext) -> Outcome:
    session = await ctx.session("modern")
    reply = await session.ask("server/discover")
    if not reply.ok or not isinstance(reply.result, dict):
        return broken(f"server/discover answered {reply.describe()}", reply.ref)
    result = reply.result
    problems = []
    versions = result.get("supportedVersions")
    if not isinstance(versions, list) or not versions or not all(isinstance(v, str) for v in versions):
        problems.append(f"supportedVersions is {versions!r}, not a non-empty list of strings")
    elif not any(v in MODERN_VERSIONS for v in versions):
        problems.append(f"supportedVersions {versions} names no modern revision")
    if not isinstance(result.get("capabilities"), dict):
        problems.append("capabilities is not an object")
    if problems:
        return broken("; ".join(problems), reply.ref)
    return held(f"supportedVersions {versions}", reply.ref)


@check(
    "modern.version-negotiation",
    "A request at an unknown protocol version gets -32022 with the supported versions",
    level="MUST",
    rule="""MCP 2026-07-28 versioning: "If the server does not implement the requested version (whether the
    version is unknown to the server, or is a known version the server has chosen not to support), it MUST
    respond with an UnsupportedProtocolVersionError listing the versions it does support" (code -32022,
    data: {supported, requested}).""",
    source=f"{BASIC}/versioning#protocol-version-negotiation",
    era="modern",
)
async def modern_version_negotiation(ctx: CheckContext) -> Outcome:
    session = await ctx.session("modern")
    params = session.wrap("server/discover", None) or {}
    params["_meta"] = {**params.get("_meta", {}), META_VERSION: UNKNOWN_VERSION}
    reply = await session.ask("server/discover", params, envelope=False)
    error = reply.error
    if error is None:
        return broken(
            f"a request at {UNKNOWN_VERSION} was answered with {reply.describe()}, not -32022", reply.ref
        )
    if error.code != -32022:
        return broken(f"a request at {UNKNOWN_VERSION} got error {error.code}, not -32022", reply.ref)
    data = error.data if isinstance(error.data, dict) else {}
    supported = data.get("supported")
    if not isinstance(supported, list) or not supported or not all(isinstance(v, str) for v in supported):
        return broken(f"-32022 data.supported is {supported!r}, not a non-empty list of versions", reply.ref)
    if not isinstance(data.get("requested"), str):
        return broken("-32022 data has no requested version", reply.ref)
    return held(f"-32022 listing {supported}", reply.ref)


ENVELOPE_RULE = """MCP 2026-07-28: fields marked as required (io.modelcontextprotocol/protocolVersion,
io.modelcontextprotocol/clientCapabilities) "MUST be included on every request … A request missing any
required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params)."
Versioning: "A dual-era server selects its behavior from how the client opens: A request carrying modern
per-request _meta is served statelessly according to this revision. An initialize request selects legacy
semantics" — so a request with no _meta at all is not a modern request to a server that also speaks the
legacy era (it may answer it as a legacy server answers a request before initialize). mcpx therefore
holds every server to -32602 for a _meta that names the modern version but lacks clientCapabilities, and
only a modern-only server to -32602 for a request with no _meta."""


@check(
    "modern.envelope-required",
    "A request whose _meta envelope lacks a required field is rejected with -32602",
    level="MUST",
    rule=ENVELOPE_RULE,
    source=f"{BASIC}#meta",
    era="modern",
)
async def envelope_required(ctx: CheckContext) -> Outcome:
    session = await ctx.session("modern")
    partial = {"_meta": {META_VERSION: session.version, META_CLIENT: _client_info()}}
    half = await session.ask("server/discover", partial, envelope=False)
    if half.error is None or half.error.code != -32602:
        return broken(
            f"server/discover with _meta without {META_CAPABILITIES} was answered with {half.describe()}, "
            "not -32602",
            half.ref,
        )
    bare = await session.ask("server/discover", {}, envelope=False)
    if bare.error is not None and bare.error.code == -32602:
        return held(f"-32602 for no _meta and for _meta without {META_CAPABILITIES}", half.ref, bare.ref)
    if await ctx.speaks("legacy"):
        why = "the server speaks the legacy era too, so a request with no _meta is not a modern one"
    elif ctx.era_ruled_out("legacy"):
        why = "with --protocol-era modern mcpx does not know whether the server speaks the legacy era too"
    else:
        return broken(
            f"a modern-only server answered server/discover with no _meta with {bare.describe()}, not -32602",
            bare.ref,
        )
    return held(
        f"-32602 for _meta without {META_CAPABILITIES}; no _meta at all got {bare.describe()}, not judged: "
        + why,
        half.ref,
        bare.ref,
    )


@check(
    "modern.initialize-refusal",
    "A modern-only server names its supported versions when it refuses initialize",
    level="SHOULD",
    rule="""MCP 2026-07-28 versioning: "A server that supports only modern versions SHOULD name the protocol
    versions it supports in any error it returns to an initialize request, on any transport: legacy
    clients have no fall-forward mechanism, and this message may be the only diagnostic they can surface
    to users." """,
    source=f"{BASIC}/versioning#backward-compatibility-with-initialization-based-versions",
    era="modern",
)
async def initialize_refusal(ctx: CheckContext) -> Outcome:
    await ctx.session("modern")
    if await ctx.speaks("legacy"):
        raise Skip("the server answers initialize: it speaks the legacy era too")
    session = await ctx.fresh()
    reply = await session.ask("initialize", _initialize(LEGACY_VERSIONS[0]))
    if reply.ok:
        raise Skip("the server answers initialize: it speaks the legacy era too")
    if reply.error is None:
        return broken(
            f"initialize was answered with {reply.describe()}, not an error naming versions", reply.ref
        )
    data = reply.error.data if isinstance(reply.error.data, dict) else {}
    supported = data.get("supported")
    if isinstance(supported, list) and supported and all(isinstance(v, str) for v in supported):
        return held(f"initialize refused with error {reply.error.code}, supported {supported}", reply.ref)
    named = [v for v in MODERN_VERSIONS if v in reply.error.message]
    if named:
        return held(f"initialize refused with error {reply.error.code}, naming {', '.join(named)}", reply.ref)
    return broken(f"initialize refused with error {reply.error.code} naming no supported version", reply.ref)


def _modern_results(session: Session) -> list[tuple[TrafficEvent, TrafficEvent, dict[str, Any]]]:
    """(request, response, result) for every answered request that carried this session's full envelope."""
    found = []
    for event in session.log:
        if event.direction != "in" or not isinstance(event.message, Response) or event.request_seq is None:
            continue
        request = session.log[event.request_seq]
        params = request.message.params if isinstance(request.message, Request) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if (
            not isinstance(meta, dict)
            or meta.get(META_VERSION) != session.version
            or META_CAPABILITIES not in meta
        ):
            continue
        result = event.message.result
        found.append((request, event, result if isinstance(result, dict) else {"": result}))
    return found


async def _sweep(
    ctx: CheckContext,
) -> tuple[Session, list[tuple[TrafficEvent, TrafficEvent, dict[str, Any]]]]:
    session = await ctx.session("modern")
    results = _modern_results(session)
    if not results:
        raise Skip("no results on the modern connection to look at")
    return session, results


@check(
    "modern.result-type",
    'Every result carries resultType "complete" or "input_required"',
    level="MUST",
    rule="""MCP 2026-07-28: "The result MUST include a resultType field to indicate the type of the result."
    ("complete", "input_required", or a value of an extension the server advertises)""",
    source=f"{BASIC}#responses",
    era="modern",
    final=True,
)
async def result_type(ctx: CheckContext) -> Outcome:
    session, results = await _sweep(ctx)
    assert session.client is not None
    extensions = session.client.server_capabilities.get("extensions")
    allowed = (*RESULT_TYPES, *(["task"] if isinstance(extensions, dict) and extensions else []))
    bad = [(q, r, res.get("resultType")) for q, r, res in results if res.get("resultType") not in allowed]
    if bad:
        request, response, value = bad[0]
        what = "no resultType" if value is None else f"resultType {value!r}"
        return broken(
            f"{len(bad)} of {len(results)} results lack a valid resultType; "
            f"first: {request.method} with {what}",
            session.ref(request, response),
        )
    return held(f"all {len(results)} results carry resultType")


@check(
    "modern.cache-hints",
    "Cacheable results carry ttlMs (≥ 0) and cacheScope",
    level="MUST",
    rule="""MCP 2026-07-28 caching: "Servers MUST include caching hints on results with resultType:
    "complete" returned by the following operations: server/discover, tools/list, prompts/list,
    resources/list, resources/templates/list, resources/read" and "Servers MUST provide a ttlMs value that is
    >= 0"; cacheScope is "public" or "private".""",
    source=f"{SPEC}/2026-07-28/server/utilities/caching",
    era="modern",
    final=True,
)
async def cache_hints(ctx: CheckContext) -> Outcome:
    session, results = await _sweep(ctx)
    cacheable = [
        (q, r, res)
        for q, r, res in results
        if q.method in CACHEABLE and res.get("resultType", "complete") == "complete"
    ]
    if not cacheable:
        raise Skip("no cacheable results on the modern connection to look at")
    for request, response, result in cacheable:
        ttl, scope = result.get("ttlMs"), result.get("cacheScope")
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl < 0:
            return broken(f"{request.method} result has ttlMs {ttl!r}", session.ref(request, response))
        if scope not in ("public", "private"):
            return broken(f"{request.method} result has cacheScope {scope!r}", session.ref(request, response))
    return held(f"all {len(cacheable)} cacheable results carry ttlMs and cacheScope")


@check(
    "modern.server-info",
    f'Every result names the server in _meta["{META_SERVER}"]',
    level="SHOULD",
    rule=f"""MCP 2026-07-28: "Servers SHOULD include the following io.modelcontextprotocol/* field in every
    result's _meta, unless specifically configured not to do so" — {META_SERVER} (Implementation: name,
    version).""",
    source=f"{BASIC}#meta",
    era="modern",
    final=True,
)
async def server_info(ctx: CheckContext) -> Outcome:
    session, results = await _sweep(ctx)
    for request, response, result in results:
        meta = result.get("_meta")
        info = meta.get(META_SERVER) if isinstance(meta, dict) else None
        if (
            not isinstance(info, dict)
            or not isinstance(info.get("name"), str)
            or not isinstance(info.get("version"), str)
        ):
            return broken(
                f"{request.method} result has no {META_SERVER} with name and version",
                session.ref(request, response),
            )
    return held(f"all {len(results)} results name the server")
