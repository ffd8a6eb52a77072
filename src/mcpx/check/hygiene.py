"""JSON-RPC hygiene: what even a minimal stdio server is expected to get right."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from mcpx.check.calls import eligible, read_only
from mcpx.check.context import CheckContext
from mcpx.check.http_probe import headers_for, http_of, probe
from mcpx.check.model import Outcome, Skip, broken, check, held
from mcpx.check.session import Reply, Session, raw_object
from mcpx.errors import McpxError
from mcpx.wire import ErrorResponse, JsonId, Malformed, TrafficEvent

JSONRPC = "https://www.jsonrpc.org/specification"
STDIO = "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio"
TOOL_ERRORS = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling"
HTTP_NOTIFICATION = (
    "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server"
)
GARBAGE = "mcpx check: this line is not JSON {"
UNKNOWN_METHOD = "mcpx/check-unknown-method"
UNKNOWN_TOOL = "mcpx-check-no-such-tool"
#: ids to echo exactly, each with its JSON type: strings (non-ASCII, escapes, empty, and ones that look like
#: numbers), zero, negative, the largest safe integer
IDS: tuple[JsonId, ...] = ("mcpx-check-id", 'ü "quoted" \\ id', "", "42", "-7", 0, -1, 2**53 - 1)
#: integers beyond what a double holds exactly: legal JSON-RPC ids, lost by servers that parse JSON as doubles
LARGE_IDS: tuple[JsonId, ...] = (2**53 + 1, 2**63 - 1, -(2**53) - 1)


def _short(ctx: CheckContext) -> float:
    """How long to wait for answers that a broken server never sends (ping and discover are quick)."""
    return min(ctx.options.timeout, 5.0)


def _unasked(session: Session, since: int, *skip: TrafficEvent | None) -> list[TrafficEvent]:
    """Frames since `since` that look like replies (a result or an error member) and answer no request."""
    found = []
    for event in session.incoming(since):
        if event in skip or event.request_seq is not None:
            continue
        obj = raw_object(event)
        if isinstance(obj, dict) and ("result" in obj or "error" in obj):
            found.append(event)
    return found


@check(
    "jsonrpc.parse-error",
    "A line that is not JSON gets -32700 with id null",
    level="MUST",
    rule="""JSON-RPC 2.0 §5.1: "-32700 Parse error: Invalid JSON was received by the server." §5: "id … If
    there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST
    be Null." (mcpx breaks the client's own rule on purpose here: the client MUST NOT write anything that is
    not a valid MCP message.)""",
    source=f"{JSONRPC}#error_object",
    warns="""JSON-RPC strictness no host leans on: a host writes only JSON, and the official Python and
    TypeScript SDKs answer nothing to such a line on stdio themselves.""",
    isolated=True,
)
async def parse_error(ctx: CheckContext) -> Outcome:
    session = await ctx.main_session()
    if http_of(session) is not None:
        return await _parse_error_http(ctx, session)
    mark = session.mark()
    sent = await session.send_raw(GARBAGE)
    follow = await ctx.harmless(session, timeout=_short(ctx))
    await session.settle(ctx.options.quiet)
    for event in _unasked(session, mark, follow.response):
        obj = raw_object(event) or {}
        error = obj.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        if code != -32700:
            return broken(
                f"the line was answered with error {code!r}, not -32700 (Parse error)",
                session.ref(sent, event),
            )
        if "id" not in obj:
            return broken(
                'the -32700 answer has no "id" member; it must be "id": null', session.ref(sent, event)
            )
        if obj["id"] is not None:
            return broken(
                f"the -32700 answer has id {obj['id']!r}; it must be null", session.ref(sent, event)
            )
        return held("answered -32700 with id null", session.ref(sent, event))
    if follow.failure is not None and not session.alive and not session.extra.get("silent"):
        return broken("the server exited after a line that was not JSON", session.ref(sent), follow.ref)
    if follow.failure is not None:
        return broken(
            f"no answer to a line that was not JSON, and then none to {follow.method} either: the server "
            "stopped answering",
            session.ref(sent),
            follow.ref,
        )
    return broken(
        "no answer to a line that was not JSON (expected -32700 with id null)", session.ref(sent), follow.ref
    )


async def _parse_error_http(ctx: CheckContext, session: Session) -> Outcome:
    """Over HTTP the line is a POST body; its answer is the POST's reply (any status)."""
    sent = await probe(session, GARBAGE, headers_for(session, None, None), timeout=ctx.options.timeout)
    error = sent.error
    if sent.failure is not None:
        return broken(f"a POST whose body is not JSON got {sent.describe()}", sent.ref)
    if error is None:
        return broken(
            f"a POST whose body is not JSON got {sent.describe()}, not -32700 with id null", sent.ref
        )
    frame = next(f for f in sent.frames if isinstance(f, dict) and f.get("error") is error)
    if error.get("code") != -32700:
        return broken(f"a POST whose body is not JSON got {sent.describe()}, not -32700", sent.ref)
    if "id" not in frame or frame["id"] is not None:
        shown = repr(frame["id"]) if "id" in frame else "no id member"
        return broken(f'the -32700 answer has {shown}; it must be "id": null', sent.ref)
    return held(f"HTTP {sent.status} with -32700 and id null", sent.ref)


