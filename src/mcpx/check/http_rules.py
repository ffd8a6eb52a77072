"""Streamable HTTP: what a server must refuse (a foreign Origin, a rebound Host, a body that is not JSON,
headers that disagree with the body), and how its sessions end (legacy era).

Each check sends hand-made requests beside the open connection (`http_probe`), so the exchange shows in
that connection's traffic log. The probes are the ones standardbeagle/mcp-tui's `verify` runs and the
official conformance suite's `dns-rebinding-protection`, `server-session-lifecycle` and
`http-header-validation` scenarios make; docs/check.md compares the verdicts.
"""

from __future__ import annotations

import itertools
from typing import Any

import httpx

from mcpx.check.context import CheckContext
from mcpx.check.http_probe import (
    FOREIGN_HOST,
    FOREIGN_ORIGIN,
    Probe,
    headers_for,
    http_of,
    probe,
    request_text,
    require_http,
)
from mcpx.check.model import Outcome, Skip, broken, check, held
from mcpx.check.session import Session
from mcpx.protocol.modern import META_VERSION
from mcpx.protocol.versions import LEGACY_VERSIONS

SPEC = "https://modelcontextprotocol.io/specification"
LEGACY_HTTP = f"{SPEC}/2025-11-25/basic/transports"
MODERN_HTTP = f"{SPEC}/2026-07-28/basic/transports/streamable-http"
HEADER_MISMATCH = -32020
UNKNOWN_TOOL = "mcpx-check-no-such-tool"
_ids = itertools.count(1)


def _rid(name: str) -> str:
    return f"mcpx-check-{name}-{next(_ids)}"


async def _http_session(ctx: CheckContext, era: str = "any") -> Session:
    if ctx.spec.url is None:
        raise Skip("applies to HTTP servers only")
    session = await (ctx.main_session() if era == "any" else ctx.session(era))
    require_http(session)
    return session


def _harmless(session: Session, name: str) -> tuple[str, str, Any]:
    """A request every server of the session's era answers, as (body, method, params)."""
    method = "server/discover" if session.era == "modern" else "ping"
    params = session.wrap(method, None)
    return request_text(method, params, _rid(name)), method, params


async def _send(ctx: CheckContext, session: Session, name: str, **bent: str | None) -> tuple[Probe, Probe]:
    """The harmless request with some headers bent, and the same request as mcpx sends it (the control:
    it shows the server would have answered had nothing been bent)."""
    body, method, params = _harmless(session, name)
    headers: dict[str, str | None] = {**headers_for(session, method, params), **bent}
    bad = await probe(session, body, headers, timeout=ctx.options.timeout)
    body, method, params = _harmless(session, f"{name}-control")
    good = await probe(session, body, headers_for(session, method, params), timeout=ctx.options.timeout)
    return bad, good


def _control_failed(good: Probe) -> str | None:
    if good.answered and good.frames:
        return None
    return f"the same request with mcpx's own headers was not answered either ({good.describe()})"


@check(
    "http.origin",
    "A request with a foreign Origin is refused with 403",
    level="MUST",
    rule="""Streamable HTTP, Security: "Servers MUST validate the Origin header on all incoming connections
    to prevent DNS rebinding attacks. If the Origin header is present and invalid, servers MUST respond
    with HTTP 403 Forbidden." """,
    source=f"{MODERN_HTTP}#security-%26-endpoint",
    transports=("http",),
)
async def origin(ctx: CheckContext) -> Outcome:
    session = await _http_session(ctx)
    bad, good = await _send(ctx, session, "origin", Origin=FOREIGN_ORIGIN)
    if bad.status == 403:
        return held(f"Origin: {FOREIGN_ORIGIN} was refused with HTTP 403", bad.ref)
    if (why := _control_failed(good)) is not None:
        raise Skip(why)
    if bad.rejected:
        return broken(
            f"Origin: {FOREIGN_ORIGIN} was refused with HTTP {bad.status}, not 403 Forbidden", bad.ref
        )
    return broken(f"Origin: {FOREIGN_ORIGIN} was accepted: {bad.describe()}", bad.ref)


def _loopback(url: str) -> bool:
    host = httpx.URL(url).host.lower()
    return host in ("localhost", "::1", "[::1]") or host.startswith("127.")


