"""Behaviour: resources read as listed; and, with --call-tools, tool results, structured content, progress
notifications and cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Any

from mcpx.check.arguments import errors_of
from mcpx.check.calls import ToolRun, called, why_none_called
from mcpx.check.context import CheckContext
from mcpx.check.model import Outcome, Skip, broken, check, held
from mcpx.check.session import notifications
from mcpx.check.shapes import content_problem, contents_problem, dialect_problem
from mcpx.errors import McpxError, RequestTimeoutError
from mcpx.wire import Notification, Request

SPEC = "https://modelcontextprotocol.io/specification"
TOOLS = f"{SPEC}/2026-07-28/server/tools"
#: a tool that sent progress or took this long can be cancelled in flight
SLOW = 0.25
#: tries per slow tool at getting a cancel out before its answer comes (see cancellation)
CANCEL_TRIES = 3


@check(
    "behaviour.resource-read",
    "Each listed resource reads back as listed: its URI, its MIME type, well-formed contents",
    level="MUST",
    rule="""MCP resources: resources/read returns "contents" of TextResourceContents {uri, mimeType?, text} or
    BlobResourceContents {uri, mimeType?, blob (base64)}; Resource.uri and ResourceContents.uri are both "the
    URI of this resource", mimeType "the MIME type of this resource". (A read may return several contents,
    for example a directory's files.)""",
    source=f"{SPEC}/2026-07-28/server/resources#reading-resources",
)
async def resource_read(ctx: CheckContext) -> Outcome:
    catalogue = await ctx.catalogue("resources")
    if not catalogue.advertised:
        raise Skip("the server does not advertise the resources capability")
    listed = [r for r in catalogue.items if isinstance(r, dict) and isinstance(r.get("uri"), str)]
    if catalogue.failed is not None or not listed:
        raise Skip("the server lists no resources" if catalogue.failed is None else "resources/list failed")
    session = await ctx.main_session()
    read = listed[: ctx.options.max_reads]
    for resource in read:
        uri = resource["uri"]
        reply = await session.ask("resources/read", {"uri": uri})
        if not reply.ok:
            return broken(f"{uri} is listed but reading it got {reply.describe()}", reply.ref)
        result = reply.result
        if isinstance(result, dict) and result.get("resultType") == "input_required":
            continue  # it asks for input first; mcpx check answers nothing
        contents = result.get("contents") if isinstance(result, dict) else None
        if not isinstance(contents, list):
            return broken(f"reading {uri} returned no contents array", reply.ref)
        for item in contents:
            problem = contents_problem(item)
            if problem is not None:
                return broken(f"reading {uri}: {problem}", reply.ref)
        if len(contents) == 1:
            item = contents[0]
            if item["uri"] != uri:
                return broken(f"reading {uri} returned contents for {item['uri']!r}", reply.ref)
            announced, got = resource.get("mimeType"), item.get("mimeType")
            if isinstance(announced, str) and isinstance(got, str) and announced != got:
                return broken(
                    f'{uri} is listed with MIME type "{announced}" but reads back as "{got}"',
                    catalogue.ref,
                    reply.ref,
                )
    more = f" (the first {len(read)} of {len(listed)})" if len(read) < len(listed) else ""
    return held(f"{len(read)} resource(s) read as listed{more}")


def _judged(runs: list[ToolRun]) -> tuple[list[ToolRun], list[str]]:
    """The runs that came back with a final result, and sentences about those that did not."""
    results, others = [], []
    for run in called(runs):
        reply = run.reply
        assert reply is not None
        if run.completed:
            results.append(run)
        elif run.asked_for_input:
            others.append(f"{run.name} asked for input")
        elif reply.error is not None:
            others.append(f"{run.name} answered error {reply.error.code}")
        else:
            others.append(f"{run.name}: {reply.describe()}")
    return results, others


