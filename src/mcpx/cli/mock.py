"""`mcpx mock FILE`: a stdio MCP server that answers from a recording.

Point any MCP client at `mcpx mock session.mcpx.jsonl` as its server command. stdout carries only the
protocol; a line on stderr says what is being served, and one more per request with no recorded answer.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Coroutine
from typing import Annotated, Any

import typer

from mcpx.wire.controls import escape_controls


def command(
    file: Annotated[str, typer.Argument(help="A recording made with --record.", show_default=False)],
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Write nothing on stderr.")] = False,
) -> None:
    """Serve a recording over stdio as an MCP server (in the era it was recorded in)."""
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        from mcpx.record.reader import read_recording

        recording = read_recording(file)
        gc.freeze()  # the recording lives as long as the command: keep the collector off it
        return _serve(recording, quiet)

    execute("text", prepare)


async def _serve(recording: Any, quiet: bool) -> int:
    from mcpx.record.mock import MockServer
    from mcpx.transports.stdio_server import StdioServerTransport
    from mcpx.wire.secret_policy import RULES
    from mcpx.wire.traffic import TrafficLog

    log = TrafficLog()
    server = MockServer(recording, StdioServerTransport(traffic=log))

    def say(text: str) -> None:
        if not quiet:
            sys.stderr.write(f"mcpx mock: {escape_controls(RULES.text(text))}\n")
            sys.stderr.flush()

    for problem in recording.problems:
        say(f"{recording.path}: {problem}")
    table = server.table
    answers = sum(len(entry.replies) for entry in table.exact.values())
    say(f"serving {recording.path} ({recording.era}, {answers} recorded answers) as {recording.target}")

    def on_event(event: Any) -> None:
        # the other era's opening is refused on purpose (that is how probing clients find the era)
        opening = event.method in ("initialize", "server/discover")
        if (
            event.direction == "out"
            and not opening
            and getattr(event.message, "code", None) in (-32601, -32602)
        ):
            say(f"no recorded answer: {event.message.message}")

    log.subscribe(on_event)
    await server.serve()
    return 0
