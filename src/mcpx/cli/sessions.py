"""`mcpx sessions`: the proxied sessions, live and past (the sessions folder, see `mcpx.proxy.sessions`).

One line per session, newest first: live or ended, its name, the host (client name and version), the
server, the era, when it started, how many frames and how many problems. `--format json` for scripts.
On a terminal (and without `--format`) the same list is a table where Enter opens the highlighted
session as `mcpx inspect --attach NAME` does (Textual is imported only then); quitting it comes back to
the list.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Coroutine
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.wire.controls import escape_controls


def command(
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="text or json (default: a table to pick from on a terminal)."),
    ] = None,
    live: Annotated[bool, typer.Option("--live", help="Only the sessions still running.")] = False,
) -> None:
    """List proxied sessions, live and past (host, server, era, start, frames, problems); Enter opens one."""
    from mcpx.cli.main import execute

    if fmt is None and sys.stdin.isatty() and sys.stdout.isatty():
        raise typer.Exit(_pick(live))

    def prepare() -> Coroutine[Any, Any, int]:
        o.check_format(fmt or "text")
        return _list(fmt or "text", live)

    execute(fmt or "text", prepare)


def _pick(only_live: bool) -> int:
    """The table on a terminal: Enter watches a session; quitting that view comes back here."""
    from mcpx.proxy.sessions import list_sessions, sessions_dir, summarize
    from mcpx.tui import InspectSettings, run_attach
    from mcpx.tui.attach.sessions_app import SessionsApp

    def lister() -> list[tuple[Any, dict[str, Any]]]:
        rows = [(entry, summarize(entry)) for entry in list_sessions()]
        return [(entry, row) for entry, row in rows if row["live"] or not only_live]

    settings = InspectSettings.load()
    last: str | None = None
    while True:
        chosen = SessionsApp(lister, str(sessions_dir()), highlight=last).run()
        if chosen is None:
            return 0
        last = chosen.id
        run_attach(chosen.refreshed(), settings=settings)


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
