"""Catalogues: lists that paginate and hold still, tool names, schemas, header annotations, URI templates
and prompt arguments."""

from __future__ import annotations

import json
import re
from typing import Any

from mcpx.check.context import CheckContext
from mcpx.check.lists import ListWalk
from mcpx.check.model import ExchangeRef, Outcome, Skip, broken, check, held
from mcpx.check.shapes import dialect_problem, header_problems, template_problem
from mcpx.protocol.names import LIST_NAMES

SPEC = "https://modelcontextprotocol.io/specification"
TOOLS = f"{SPEC}/2026-07-28/server/tools"
PAGINATION = f"{SPEC}/2025-11-25/server/utilities/pagination"
INVALID_CURSOR = "mcpx-check-invalid-cursor"
TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
#: fields every item of a list must have, as strings (beyond the key checked by other checks)
REQUIRED: dict[str, tuple[str, ...]] = {
    "tools": ("name",),
    "resources": ("uri", "name"),
    "resourceTemplates": ("uriTemplate", "name"),
    "prompts": ("name",),
}


async def _advertised(ctx: CheckContext) -> list[ListWalk]:
    catalogues = [await ctx.catalogue(name) for name in LIST_NAMES]
    shown = [c for c in catalogues if c.advertised]
    if not shown:
        raise Skip("the server advertises no tools, resources or prompts")
    return shown


@check(
    "catalogue.lists",
    "Every advertised list answers, paginates with string cursors and ends",
    level="MUST",
    rule="""MCP: "Servers that declare the tools capability MUST respond to tools/list requests" (likewise
    prompts, resources); pagination: the result carries its items and "nextCursor if more results exist";
    an absent nextCursor ends the list. Items carry their required fields (Tool.name, Resource.uri and name,
    ResourceTemplate.uriTemplate and name, Prompt.name).""",
    source=PAGINATION,
)
async def lists(ctx: CheckContext) -> Outcome:
    found: list[str] = []
    for catalogue in await _advertised(ctx):
        if catalogue.failed is not None:
            return broken(f"{catalogue.method} answered {catalogue.failed.describe()}", catalogue.failed.ref)
        if catalogue.problems:
            text, ref = catalogue.problems[0]
            return broken(text, ref)
        for index, item in enumerate(catalogue.items):
            missing = [
                f
                for f in REQUIRED[catalogue.name]
                if not isinstance(item, dict) or not isinstance(item.get(f), str)
            ]
            if missing:
                return broken(
                    f"{catalogue.method} item {index} has no string {', '.join(missing)}", catalogue.ref
                )
        found.append(f"{len(catalogue.items)} {catalogue.name} in {len(catalogue.pages)} page(s)")
    refs = [c.ref for c in await _advertised(ctx)]
    return held(", ".join(found), *refs)


@check(
    "catalogue.stable-order",
    "Lists come back in the same order when walked again",
    level="SHOULD",
    rule="""MCP: "Servers SHOULD return tools in a deterministic order (i.e., the same ordering across
    requests when the underlying set of tools has not changed)" (new in 2026-07-28); pagination: "Servers
    SHOULD: Provide stable cursors". """,
    source=f"{TOOLS}#listing-tools",
    since="2026-07-28",
)
async def stable_order(ctx: CheckContext) -> Outcome:
    judged: list[str] = []
    for first in await _advertised(ctx):
        if first.failed is not None or first.problems:
            continue
        again = await ctx.walk(first.name)
        if again.failed is not None or again.problems:
            continue
        if sorted(first.keys) != sorted(again.keys):
            continue  # the set changed between the walks: the rule is about the same set
        if first.keys != again.keys:
            moved = next(i for i, (a, b) in enumerate(zip(first.keys, again.keys, strict=True)) if a != b)
            return broken(
                f"{first.method} came back in another order (position {moved}: {first.keys[moved]!r}, then "
                f"{again.keys[moved]!r})",
                first.ref,
                again.ref,
            )
        judged.append(first.name)
    if not judged:
        raise Skip("no list could be walked twice over the same set of items")
    return held(f"{', '.join(judged)}: the same order twice")


@check(
    "catalogue.invalid-cursor",
    "A cursor the server never gave is rejected with -32602",
    level="SHOULD",
    rule='MCP pagination: "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."',
    source=f"{PAGINATION}#error-handling",
)
async def invalid_cursor(ctx: CheckContext) -> Outcome:
    target = next((c for c in await _advertised(ctx) if c.failed is None), None)
    if target is None:
        raise Skip("no list answers at all (see catalogue.lists)")
    session = await ctx.main_session()
    reply = await session.ask(target.method, {"cursor": INVALID_CURSOR})
    if reply.error is not None and reply.error.code == -32602:
        return held(f"{target.method} rejected it with -32602", reply.ref)
    if reply.ok:
        return broken(
            f"{target.method} with cursor {INVALID_CURSOR!r} was answered with a page, not -32602", reply.ref
        )
    return broken(
        f"{target.method} with cursor {INVALID_CURSOR!r} was answered with {reply.describe()}", reply.ref
    )