@check(
    "behaviour.tool-results",
    "Tools called with arguments from their schema answer with well-formed results",
    level="MUST",
    rule="""MCP schema, CallToolResult: content: ContentBlock[] (text, image, audio, resource_link, resource —
    image and audio data base64 with a mimeType); isError?: boolean; before 2026-07-28 structuredContent is an
    object. "When a rpc call is made, the Server MUST reply with a Response" (JSON-RPC 2.0 §4).""",
    source=f"{TOOLS}#tool-result",
    calls_tools=True,
)
async def tool_results(ctx: CheckContext) -> Outcome:
    runs = await ctx.tool_runs()
    session = await ctx.main_session()
    for run in called(runs):
        reply = run.reply
        assert reply is not None
        if reply.response is None and not session.alive:
            return broken(f"calling {run.name} ended the server", reply.ref)
    results, others = _judged(runs)
    if not results:
        raise Skip(
            why_none_called(runs)
            if not called(runs)
            else "no tool answered with a result: " + "; ".join(others)
        )
    for run in results:
        reply, result = run.reply, run.reply.result  # type: ignore[union-attr]
        assert reply is not None
        problem = _result_problem(result, legacy=session.era == "legacy")
        if problem is not None:
            return broken(f"{run.name}: {problem}", reply.ref)
    names = ", ".join(run.name for run in results)
    note = f"; not judged: {'; '.join(others)}" if others else ""
    return held(
        f"{len(results)} result(s) well formed ({names}){note}", *(r.reply.ref for r in results if r.reply)
    )


def _result_problem(result: Any, *, legacy: bool) -> str | None:
    content = result.get("content")
    if not isinstance(content, list):
        return "the result has no content array"
    for block in content:
        problem = content_problem(block)
        if problem is not None:
            return problem
    if "isError" in result and not isinstance(result["isError"], bool):
        return f"isError is {result['isError']!r}, not a boolean"
    if legacy and "structuredContent" in result and not isinstance(result["structuredContent"], dict):
        return "structuredContent is not an object"
    return None


@check(
    "behaviour.structured-content",
    "structuredContent is present and matches the tool's outputSchema",
    level="MUST",
    rule="""MCP tools, Output Schema: "If an output schema is provided: Servers MUST provide structured
    results that conform to this schema." """,
    source=f"{TOOLS}#output-schema",
    calls_tools=True,
    since="2025-06-18",
)
async def structured_content(ctx: CheckContext) -> Outcome:
    runs = await ctx.tool_runs()
    results, _ = _judged(runs)
    typed = [r for r in results if isinstance(r.tool.get("outputSchema"), dict)]
    typed = [r for r in typed if r.reply is not None and r.reply.result.get("isError") is not True]
    # an outputSchema that is itself invalid cannot be conformed to: catalogue.output-schema reports it
    typed = [r for r in typed if dialect_problem(r.tool["outputSchema"], object_type=False) == (None, True)]
    if not typed:
        raise Skip("no called tool with a valid outputSchema answered with a successful result")
    for run in typed:
        reply = run.reply
        assert reply is not None
        if "structuredContent" not in reply.result:
            return broken(
                f"{run.name} declares an outputSchema but its result has no structuredContent", reply.ref
            )
        problems = errors_of(run.tool["outputSchema"], reply.result["structuredContent"])
        if problems:
            return broken(
                f"{run.name}: structuredContent does not match its outputSchema: {problems[0]}", reply.ref
            )
    return held(
        f"{', '.join(r.name for r in typed)}: structuredContent matches",
        *(r.reply.ref for r in typed if r.reply),
    )


@check(
    "behaviour.progress",
    "Progress notifications carry the request's token, increase, and stop with the response",
    level="MUST",
    rule="""MCP progress: "The progress value MUST increase with each notification, even if the total is
    unknown." "Progress notifications MUST only reference tokens that: Were provided in an active request;
    Are associated with an in-progress operation." "Progress notifications MUST stop after completion." """,
    source=f"{SPEC}/2025-11-25/basic/utilities/progress",
    calls_tools=True,
)
async def progress(ctx: CheckContext) -> Outcome:
    runs = await ctx.tool_runs()
    session = await ctx.main_session()
    sent: dict[Any, Any] = {}
    for event in session.log:
        message = event.message
        if event.direction == "out" and isinstance(message, Request) and isinstance(message.params, dict):
            meta = message.params.get("_meta")
            if isinstance(meta, dict) and "progressToken" in meta:
                sent[(type(meta["progressToken"]), meta["progressToken"])] = event
    seen = notifications(session, "notifications/progress")
    for event in seen:
        params = event.message.params if isinstance(event.message, Notification) else None
        token = params.get("progressToken") if isinstance(params, dict) else None
        if (type(token), token) not in sent:
            return broken(f"progress for token {token!r}, which no request carried", session.ref(event))
    judged = 0
    for run in called(runs):
        if run.reply is None or run.reply.request is None:
            continue
        request = run.reply.request
        response = run.reply.response if run.completed else None
        mine = [e for e in seen if _token(e) == (str, run.reply.id)]
        if not mine:
            continue
        judged += 1
        values = [e.message.params.get("progress") for e in mine]  # type: ignore[union-attr]
        for before, after in itertools.pairwise(values):
            if not isinstance(after, (int, float)) or not isinstance(before, (int, float)) or after <= before:
                return broken(
                    f"{run.name}: progress went from {before!r} to {after!r}", session.ref(request, *mine)
                )
        late = [e for e in mine if response is not None and e.seq > response.seq]
        if late:
            return broken(f"{run.name}: progress after the response", session.ref(request, response, *late))
    if not judged:
        raise Skip("no called tool sent progress notifications")
    return held(f"{judged} tool(s) sent progress with their own token, increasing, before the response")


