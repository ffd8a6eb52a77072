"""The demo's prompts: arguments (required and optional) that complete — one from the other arguments
already chosen — and messages holding text, an embedded resource and an image."""

from __future__ import annotations

from typing import Any

from mcpx.demo import media
from mcpx.demo.core import Context, McpServer, Prompt, PromptArgument, text
from mcpx.demo.resources import matching
from mcpx.errors import RpcError
from mcpx.wire.jsonrpc import INVALID_PARAMS

LANGUAGES = ("english", "french", "german", "spanish", "italian", "dutch")
STYLES = {"english": ("formal", "casual", "pirate", "shakespearean"), "french": ("formel", "familier")}
CODE_LANGUAGES = ("python", "javascript", "typescript", "rust", "go", "java", "kotlin", "c", "cpp", "ruby")
FOCUS = ("security", "performance", "readability", "tests", "naming")


def message(role: str, content: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "content": content}


async def greeting(args: dict[str, str], ctx: Context) -> dict[str, Any]:
    style = args.get("style", "casual")
    language = args.get("language", "english")
    return {
        "description": f"A {style} greeting in {language}",
        "messages": [message("user", text(f"Greet {args['name']} in a {style} way, in {language}."))],
    }


def complete_style(typed: str, chosen: dict[str, str]) -> list[str]:
    # the styles depend on the language chosen already (completion context)
    styles = STYLES.get(chosen.get("language", "english"), ("formal", "casual"))
    return matching(styles, typed)


async def code_review(args: dict[str, str], ctx: Context) -> dict[str, Any]:
    focus = args.get("focus", "readability")
    config = (await ctx.server.resources["demo://config.json"].read(ctx))[0]
    return {
        "description": f"Review {args['language']} code for {focus}",
        "messages": [
            message("user", text(f"Please review this {args['language']} code, focusing on {focus}.")),
            message("user", {"type": "resource", "resource": config}),
            message("assistant", text("Sure: I will read the embedded file first.")),
        ],
    }


async def describe_image(args: dict[str, str], ctx: Context) -> dict[str, Any]:
    detail = args.get("detail", "short")
    return {
        "description": "An image to describe",
        "messages": [
            message("user", {"type": "image", "data": media.b64(media.logo_png()), "mimeType": "image/png"}),
            message("user", text(f"Describe the image above ({detail} description).")),
        ],
    }


async def summarize_resource(args: dict[str, str], ctx: Context) -> dict[str, Any]:
    resource = ctx.server.resources.get(args["uri"])
    if resource is None:
        raise RpcError(ctx.method, INVALID_PARAMS, f"no resource {args['uri']!r}", {"uri": args["uri"]})
    contents = await resource.read(ctx)
    return {
        "description": f"Summarise {args['uri']}",
        "messages": [message("user", text("Summarise this resource:"))]
        + [message("user", {"type": "resource", "resource": item}) for item in contents],
    }


def register(server: McpServer) -> None:
    def resource_uris(typed: str, chosen: dict[str, str]) -> list[str]:
        return [uri for uri in server.resources if typed in uri]

    server.add_prompt(
        Prompt(
            "greeting",
            greeting,
            title="Greeting",
            description="A greeting in a style.",
            arguments=[
                PromptArgument("name", "Whom to greet.", required=True, title="Name"),
                PromptArgument(
                    "language",
                    "The language.",
                    title="Language",
                    complete=lambda typed, chosen: matching(LANGUAGES, typed),
                ),
                PromptArgument(
                    "style", "Styles depend on the language chosen.", title="Style", complete=complete_style
                ),
            ],
            icons=media.icons(),
        )
    )
    server.add_prompt(
        Prompt(
            "code_review",
            code_review,
            title="Code review",
            description="Messages with an embedded resource.",
            arguments=[
                PromptArgument(
                    "language",
                    "The programming language.",
                    required=True,
                    complete=lambda typed, chosen: matching(CODE_LANGUAGES, typed),
                ),
                PromptArgument(
                    "focus", "What to look at.", complete=lambda typed, chosen: matching(FOCUS, typed)
                ),
            ],
        )
    )
    server.add_prompt(
        Prompt(
            "describe_image",
            describe_image,
            title="Describe an image",
            description="A message with an image.",
            arguments=[
                PromptArgument(
                    "detail",
                    "short or long",
                    complete=lambda typed, chosen: matching(("short", "long"), typed),
                )
            ],
        )
    )
    server.add_prompt(
        Prompt(
            "summarize_resource",
            summarize_resource,
            title="Summarise a resource",
            description="Embeds any of the server's resources (the URI completes).",
            arguments=[PromptArgument("uri", "A resource URI.", required=True, complete=resource_uris)],
        )
    )