@check(
    "catalogue.tool-names",
    "Tool names are 1–128 characters of A-Z a-z 0-9 _ - . and unique",
    level="SHOULD",
    rule="""MCP tools, Tool Names (SEP-986): "Tool names SHOULD be between 1 and 128 characters in length
    (inclusive)." "The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters
    (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot (.)" "Tool names SHOULD be unique within a
    server." (new in 2025-11-25)""",
    source=f"{SPEC}/2025-11-25/server/tools#tool-names",
    since="2025-11-25",
)
async def tool_names(ctx: CheckContext) -> Outcome:
    tools = await ctx.tools()
    ref = (await ctx.catalogue("tools")).ref
    names: list[str] = [t["name"] for t in tools if isinstance(t.get("name"), str)]
    bad = [n for n in names if not TOOL_NAME.fullmatch(n)]
    if bad:
        shown = ", ".join(_json(n) for n in bad[:10]) + (
            f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        )
        return broken(f"{len(bad)} tool name(s) break the naming rule: {shown}", ref)
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        return broken(f"tool names listed more than once: {', '.join(twice)}", ref)
    return held(f"{len(names)} tool names follow the rule", ref)


def _schemas(tools: list[dict[str, Any]], key: str) -> list[tuple[str, Any]]:
    return [(str(t.get("name")), t[key]) for t in tools if key in t]


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _judge_schemas(
    found: list[tuple[str, Any]], key: str, ref: ExchangeRef | None, *, object_type: bool
) -> Outcome:
    """Every tool whose schema is broken is named (the first few with what is wrong)."""
    unknown: list[str] = []
    problems: list[tuple[str, str]] = []
    for name, schema in found:
        problem, dialect_known = dialect_problem(schema, object_type=object_type)
        if problem is not None:
            problems.append((name, problem))
        elif not dialect_known:
            unknown.append(f"{name} ({schema.get('$schema')})")
    if problems:
        shown = "; ".join(f"{name}: {key} {problem}" for name, problem in problems[:3])
        if len(problems) > 3:
            shown += "; also " + ", ".join(name for name, _ in problems[3:])
        return broken(f"{len(problems)} of {len(found)} tools: {shown}", ref)
    checked = len(found) - len(unknown)
    if not checked:
        raise Skip(f"every {key} declares a dialect mcpx cannot validate: {', '.join(unknown)}")
    note = f"; not checked, unknown dialect: {', '.join(unknown)}" if unknown else ""
    return held(f"{checked} {key}(s) valid in their dialect{note}", ref)


@check(
    "catalogue.input-schema",
    'Every inputSchema is a valid JSON Schema of type "object" in the dialect it declares',
    level="MUST",
    rule="""MCP tools: inputSchema "MUST be a valid JSON Schema object (not null)" of type "object";
    "Defaults to 2020-12 if no $schema field is present"; "Schemas MUST be valid according to their
    declared or default dialect". """,
    source=f"{SPEC}/2026-07-28/basic#json-schema-usage",
)
async def input_schema(ctx: CheckContext) -> Outcome:
    tools = await ctx.tools()
    missing = [str(t.get("name")) for t in tools if "inputSchema" not in t]
    ref = (await ctx.catalogue("tools")).ref
    if missing:
        return broken(f"no inputSchema: {', '.join(missing)}", ref)
    return _judge_schemas(_schemas(tools, "inputSchema"), "inputSchema", ref, object_type=True)


@check(
    "catalogue.output-schema",
    "Every outputSchema is a valid JSON Schema in the dialect it declares",
    level="MUST",
    rule="""MCP tools: outputSchema "Follows the JSON Schema usage guidelines … Defaults to 2020-12 if no
    $schema field is present"; "Schemas MUST be valid according to their declared or default dialect"
    (before 2026-07-28 an outputSchema is of type "object"). """,
    source=f"{SPEC}/2026-07-28/basic#json-schema-usage",
    since="2025-06-18",
)
async def output_schema(ctx: CheckContext) -> Outcome:
    tools = await ctx.tools()
    found = _schemas(tools, "outputSchema")
    if not found:
        raise Skip("no tool declares an outputSchema")
    legacy = (await ctx.main_session()).era == "legacy"
    return _judge_schemas(found, "outputSchema", (await ctx.catalogue("tools")).ref, object_type=legacy)


@check(
    "catalogue.x-mcp-header",
    "x-mcp-header annotations are valid header names on primitive, statically reachable properties",
    level="MUST",
    rule="""MCP 2026-07-28 tools, x-mcp-header: "MUST NOT be empty; MUST match HTTP field-name token syntax
    (1*tchar); MUST NOT contain control characters; MUST be case-insensitively unique among all x-mcp-header
    values in the inputSchema; MUST only be applied to parameters with primitive types (integer, string,
    boolean) … MUST only be applied to properties that are statically reachable from the schema root". """,
    source=f"{TOOLS}#x-mcp-header",
    since="2026-07-28",
)
async def x_mcp_header(ctx: CheckContext) -> Outcome:
    tools = await ctx.tools()
    ref = (await ctx.catalogue("tools")).ref
    annotated = 0
    broken_tools: list[str] = []
    for tool in tools:
        count, problems = header_problems(tool.get("inputSchema"))
        annotated += count
        if problems:
            broken_tools.append(f"{tool.get('name')}: {problems[0]}")
    if broken_tools:
        return broken(f"{len(broken_tools)} tool(s): " + "; ".join(broken_tools), ref)
    if not annotated:
        raise Skip("no tool annotates a property with x-mcp-header")
    return held(f"{annotated} x-mcp-header annotation(s) valid", ref)