def _token(event: Any) -> tuple[type, Any]:
    params = event.message.params if isinstance(event.message, Notification) else None
    token = params.get("progressToken") if isinstance(params, dict) else None
    return type(token), token


def _slow(runs: list[ToolRun]) -> list[ToolRun]:
    def slow(run: ToolRun) -> bool:
        timed_out = run.reply is not None and isinstance(run.reply.failure, RequestTimeoutError)
        return bool(run.progress) or run.took >= SLOW or timed_out

    candidates = [r for r in called(runs) if slow(r) and (r.completed or r.reply.failure is not None)]  # type: ignore[union-attr]
    return sorted(candidates, key=lambda r: (not r.progress, -r.took))


@check(
    "behaviour.cancellation",
    "A cancelled request gets no response, and the server goes on",
    level="SHOULD",
    rule="""MCP cancellation: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled
    request; Free associated resources; Not send a response for the cancelled request." """,
    source=f"{SPEC}/2025-11-25/basic/utilities/cancellation",
    calls_tools=True,
)
async def cancellation(ctx: CheckContext) -> Outcome:
    runs = await ctx.tool_runs()
    candidates = _slow(runs)
    if not candidates:
        raise Skip(f"no called tool runs long enough to cancel (none sent progress or took {SLOW} s)")
    session = await ctx.main_session()
    for number, run in enumerate(candidates[:2], 1):
        # a call answered before the cancel could go out, or whose answer crossed the cancel, says nothing
        # (a loaded machine runs late): each tool gets a few tries before the next one
        for attempt in range(1, CANCEL_TRIES + 1):
            rid = f"mcpx-check-cancel-{number}-{attempt}"
            started = asyncio.Event()
            signal = started.set
            asking = asyncio.ensure_future(
                session.peer.request_event(
                    "tools/call",
                    session.wrap("tools/call", {"name": run.name, "arguments": run.arguments}),
                    request_id=rid,
                    timeout=ctx.options.timeout,
                    on_progress=lambda *_, signal=signal: signal(),
                    cancel_on_timeout=False,
                )
            )
            wait = min(0.3, run.took / 3) if run.completed else 0.3
            waiting = asyncio.ensure_future(started.wait())
            began = time.monotonic()
            await asyncio.wait({asking, waiting}, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            if asking.done():
                with contextlib.suppress(McpxError):
                    asking.result()
                continue  # answered before it could be cancelled: try again
            mark = session.mark()
            await session.peer.cancel(rid, "mcpx check: testing cancellation")
            with contextlib.suppress(McpxError, asyncio.CancelledError):
                await asking
            cancelled = next(
                (e for e in session.log.since(mark) if e.method == "notifications/cancelled"), None
            )
            # a request sent after the cancel: an answer to the call that comes before this one's was on
            # its way before the server read the cancel (the spec's race, not a fault); one after it was not
            probe = await ctx.harmless(session, timeout=ctx.options.timeout)
            remaining = run.took - (time.monotonic() - began) if run.completed else 2.0
            # twice what the call had left (a loaded machine runs slower than the first call did), 0.5–3 s
            window = min(max(2 * remaining + 0.5, 0.5), 3.0)
            await asyncio.sleep(window)
            request = session.find_request(rid)
            response = (
                session.log[request.response_seq] if request and request.response_seq is not None else None
            )
            if response is not None and cancelled is not None and response.seq < cancelled.seq:
                continue  # the answer was already on its way: try again
            if response is not None and probe.response is not None and response.seq < probe.response.seq:
                continue  # answered before the server read the cancel (it read the ping after both)
            follow = await ctx.harmless(session)
            if response is not None:
                return broken(
                    f"{run.name} was answered after notifications/cancelled",
                    session.ref(request, cancelled, response),
                )
            if follow.failure is not None:
                return broken(
                    f"after cancelling {run.name} the server stopped answering ({follow.describe()})",
                    session.ref(request, cancelled),
                    follow.ref,
                )
            return held(
                f"no answer to the cancelled {run.name} within {window:.1f} s; the server went on",
                session.ref(request, cancelled),
            )
    raise Skip("every slow tool answered before it could be cancelled")