@check(
    "jsonrpc.method-not-found",
    "An unknown method gets -32601",
    level="MUST",
    rule="""JSON-RPC 2.0 §5: "When a rpc call encounters an error, the Response Object MUST contain the error
    member"; §5.1: "-32601 Method not found: The method does not exist / is not available." """,
    source=f"{JSONRPC}#error_object",
    isolated=True,
)
async def method_not_found(ctx: CheckContext) -> Outcome:
    session = await ctx.main_session()
    # the full timeout: on a connection of its own, silence is this rule's finding, not a slow machine's
    reply = await session.ask(UNKNOWN_METHOD, timeout=ctx.options.timeout)
    if reply.error is not None and reply.error.code == -32601:
        return held("answered -32601", reply.ref)
    if reply.ok:
        return broken(f"{UNKNOWN_METHOD} was answered with a result", reply.ref)
    return broken(f"{UNKNOWN_METHOD} was answered with {reply.describe()}, not -32601", reply.ref)


@check(
    "jsonrpc.notification-no-reply",
    "A notification gets no reply of any kind",
    level="MUST",
    rule="""JSON-RPC 2.0 §4.1: "The Server MUST NOT reply to a Notification." MCP: "Notifications … The
    receiver MUST NOT send a response." Over Streamable HTTP the POST of a notification is answered "HTTP
    status code 202 Accepted with no body", or, when the server cannot accept it, "an HTTP error status
    code (e.g., 400 Bad Request). The HTTP response body MAY comprise a JSON-RPC error response that has no
    id" — that error is allowed.""",
    source=f"{JSONRPC}#notification",
    isolated=True,
)
async def notification_no_reply(ctx: CheckContext) -> Outcome:
    session = await ctx.main_session()
    mark = session.mark()
    # an unknown notification, and a known request method sent as a notification (no id)
    harmless = "server/discover" if session.era == "modern" else "ping"
    for method, params in (("notifications/mcpx/check", {}), (harmless, session.wrap(harmless, None))):
        with contextlib.suppress(McpxError):  # an HTTP refusal of the POST: its reply is judged below
            await session.notify(method, params)
    follow = await ctx.harmless(session)
    await session.settle(ctx.options.quiet)
    sent = [e for e in session.log.since(mark) if e.direction == "out" and e.rpc_id is None]
    replies = _unasked(session, mark, follow.response)
    refused = [e for e in replies if _http_refusal(e)]
    replies = [e for e in replies if e not in refused]
    if replies:
        return broken(
            f"{len(replies)} repl{'y' if len(replies) == 1 else 'ies'} to notifications",
            session.ref(*sent, *replies),
        )
    if not follow.ok and follow.error is None:
        return broken(
            f"after two notifications the server stopped answering ({follow.describe()})",
            session.ref(*sent),
            follow.ref,
        )
    if refused:
        status = refused[0].facts.get("status")
        return held(
            f"no reply; over HTTP the notification POSTs were refused with HTTP {status} and an error "
            "without id, which the transport allows",
            session.ref(*sent, *refused),
        )
    return held(
        "no reply to an unknown notification nor to a request method sent as a notification",
        session.ref(*sent),
    )


def _http_refusal(event: TrafficEvent) -> bool:
    """An HTTP 4xx whose body is a JSON-RPC error without an id: how Streamable HTTP refuses a notification
    it cannot accept (not a reply)."""
    status = event.facts.get("status")
    if event.channel != "http" or not isinstance(status, int) or not 400 <= status < 500:
        return False
    obj = raw_object(event)
    return isinstance(obj, dict) and "error" in obj and obj.get("id") is None


