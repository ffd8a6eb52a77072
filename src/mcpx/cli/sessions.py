"""`mcpx sessions`: the proxied sessions, live and past (the sessions folder, see `mcpx.proxy.sessions`).

One line per session, newest first: live or ended, its name, the host (client name and version), the
server, the era, when it started, how many frames and how many problems. `--format json` for scripts.
Open one with `mcpx inspect --attach NAME` (live) or `mcpx replay FILE` (any).
"""

from __future__ import annotations

import json
from collections.abc import Coroutine
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.wire.controls import escape_controls


def command(
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    live: Annotated[bool, typer.Option("--live", help="Only the sessions still running.")] = False,
) -> None:
    """List proxied sessions, live and past (host, server, era, start, frames, problems)."""
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        o.check_format(fmt)
        return _list(fmt, live)

    execute(fmt, prepare)


async def _list(fmt: str, only_live: bool) -> int:
    from mcpx.proxy.sessions import list_sessions, sessions_dir, summarize

    rows = [summarize(entry) for entry in list_sessions()]
    if only_live:
        rows = [row for row in rows if row["live"]]
    if fmt == "json":
        print(json.dumps({"folder": str(sessions_dir()), "sessions": rows}, indent=2))
        return 0
    if not rows:
        print(f"no sessions yet (in {sessions_dir()}); start one with: mcpx proxy TARGET")
        return 0
    columns = ("", "NAME", "HOST", "SERVER", "ERA", "STARTED", "FRAMES", "PROBLEMS")
    table = [columns]
    for row in rows:
        table.append(
            (
                "live" if row["live"] else "ended",
                row["name"],
                row["host"] or "-",
                row["server"] or row["target"] or "-",
                row["era"] or "-",
                row["started"],
                str(row["frames"]),
                str(row["problems"]),
            )
        )
    widths = [max(len(escape_controls(str(line[i]))) for line in table) for i in range(len(columns))]
    for line in table:
        cells = [escape_controls(str(cell)).ljust(width) for cell, width in zip(line, widths, strict=True)]
        print("  ".join(cells).rstrip())
    return 0