@check(
    "http.host",
    "A local server refuses a request whose Host is not its own (DNS rebinding)",
    level="SHOULD",
    rule="""Streamable HTTP, Security: servers validate incoming connections "to prevent DNS rebinding
    attacks … Without these protections, attackers could use DNS rebinding to interact with local MCP
    servers from remote websites." A rebound request carries the attacker's name in Host; the spec's MUST
    names only Origin, so mcpx holds the Host rule as a SHOULD (the conformance suite's
    dns-rebinding-protection scenario sends both at once).""",
    source=f"{SPEC}/2025-11-25/basic/security_best_practices#local-mcp-server-compromise",
    transports=("http",),
)
async def host(ctx: CheckContext) -> Outcome:
    session = await _http_session(ctx)
    if not _loopback(require_http(session).url):
        raise Skip("the server is not on this machine (DNS rebinding is an attack on local servers)")
    bad, good = await _send(ctx, session, "host", Host=FOREIGN_HOST)
    if bad.rejected:
        return held(f"Host: {FOREIGN_HOST} was refused with HTTP {bad.status}", bad.ref)
    if (why := _control_failed(good)) is not None:
        raise Skip(why)
    return broken(f"Host: {FOREIGN_HOST} was accepted: {bad.describe()}", bad.ref)


@check(
    "http.content-type",
    "A POST whose Content-Type is not JSON is refused",
    level="SHOULD",
    rule="""Streamable HTTP: "The body of the POST request MUST be a single JSON-RPC request, notification,
    or response" — sent with Content-Type: application/json. RFC 9110 §15.5.16: "The 415 (Unsupported Media
    Type) status code indicates that the origin server is refusing to service the request because the
    content is in a format not supported by this method" (mcp-tui's verify probes this; no MUST in MCP,
    so a SHOULD).""",
    source=f"{LEGACY_HTTP}#sending-messages-to-the-server",
    transports=("http",),
)
async def content_type(ctx: CheckContext) -> Outcome:
    session = await _http_session(ctx)
    bad, good = await _send(ctx, session, "content-type", **{"Content-Type": "text/plain"})
    if bad.rejected:
        return held(f"Content-Type: text/plain was refused with HTTP {bad.status}", bad.ref)
    if (why := _control_failed(good)) is not None:
        raise Skip(why)
    return broken(f"Content-Type: text/plain was accepted: {bad.describe()}", bad.ref)


# -- sessions (legacy era) -----------------------------------------------------------------------------
SESSION_RULE = """Streamable HTTP 2025-11-25, Session Management: "The server MAY terminate the session at
any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found." """


@check(
    "http.session-unknown",
    "A request with a session id the server never issued gets 404",
    level="MUST",
    rule=SESSION_RULE
    + """ A session id the server does not know is one it has terminated or never began: the client takes
    the 404 as its cue to start a new session.""",
    source=f"{LEGACY_HTTP}#session-management",
    era="legacy",
    transports=("http",),
)
async def session_unknown(ctx: CheckContext) -> Outcome:
    session = await _http_session(ctx, "legacy")
    if require_http(session).session_id is None:
        raise Skip("the server issues no session id (a stateless server)")
    bad, good = await _send(ctx, session, "session", **{"Mcp-Session-Id": "mcpx-check-unknown-session"})
    if bad.status == 404:
        return held("an unknown session id got HTTP 404", bad.ref)
    if (why := _control_failed(good)) is not None:
        raise Skip(why)
    return broken(f"an unknown session id got {bad.describe()}, not HTTP 404", bad.ref)


@check(
    "http.session-delete",
    "DELETE ends a session: later requests with its id get 404",
    level="MUST",
    rule=SESSION_RULE
    + """ "Clients that no longer need a particular session … SHOULD send an HTTP DELETE to the MCP endpoint
    with the Mcp-Session-Id header, to explicitly terminate the session. The server MAY respond to this
    request with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to
    terminate sessions." """,
    source=f"{LEGACY_HTTP}#session-management",
    era="legacy",
    transports=("http",),
)
async def session_delete(ctx: CheckContext) -> Outcome:
    session = await _http_session(ctx, "legacy")
    if require_http(session).session_id is None:
        raise Skip("the server issues no session id (a stateless server)")
    base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    params = {
        "protocolVersion": session.version or LEGACY_VERSIONS[0],
        "capabilities": {},
        "clientInfo": {"name": "mcpx-check", "version": "0"},
    }
    opened = await probe(session, request_text("initialize", params, _rid("session-delete")), base)
    sid = opened.headers.get("mcp-session-id")
    if not opened.answered or not sid:
        raise Skip(f"a second session could not be opened ({opened.describe()})")
    version = session.version or LEGACY_VERSIONS[0]
    ours = {**base, "Mcp-Session-Id": sid, "MCP-Protocol-Version": version}
    note = '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    ready = await probe(session, note, ours)
    deleted = await probe(
        session, None, {"Mcp-Session-Id": sid, "MCP-Protocol-Version": version}, verb="DELETE"
    )
    if deleted.status == 405:
        raise Skip(
            "the server does not let clients end sessions (DELETE answered 405, which the spec allows)"
        )
    after = await probe(session, request_text("ping", None, _rid("session-deleted")), ours)
    refs = (opened.ref, ready.ref, deleted.ref, after.ref)
    if after.status == 404:
        return held(f"DELETE answered HTTP {deleted.status}; the next request got 404", *refs)
    if deleted.status is None or not 200 <= deleted.status < 300:
        return broken(f"DELETE of the session got {deleted.describe()}, and the session goes on", *refs)
    return broken(
        f"after DELETE ({deleted.describe()}) a request with the session got {after.describe()}", *refs
    )