async def _echoes(ctx: CheckContext, ids: tuple[JsonId, ...]) -> tuple[Session, list[Reply], int]:
    session = await ctx.main_session()
    mark = session.mark()
    method = "server/discover" if session.era == "modern" else "ping"
    replies = await asyncio.gather(
        *(session.ask(method, request_id=rid, timeout=_short(ctx), cancel_on_timeout=False) for rid in ids)
    )
    await session.settle(ctx.options.quiet)
    return session, list(replies), mark


def _echoed(reply: Reply) -> bool:
    """The answer carries the request's id with its JSON type: "42" is not 42 (a host that numbers its
    requests with strings would never find an answer whose id came back a number)."""
    if reply.response is None:
        return False
    obj = raw_object(reply.response)
    if not isinstance(obj, dict) or "id" not in obj:
        return False
    echoed = obj["id"]
    # an error with id null answers the HTTP request, not the id: the id was not echoed
    return type(echoed) is type(reply.id) and echoed == reply.id


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _echo_outcome(session: Session, replies: list[Reply], mark: int) -> Outcome:
    lost = [r for r in replies if not _echoed(r)]
    if not lost:
        shown = ", ".join(_json(r.id) for r in replies)
        return held(f"echoed {shown}, each with its JSON type", *(r.ref for r in replies))
    strays = [e for e in _unasked(session, mark) if isinstance(raw_object(e), dict)]
    answered = {e.seq: e for e in strays} | {
        r.response.seq: r.response for r in lost if r.response is not None
    }
    answers = [(e, raw_object(e).get("id")) for _, e in sorted(answered.items())]
    retyped = []
    for r in lost:
        for event, echoed in answers:
            if (
                echoed is not None
                and type(echoed) is not type(r.id)
                and _json(echoed).strip('"') == str(r.id)
            ):
                retyped.append((r, event, echoed))
                break
    if retyped:
        shown = "; ".join(f"{_json(r.id)} came back as {_json(echoed)}" for r, _, echoed in retyped)
        return broken(
            f"ids came back with another JSON type: {shown}",
            session.ref(*(e for r, event, _ in retyped for e in (r.request, event))),
        )
    echoed_ids = [echoed for _, echoed in answers]
    sent = ", ".join(_json(r.id) for r in lost)
    detail = f"no answer carried id {sent}"
    if echoed_ids:
        detail += f"; answers came back with id {', '.join(map(_json, echoed_ids))}"
    if not session.alive:
        detail += "; the server exited"
    return broken(detail, session.ref(*(r.request for r in lost), *strays))


@check(
    "jsonrpc.id-echo",
    'Ids are echoed exactly, with their JSON type: strings (also "42"), zero, negative, 2^53 - 1',
    level="MUST",
    rule="""JSON-RPC 2.0 §5: "id … It MUST be the same as the value of the id member in the Request Object."
    MCP: "Result responses MUST include the same ID as the request they correspond to." The same value
    includes its type: the string "42" is not the number 42.""",
    source=f"{JSONRPC}#response_object",
    isolated=True,
)
async def id_echo(ctx: CheckContext) -> Outcome:
    return _echo_outcome(*await _echoes(ctx, IDS))


@check(
    "jsonrpc.id-echo-large",
    "Integer ids beyond 2^53 are echoed exactly",
    level="MUST",
    rule="""JSON-RPC 2.0 §5: "id … It MUST be the same as the value of the id member in the Request Object."
    MCP's schema: RequestId is a string or an integer, with no bound (a server that reads JSON numbers as
    doubles loses 2^53 + 1).""",
    source=f"{JSONRPC}#response_object",
    warns="""JSON-RPC strictness no host leans on: hosts number their requests from 1, far below 2^53,
    and servers on the TypeScript SDK (JavaScript numbers) cannot keep such ids.""",
    isolated=True,
)
async def id_echo_large(ctx: CheckContext) -> Outcome:
    return _echo_outcome(*await _echoes(ctx, LARGE_IDS))


