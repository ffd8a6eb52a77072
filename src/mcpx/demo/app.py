"""The demo server assembled: `build_server()` for tests and embedding, `main()` for `python -m mcpx.demo`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

from mcpx.__about__ import __version__
from mcpx.demo import asking, media, prompts, resources, tools
from mcpx.demo.core import McpServer
from mcpx.demo.misbehave import MODES

INSTRUCTIONS = (
    "A demo server bundled with mcpx. Every tool, resource and prompt shows one client feature; start with "
    "the README resource (demo://readme). Nothing here touches the outside world."
)


def build_server(*, tick: float = 2.0) -> McpServer:
    server = McpServer(
        "mcpx-demo",
        __version__,
        title="mcpx demo server",
        description="Shows every MCP client feature, in both protocol eras.",
        instructions=INSTRUCTIONS,
        icons=media.icons(),
        website_url="https://github.com/mcpx-inspector/mcpx",
        list_changed=("tools",),
        # resources come in pages of three, so clients have to follow nextCursor
        page_sizes={"resources/list": 3},
        # the tool list changes at run time (add_tool) and reads depend on the era and the clock
        ttl_ms={"tools/list": 0, "resources/read": 0},
    )
    tools.register(server)
    asking.register(server)
    resources.register(server, tick=tick)
    prompts.register(server)
    return server


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m mcpx.demo",
        description="The mcpx demo MCP server, on stdio. Both protocol eras.",
        epilog="misbehaviours: " + "; ".join(f"{name}: {what}" for name, what in MODES.items()),
    )
    parser.add_argument(
        "--misbehave", metavar="MODE", choices=sorted(MODES), help="Break one rule on purpose."
    )
    parser.add_argument(
        "--tick", type=float, default=2.0, metavar="SECONDS", help="How often demo://ticker changes."
    )
    return parser.parse_args(argv)


async def serve(misbehave: str | None, tick: float) -> None:
    from mcpx.transports.stdio_server import StdioServerTransport
    from mcpx.wire import TrafficLog

    server = build_server(tick=tick)
    transport = StdioServerTransport(traffic=TrafficLog())
    if misbehave:
        from mcpx.demo.misbehave import MisbehavingTransport

        transport = MisbehavingTransport(transport, misbehave)  # type: ignore[assignment]
    server.say(f"ready on stdio{f' (misbehaving: {misbehave})' if misbehave else ''}")
    await server.serve(transport)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.tick <= 0:
        sys.stderr.write("python -m mcpx.demo: --tick must be a positive number of seconds\n")
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.misbehave, args.tick))
    return 0