# -- request headers (modern era) ------------------------------------------------------------------------
MISMATCH_RULE = """Streamable HTTP 2026-07-28, Server Validation: "Servers that process the request body
MUST reject requests where the values specified in the headers do not match the corresponding values in the
request body … When rejecting a request due to header validation failure, servers MUST return HTTP status
400 Bad Request and SHOULD include a JSON-RPC error response" with code -32020 (HeaderMismatch)."""


async def _mismatches(ctx: CheckContext) -> list[tuple[str, Probe, Probe]]:
    """Each bent header with its probe and its control, on the modern connection."""
    session = await _http_session(ctx, "modern")
    out = []
    # as the conformance suite bends it: the header names the connection's version, `_meta` another (a
    # dual-era server may fairly route a request whose header names a handshake version to its legacy side)
    params = session.wrap("server/discover", None) or {}
    headers = headers_for(session, "server/discover", params)
    bent = {**params, "_meta": {**params.get("_meta", {}), META_VERSION: "2099-12-31"}}
    bad = await probe(session, request_text("server/discover", bent, _rid("version-header")), headers)
    good = await probe(
        session, request_text("server/discover", params, _rid("version-header-control")), headers
    )
    out.append((f"MCP-Protocol-Version {session.version} against _meta's 2099-12-31", bad, good))
    method_bad, method_good = await _send(ctx, session, "method-header", **{"Mcp-Method": "tools/list"})
    out.append(("Mcp-Method tools/list against the body's server/discover", method_bad, method_good))
    if ctx.advertised("tools"):
        call = session.wrap("tools/call", {"name": UNKNOWN_TOOL, "arguments": {}})
        body = request_text("tools/call", call, _rid("name-header"))
        headers = headers_for(session, "tools/call", call)
        bad = await probe(session, body, {**headers, "Mcp-Name": "mcpx-check-other-tool"})
        body = request_text("tools/call", call, _rid("name-header-control"))
        good = await probe(session, body, headers)
        out.append((f"Mcp-Name mcpx-check-other-tool against the body's {UNKNOWN_TOOL}", bad, good))
    return out


def _refused(bad: Probe, good: Probe) -> bool:
    """Refused for the mismatch: HTTP 400, and not the answer the same request gets with true headers."""
    if bad.status != 400:
        return False
    return bad.code == HEADER_MISMATCH or (good.status, good.code) != (bad.status, bad.code)


@check(
    "http.header-mismatch",
    "Mcp-Method, Mcp-Name and MCP-Protocol-Version that disagree with the body are refused with 400",
    level="MUST",
    rule=MISMATCH_RULE,
    source=f"{MODERN_HTTP}#server-validation",
    era="modern",
    transports=("http",),
)
async def header_mismatch(ctx: CheckContext) -> Outcome:
    found = await _mismatches(ctx)
    let_through = [(what, bad) for what, bad, good in found if not _refused(bad, good)]
    if let_through:
        what, bad = let_through[0]
        more = f" (and {len(let_through) - 1} more)" if len(let_through) > 1 else ""
        return broken(f"{what}: {bad.describe()}, not HTTP 400{more}", *(b.ref for _, b in let_through))
    names = ", ".join(what.split(" ", 1)[0] for what, _, _ in found)
    return held(f"{names} mismatches were refused with HTTP 400", *(bad.ref for _, bad, _ in found))


@check(
    "http.header-mismatch-code",
    "A header mismatch is answered with JSON-RPC error -32020 (HeaderMismatch)",
    level="SHOULD",
    rule=MISMATCH_RULE,
    source=f"{MODERN_HTTP}#server-validation",
    era="modern",
    transports=("http",),
)
async def header_mismatch_code(ctx: CheckContext) -> Outcome:
    found = [(what, bad) for what, bad, good in await _mismatches(ctx) if bad.status == 400]
    if not found:
        raise Skip("no header mismatch was refused with HTTP 400; see http.header-mismatch")
    wrong = [(what, bad) for what, bad in found if bad.code != HEADER_MISMATCH]
    if wrong:
        what, bad = wrong[0]
        return broken(f"{what}: {bad.describe()}, not -32020", *(b.ref for _, b in wrong))
    return held(f"all {len(found)} refusals carry -32020", *(bad.ref for _, bad in found))


__all__ = ["http_of"]
