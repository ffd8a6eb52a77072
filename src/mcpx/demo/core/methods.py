"""The MCP methods a server answers, each a small coroutine over the server's catalogue.

`ROUTES` says which era each belongs to: `logging/setLevel`, `resources/subscribe` and `unsubscribe`
exist only in the handshake era; `server/discover` and `subscriptions/listen` only in 2026-07-28. Errors
follow the era too: a resource that does not exist is -32002 in the legacy era and -32602 (with the URI)
in the modern one.
"""

from __future__ import annotations

import base64
import binascii
import inspect
from typing import TYPE_CHECKING, Any

from mcpx.demo.core.catalog import Tool, ToolFailure, text
from mcpx.demo.core.context import Context, Era
from mcpx.errors import RpcError
from mcpx.protocol.names import LOG_LEVELS
from mcpx.protocol.versions import MODERN_VERSIONS
from mcpx.wire.jsonrpc import INVALID_PARAMS

if TYPE_CHECKING:
    from mcpx.demo.core.server import Handler

RESOURCE_NOT_FOUND_LEGACY = -32002
MAX_COMPLETIONS = 100


def _bad(ctx: Context, why: str, data: Any = None) -> RpcError:
    return RpcError(ctx.method, INVALID_PARAMS, why, data)


# -- lists ---------------------------------------------------------------------------------------------
def _page(ctx: Context, key: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """One page of a list; the cursor is opaque to clients (base64 of an offset)."""
    size = ctx.server.page_sizes.get(ctx.method)
    cursor = ctx.params.get("cursor")
    start = 0
    if cursor is not None:
        try:
            start = int(base64.urlsafe_b64decode(str(cursor).encode("ascii")).decode("ascii"))
        except (ValueError, binascii.Error, UnicodeError):
            raise _bad(ctx, f"invalid cursor {cursor!r}") from None
        if not 0 <= start <= len(items):
            raise _bad(ctx, f"invalid cursor {cursor!r}")
    end = len(items) if size is None else start + size
    result: dict[str, Any] = {key: items[start:end]}
    if end < len(items):
        result["nextCursor"] = base64.urlsafe_b64encode(str(end).encode("ascii")).decode("ascii")
    return result


async def list_tools(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return _page(ctx, "tools", [tool.describe() for tool in ctx.server.tools.values()])


async def list_resources(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return _page(ctx, "resources", [r.describe() for r in ctx.server.resources.values()])


async def list_templates(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return _page(ctx, "resourceTemplates", [t.describe() for t in ctx.server.templates])


async def list_prompts(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return _page(ctx, "prompts", [p.describe() for p in ctx.server.prompts.values()])


# -- tools -----------------------------------------------------------------------------------------------
#: id(schema) → (schema, validator); the schema is kept so an id is never reused for another one
_validators: dict[int, tuple[Any, Any]] = {}


def argument_errors(tool: Tool, arguments: dict[str, Any]) -> list[str]:
    """Where `arguments` break the tool's input schema (jsonschema, imported on first use)."""
    import jsonschema

    schema = tool.input_schema
    cached = _validators.get(id(schema))
    if cached is not None and cached[0] is schema:
        validator = cached[1]
    else:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
        _validators[id(schema)] = (schema, validator)
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:20]]


async def call_tool(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    name = params.get("name")
    tool = ctx.server.tools.get(name) if isinstance(name, str) else None
    if tool is None:
        raise _bad(ctx, f"Unknown tool: {name!r}")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise _bad(ctx, "arguments must be an object")
    if tool.validate:
        errors = argument_errors(tool, arguments)
        if errors:  # an input validation error is a tool execution error (SEP-1303), for the model to see
            return {"content": [text("Invalid arguments:\n" + "\n".join(errors))], "isError": True}
    try:
        result = await tool.handler(arguments, ctx)
    except ToolFailure as failure:
        return {"content": [text(str(failure))], "isError": True}
    if isinstance(result, str):
        return {"content": [text(result)]}
    return result


# -- resources -------------------------------------------------------------------------------------------
async def read_resource(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise _bad(ctx, "uri must be a string")
    resource = ctx.server.resources.get(uri)
    if resource is not None:
        return {"contents": await resource.read(ctx)}
    for template in ctx.server.templates:
        variables = template.match(uri)
        if variables is not None:
            return {"contents": await template.read(variables, ctx)}
    if ctx.era == "legacy":
        raise RpcError(ctx.method, RESOURCE_NOT_FOUND_LEGACY, "Resource not found", {"uri": uri})
    raise _bad(ctx, "Resource not found", {"uri": uri})


def known_uri(ctx: Context, uri: Any) -> bool:
    return isinstance(uri, str) and (
        uri in ctx.server.resources or any(t.match(uri) is not None for t in ctx.server.templates)
    )


async def subscribe(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    uri = params.get("uri")
    if not isinstance(uri, str) or not known_uri(ctx, uri):
        raise RpcError(ctx.method, RESOURCE_NOT_FOUND_LEGACY, "Resource not found", {"uri": uri})
    ctx.server.push.subscribe(uri)
    return {}


async def unsubscribe(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    uri = params.get("uri")
    if isinstance(uri, str):
        ctx.server.push.unsubscribe(uri)
    return {}


# -- prompts ---------------------------------------------------------------------------------------------
async def get_prompt(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    name = params.get("name")
    prompt = ctx.server.prompts.get(name) if isinstance(name, str) else None
    if prompt is None:
        raise _bad(ctx, f"Unknown prompt: {name!r}")
    arguments = params.get("arguments") or {}
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        raise _bad(ctx, "prompt arguments must be an object of strings")
    missing = [a.name for a in prompt.arguments if a.required and not arguments.get(a.name)]
    if missing:
        raise _bad(ctx, f"missing required argument(s): {', '.join(missing)}")
    return await prompt.render(arguments, ctx)


# -- completion ------------------------------------------------------------------------------------------
async def complete(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise _bad(ctx, "ref and argument are required")
    name, value = argument.get("name"), argument.get("value", "")
    context = params.get("context")
    chosen = context.get("arguments") if isinstance(context, dict) else None
    chosen = {k: v for k, v in chosen.items() if isinstance(v, str)} if isinstance(chosen, dict) else {}
    completer = None
    if ref.get("type") == "ref/prompt":
        prompt = ctx.server.prompts.get(ref.get("name"))  # type: ignore[arg-type]
        if prompt is None:
            raise _bad(ctx, f"Unknown prompt: {ref.get('name')!r}")
        completer = next((a.complete for a in prompt.arguments if a.name == name), None)
    elif ref.get("type") == "ref/resource":
        template = next((t for t in ctx.server.templates if t.uri_template == ref.get("uri")), None)
        if template is None:
            raise _bad(ctx, f"Unknown resource template: {ref.get('uri')!r}")
        completer = template.complete.get(name) if isinstance(name, str) else None
    else:
        raise _bad(ctx, f"unknown ref type {ref.get('type')!r}")
    values: list[str] = []
    if completer is not None:
        found = completer(str(value), chosen)
        values = list(await found) if inspect.isawaitable(found) else list(found)
    completion: dict[str, Any] = {"values": values[:MAX_COMPLETIONS], "total": len(values)}
    completion["hasMore"] = len(values) > MAX_COMPLETIONS
    return {"completion": completion}


# -- logging, discovery, subscriptions -------------------------------------------------------------------
async def set_level(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    level = params.get("level")
    if level not in LOG_LEVELS:
        raise _bad(ctx, f"unknown log level {level!r} (one of {', '.join(LOG_LEVELS)})")
    assert ctx.server.legacy is not None
    ctx.server.legacy.log_level = level
    return {}


async def discover(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    server = ctx.server
    result: dict[str, Any] = {
        "supportedVersions": list(MODERN_VERSIONS),
        "capabilities": server.capabilities(),
    }
    if server.instructions:
        result["instructions"] = server.instructions
    return result


async def listen(params: dict[str, Any], ctx: Context) -> dict[str, Any]:
    wanted = params.get("notifications")
    if not isinstance(wanted, dict):
        raise _bad(ctx, "notifications (what to listen to) is required")
    caps = ctx.server.capabilities()
    honoured: dict[str, Any] = {}
    for kind, flag in (
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ):
        if wanted.get(flag) is True and caps.get(kind, {}).get("listChanged"):
            honoured[flag] = True
    uris = wanted.get("resourceSubscriptions")
    if isinstance(uris, list) and caps.get("resources", {}).get("subscribe"):
        honoured["resourceSubscriptions"] = [u for u in uris if known_uri(ctx, u)]
    ctx.server.say(f"subscriptions/listen {ctx.request.id!r}: honouring {honoured}")
    await ctx.server.push.listen(ctx.request, honoured)
    return {}  # not reached: a listen request ends by cancellation


BOTH: tuple[Era, ...] = ("legacy", "modern")
ROUTES: list[tuple[str, Handler, tuple[Era, ...]]] = [
    ("tools/list", list_tools, BOTH),
    ("tools/call", call_tool, BOTH),
    ("resources/list", list_resources, BOTH),
    ("resources/templates/list", list_templates, BOTH),
    ("resources/read", read_resource, BOTH),
    ("prompts/list", list_prompts, BOTH),
    ("prompts/get", get_prompt, BOTH),
    ("completion/complete", complete, BOTH),
    ("logging/setLevel", set_level, ("legacy",)),
    ("resources/subscribe", subscribe, ("legacy",)),
    ("resources/unsubscribe", unsubscribe, ("legacy",)),
    ("server/discover", discover, ("modern",)),
    ("subscriptions/listen", listen, ("modern",)),
]