@check(
    "catalogue.uri-templates",
    "Resource templates are valid RFC 6570 URI templates",
    level="MUST",
    rule="""MCP schema, ResourceTemplate.uriTemplate: "A URI template (according to RFC 6570) that can be used
    to construct resource URIs." (format: uri-template)""",
    source=f"{SPEC}/2026-07-28/server/resources#resource-templates",
)
async def uri_templates(ctx: CheckContext) -> Outcome:
    catalogue = await ctx.catalogue("resourceTemplates")
    if not catalogue.advertised:
        raise Skip("the server does not advertise the resources capability")
    if catalogue.failed is not None:
        raise Skip(f"resources/templates/list failed ({catalogue.failed.describe()}); see catalogue.lists")
    templates: list[str] = [
        t["uriTemplate"]
        for t in catalogue.items
        if isinstance(t, dict) and isinstance(t.get("uriTemplate"), str)
    ]
    if not templates:
        raise Skip("the server lists no resource templates")
    for template in templates:
        problem = template_problem(template)
        if problem is not None:
            return broken(f"{template!r}: {problem}", catalogue.ref)
    return held(f"{len(templates)} template(s) valid", catalogue.ref)


async def _prompts(ctx: CheckContext) -> tuple[list[dict[str, Any]], ExchangeRef | None]:
    catalogue = await ctx.catalogue("prompts")
    if not catalogue.advertised:
        raise Skip("the server does not advertise the prompts capability")
    if catalogue.failed is not None:
        raise Skip(f"prompts/list failed ({catalogue.failed.describe()}); see catalogue.lists")
    prompts = [p for p in catalogue.items if isinstance(p, dict)]
    if not prompts:
        raise Skip("the server lists no prompts")
    return prompts, catalogue.ref


@check(
    "catalogue.prompt-arguments",
    "Prompt arguments are well formed: named, unique, required a boolean",
    level="MUST",
    rule="""MCP schema, Prompt.arguments: "A list of arguments to use for templating the prompt" —
    PromptArgument { name: string; title?: string; description?: string; required?: boolean }; a prompt's
    argument names identify its arguments (prompts/get takes them as a map).""",
    source=f"{SPEC}/2026-07-28/server/prompts#data-types",
)
async def prompt_arguments(ctx: CheckContext) -> Outcome:
    prompts, ref = await _prompts(ctx)
    counted = 0
    for prompt in prompts:
        name, arguments = prompt.get("name"), prompt.get("arguments")
        if arguments is None:
            continue
        if not isinstance(arguments, list):
            return broken(f"{name}: arguments is {type(arguments).__name__}, not a list", ref)
        names = []
        for index, argument in enumerate(arguments):
            if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
                return broken(f"{name}: argument {index} has no name", ref)
            if "required" in argument and not isinstance(argument["required"], bool):
                return broken(
                    f"{name}: argument {argument['name']!r} has required {argument['required']!r}", ref
                )
            for text in ("title", "description"):
                if text in argument and not isinstance(argument[text], str):
                    return broken(
                        f"{name}: argument {argument['name']!r} has a {text} that is not a string", ref
                    )
            names.append(argument["name"])
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            return broken(f"{name}: argument names listed more than once: {', '.join(twice)}", ref)
        counted += len(names)
    return held(f"{len(prompts)} prompt(s), {counted} argument(s) well formed", ref)


@check(
    "catalogue.prompt-missing-argument",
    "prompts/get without a required argument is rejected with -32602",
    level="SHOULD",
    rule="""MCP prompts, Error Handling: "Servers SHOULD return standard JSON-RPC errors for common failure
    cases: … Missing required arguments: -32602 (Invalid params)". """,
    source=f"{SPEC}/2026-07-28/server/prompts#error-handling",
)
async def prompt_missing_argument(ctx: CheckContext) -> Outcome:
    prompts, _ = await _prompts(ctx)
    needy = [
        p
        for p in prompts
        if isinstance(p.get("arguments"), list)
        and any(isinstance(a, dict) and a.get("required") is True for a in p["arguments"])
    ]
    if not needy:
        raise Skip("no prompt has a required argument")
    prompt = needy[0]
    session = await ctx.main_session()
    reply = await session.ask("prompts/get", {"name": prompt["name"], "arguments": {}})
    if reply.error is not None and reply.error.code == -32602:
        return held(f"{prompt['name']} without its required arguments: -32602", reply.ref)
    return broken(
        f"{prompt['name']} without its required arguments was answered with {reply.describe()}, not -32602",
        reply.ref,
    )