@check(
    "jsonrpc.unknown-tool",
    "Calling a tool that does not exist is a protocol error (a JSON-RPC error)",
    level="SHOULD",
    rule="""MCP tools, Error Handling: "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown
    tools, …" (example: error -32602 "Unknown tool: invalid_tool_name"). Stated without MUST/SHOULD, so mcpx
    holds it as a SHOULD.""",
    source=TOOL_ERRORS,
)
async def unknown_tool(ctx: CheckContext) -> Outcome:
    if not ctx.advertised("tools"):
        raise Skip("the server does not advertise the tools capability")
    session = await ctx.main_session()
    reply = await session.ask("tools/call", {"name": UNKNOWN_TOOL, "arguments": {}})
    if reply.error is not None:
        return held(f"answered error {reply.error.code}", reply.ref)
    if reply.ok:
        flagged = isinstance(reply.result, dict) and reply.result.get("isError") is True
        what = "a tool result with isError: true" if flagged else "a result"
        return broken(f"{UNKNOWN_TOOL} was answered with {what}, not a JSON-RPC error", reply.ref)
    return broken(f"{UNKNOWN_TOOL} was answered with {reply.describe()}", reply.ref)


def _invalid_call(
    ctx: CheckContext, tools: list[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any], str] | None:
    from mcpx.check.arguments import invalid

    ranked = sorted(tools, key=lambda t: not read_only(t))
    for tool in ranked:
        if eligible(ctx, tool) is not None:
            continue
        made = invalid(tool.get("inputSchema"))
        if made is not None:
            return tool, made[0], made[1]
    return None


@check(
    "jsonrpc.tool-error",
    "A tool given arguments its schema rejects reports isError: true, not a JSON-RPC error",
    level="SHOULD",
    rule="""MCP tools, Error Handling: "Tool Execution Errors: Reported in tool results with isError: true:
    … Input validation errors (e.g., date in wrong format, value out of range)". Stated without MUST/SHOULD,
    so mcpx holds it as a SHOULD. Before 2025-11-25 "Invalid arguments" were listed as protocol errors, so
    the rule applies from 2025-11-25 on.""",
    source=TOOL_ERRORS,
    calls_tools=True,
    since="2025-11-25",
)
async def tool_error(ctx: CheckContext) -> Outcome:
    found = _invalid_call(ctx, await ctx.tools())
    if found is None:
        raise Skip("no callable tool takes arguments mcpx can make invalid (required or typed properties)")
    tool, arguments, why = found
    session = await ctx.main_session()
    reply = await session.ask("tools/call", {"name": tool["name"], "arguments": arguments})
    name = tool["name"]
    if reply.error is not None:
        return broken(
            f"{name} with invalid arguments ({why}) answered JSON-RPC error {reply.error.code}, "
            "not a result with isError: true",
            reply.ref,
        )
    if not reply.ok:
        return broken(f"{name} with invalid arguments ({why}): {reply.describe()}", reply.ref)
    if isinstance(reply.result, dict) and reply.result.get("isError") is True:
        return held(f"{name} with invalid arguments ({why}) answered isError: true", reply.ref)
    if isinstance(reply.result, dict) and reply.result.get("resultType") == "input_required":
        raise Skip(f"{name} asked for input instead of answering")
    return broken(f"{name} accepted invalid arguments ({why}) without reporting an error", reply.ref)


def _junk(event: TrafficEvent) -> bool:
    """A line on stdout that is not JSON-RPC at all (not JSON, or JSON without "jsonrpc": "2.0")."""
    if event.direction != "in" or event.channel != "stdio" or not isinstance(event.message, Malformed):
        return False
    obj = event.message.obj
    return not (isinstance(obj, dict) and obj.get("jsonrpc") == "2.0")


@check(
    "jsonrpc.stdout-clean",
    "Nothing but JSON-RPC on stdout",
    level="MUST",
    rule="""MCP stdio transport: "The server MUST NOT write anything to its stdout that is not a valid MCP
    message." """,
    source=STDIO,
    final=True,
    transports=("stdio",),
)
async def stdout_clean(ctx: CheckContext) -> Outcome:
    total, first = 0, None
    for session in ctx.sessions.values():
        lines = [e for e in session.log if e.direction == "in" and e.channel == "stdio"]
        total += len(lines)
        junk = [e for e in lines if _junk(e)]
        if junk and first is None:
            first = (session, junk)
    if first is not None:
        session, junk = first
        reason = junk[0].message.reason if isinstance(junk[0].message, Malformed) else ""
        return broken(
            f"{len(junk)} line(s) on stdout are not JSON-RPC, first: {reason}", session.ref(*junk[:5])
        )
    return held(f"all {total} lines the server wrote on stdout were JSON-RPC")


__all__ = ["ErrorResponse"]
