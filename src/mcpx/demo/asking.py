"""Tools that ask the client for something: a form, a URL visit, a model's answer, its roots.

Each is written once for both eras through `Context.ask()` (server→client requests in the legacy era,
`input_required` rounds in 2026-07-28), so each runs up to its `ask()` the same way every time.
A client that refuses (legacy: an error reply) gets a tool execution error saying what it answered.
"""

from __future__ import annotations

import secrets
from typing import Any

from mcpx.demo import schemas
from mcpx.demo.core import Context, McpServer, Tool, ToolFailure, text
from mcpx.errors import RpcError

#: URL-mode elicitation exists from this revision on (legacy) and in every modern one
URL_MODE_SINCE = "2025-11-25"
OLD_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18")


def _refused(what: str, error: RpcError) -> ToolFailure:
    return ToolFailure(
        f"The client refused the {what}: {error.error_message} (JSON-RPC error {error.error_code})"
    )


def _declined(answer: Any, what: str) -> str | None:
    """A sentence when the user did not accept, None when they did."""
    action = answer.get("action") if isinstance(answer, dict) else None
    if action == "accept":
        return None
    return f"No {what}: the user chose {action!r}."


async def book_table(args: dict[str, Any], ctx: Context) -> dict[str, Any] | str:
    params: dict[str, Any] = {
        "message": "Book a table at the demo restaurant: every kind of form field is here.",
        "requestedSchema": schemas.booking_form(ctx.version),
    }
    if ctx.version not in OLD_REVISIONS:
        params = {"mode": "form", **params}
    try:
        answer = await ctx.ask_one("booking", "elicitation/create", params)
    except RpcError as error:
        raise _refused("elicitation", error) from None
    refusal = _declined(answer, "booking")
    if refusal:
        return refusal
    content = answer.get("content") or {}
    summary = (
        f"Booked a table for {content.get('guests', '?')} on {content.get('date', '?')} "
        f"in the name of {content.get('name', '?')}."
    )
    return {"content": [text(summary)], "structuredContent": {"booking": content}}


async def connect_account(args: dict[str, Any], ctx: Context) -> str:
    if ctx.era == "legacy" and ctx.version != URL_MODE_SINCE:
        raise ToolFailure(
            f"URL-mode elicitation needs revision {URL_MODE_SINCE} or later; this is {ctx.version}."
        )
    url = "https://example.com/mcpx-demo/connect?account=" + args.get("account", "demo")
    params: dict[str, Any] = {
        "mode": "url",
        "message": "Sign in to the (pretend) demo service to connect your account.",
        "url": url,
    }
    elicitation_id = None
    if ctx.era == "legacy":  # 2025-11-25 names the elicitation so the server can say when it completed
        elicitation_id = f"demo-{secrets.token_hex(4)}"
        params["elicitationId"] = elicitation_id
    try:
        answer = await ctx.ask_one("connect", "elicitation/create", params)
    except RpcError as error:
        raise _refused("URL elicitation", error) from None
    refusal = _declined(answer, "connection")
    if refusal:
        return refusal
    if elicitation_id is not None:
        # the out-of-band sign-in is pretend, so it "completes" at once
        await ctx.notify("notifications/elicitation/complete", {"elicitationId": elicitation_id})
    return f"Account connected (pretend): the user agreed to open {url}."


async def ask_model(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    question = args.get("question")
    if not question:  # a second round first: ask the user what to ask the model
        try:
            form = await ctx.ask_one(
                "question",
                "elicitation/create",
                {
                    "message": "What should the model be asked?",
                    "requestedSchema": {
                        "type": "object",
                        "required": ["question"],
                        "properties": {"question": {"type": "string", "title": "Question", "minLength": 1}},
                    },
                },
            )
        except RpcError as error:
            raise _refused("elicitation", error) from None
        refusal = _declined(form, "question")
        if refusal:
            raise ToolFailure(refusal)
        question = str((form.get("content") or {}).get("question", ""))
    request = {
        "messages": [{"role": "user", "content": {"type": "text", "text": question}}],
        "systemPrompt": "You answer questions for the mcpx demo server, in one sentence.",
        "maxTokens": args.get("max_tokens", 200),
        "temperature": 0.7,
        "includeContext": "none",
        "modelPreferences": {
            "hints": [{"name": "claude"}],
            "intelligencePriority": 0.8,
            "speedPriority": 0.4,
        },
        "metadata": {"asked_by": "mcpx-demo"},
    }
    try:
        reply = await ctx.ask_one("answer", "sampling/createMessage", request)
    except RpcError as error:
        raise _refused("sampling request", error) from None
    reply = reply if isinstance(reply, dict) else {}
    content = reply.get("content")
    blocks = content if isinstance(content, list) else [content]
    said = " ".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    model = reply.get("model", "an unnamed model")
    return {
        "content": [text(f"{model} answered {question!r}: {said}")],
        "structuredContent": {
            "question": question,
            "model": model,
            "answer": said,
            "stopReason": reply.get("stopReason"),
        },
    }


async def list_roots(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    try:
        answer = await ctx.ask_one("roots", "roots/list")
    except RpcError as error:
        raise _refused("roots request", error) from None
    roots = answer.get("roots") if isinstance(answer, dict) else None
    roots = [r for r in roots if isinstance(r, dict)] if isinstance(roots, list) else []
    if not roots:
        return {"content": [text("The client shares no roots.")], "structuredContent": {"roots": []}}
    lines = [f"{r.get('uri')}" + (f" ({r['name']})" if r.get("name") else "") for r in roots]
    return {"content": [text("\n".join(lines))], "structuredContent": {"roots": roots}}


def register(server: McpServer) -> None:
    none: dict[str, Any] = {"type": "object", "additionalProperties": False}
    server.add_tool(
        Tool(
            "book_table",
            book_table,
            title="Book a table (elicitation)",
            description="Asks you to fill in a form with every field kind (form-mode elicitation).",
            input_schema=none,
            annotations={"openWorldHint": False},
        )
    )
    server.add_tool(
        Tool(
            "connect_account",
            connect_account,
            title="Connect an account (URL elicitation)",
            description="Asks you to open a URL (URL-mode elicitation).",
            input_schema={
                "type": "object",
                "additionalProperties": False,
                "properties": {"account": {"type": "string", "pattern": "^[a-z0-9-]+$", "default": "demo"}},
            },
        )
    )
    server.add_tool(
        Tool(
            "ask_model",
            ask_model,
            title="Ask a model (sampling)",
            description="Asks the client's model a question (sampling). Without a question it first "
            "asks you for one: two rounds.",
            input_schema={
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "question": {"type": "string"},
                    "max_tokens": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 200},
                },
            },
        )
    )
    server.add_tool(
        Tool(
            "list_roots",
            list_roots,
            title="List roots",
            description="Asks the client which roots (directories) it shares.",
            input_schema=none,
            annotations={"readOnlyHint": True},
        )
    )
