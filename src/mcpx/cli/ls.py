"""`mcpx ls`: every configured server connected at once — a health check of all your MCP servers.

One line per server (state, era and version, counts, time to connect, tool-definition size) and the
reason for each failure; exit 4 when any server failed. Without --config, the config files that apply
here (Claude Desktop, Claude Code, Cursor, VS Code: see mcpx.workspace.discovery).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Coroutine
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.cli.output import print_error
from mcpx.errors import ConnectError, UsageError
from mcpx.wire.controls import escape_controls

Configs = Annotated[
    list[str] | None,
    typer.Option("--config", help="A config file with mcpServers or servers (repeat for several)."),
]


def command(
    config: Configs = None,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds each server has to start and answer.")
    ] = 10.0,
    protocol_era: o.EraOpt = "auto",
    probe_timeout: o.ProbeTimeout = 2.0,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """List every configured server with its state, counts and tool-definition size."""
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        o.check_format(fmt)
        if protocol_era not in ("legacy", "auto", "modern"):
            raise UsageError(f"--protocol-era must be legacy, auto or modern, not {protocol_era!r}")
        if timeout <= 0:
            raise UsageError("--timeout must be more than 0 seconds")
        return _run(config or [], timeout, protocol_era, probe_timeout, fmt)

    execute(fmt, prepare)


def configured(configs: list[str]) -> list[Any]:
    """The servers of the files given, or of the files that apply here (none at all: a usage error)."""
    from mcpx.workspace.discovery import Places, candidate_files, discover, from_file

    if configs:
        from mcpx.workspace.config import load_servers

        for path in configs:
            load_servers(path)  # a file named on the command line that is missing or broken: a usage error
        rows = [row for path in configs for row in from_file(path)]
    else:
        rows = discover()
        if not rows:
            places = Places.here()
            looked = ", ".join(str(p) for _, p in candidate_files(places))
            raise UsageError(f"no MCP servers are configured here (looked in {looked}); use --config FILE")
    return rows


async def _run(configs: list[str], timeout: float, era: str, probe_timeout: float, fmt: str) -> int:
    from mcpx.workspace.manager import Workspace

    workspace = Workspace(
        configured(configs), connect_timeout=timeout, protocol_era=era, probe_timeout=probe_timeout
    )
    try:
        workspace.start()
        await workspace.wait_settled()
        entries = workspace.entries  # written before closing: the states as they were
        if fmt == "json":
            body = {"servers": [e.to_json() for e in entries]}
            text = json.dumps(body, ensure_ascii=False) + "\n"
        else:
            text = escape_controls(render(entries))  # names, reasons and stderr come from servers
        failed = [e.name for e in entries if e.failed]
        code = 4 if failed else 0
        sys.stdout.write(text)  # now: closing a hung remote server may take a moment more
        sys.stdout.flush()
        if failed:  # the promised JSON error line on stderr, after the table that says why
            said = f"{len(failed)} of {len(entries)} servers failed: {', '.join(failed)}"
            print_error(ConnectError(said, failed=failed), fmt)  # (print_error escapes the text line)
    finally:
        await workspace.close()
    return code


def render(entries: list[Any]) -> str:
    from mcpx.workspace.summary import count_text, seconds_text, size_text, state_text, version_text

    head = ["NAME", "SOURCE", "TRANSPORT", "STATE", "PROTOCOL", "TOOLS", "RES", "PROMPTS", "TIME", "DEFS"]
    rows = [
        [
            e.name,
            e.configured.host,
            e.configured.transport,
            state_text(e, dirty=False),
            version_text(e),
            count_text(e, "tools"),
            count_text(e, "resources"),
            count_text(e, "prompts"),
            seconds_text(e.connect_seconds),
            size_text(e),
        ]
        for e in entries
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    right = {5, 6, 7, 8}

    def line(cells: list[str]) -> str:
        parts = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    out = [line(head)]
    for entry, cells in zip(entries, rows, strict=True):
        out.append(line(cells))
        out.extend(_trouble(entry))
    failed = sum(1 for e in entries if e.failed)
    out.append(f"{len(entries)} servers, {sum(1 for e in entries if e.state == 'connected')} connected"
               + (f", {failed} failed" if failed else ""))  # fmt: skip
    return "\n".join(out) + "\n"


def _trouble(entry: Any) -> list[str]:
    from mcpx.workspace.summary import first_line

    lines = []
    if entry.failed:
        lines.append(f"    {first_line(entry.reason)}")
        lines.extend(f"    stderr| {text}" for text in entry.stderr_tail[-5:])
    for kind, reason in entry.list_errors.items():
        lines.append(f"    {kind}: {first_line(reason)}")
    return lines
