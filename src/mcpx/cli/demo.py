"""`mcpx demo`: the inspector on the demo server that ships inside mcpx (`python -m mcpx.demo`).

It opens the TUI when this build has one (`mcpx.tui.run_inspect`); until then it connects with the
client and prints what the demo server offers, so the command is useful from the first day.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from mcpx.cli.options import Record, RecordSecrets
from mcpx.cli.output import print_error
from mcpx.errors import UsageError
from mcpx.transports.spec import ServerSpec


def demo_spec(misbehave: str | None = None) -> ServerSpec:
    """How to start the demo server: this very Python, so it works in any venv or pipx install."""
    command = [sys.executable, "-m", "mcpx.demo"]
    if misbehave:
        command += ["--misbehave", misbehave]
    return ServerSpec(
        command=command, name="mcpx demo" + (f" (misbehaving: {misbehave})" if misbehave else "")
    )


def _inspector() -> Callable[..., int] | None:
    """The TUI's entry point, when this build has it (imported only here: Textual is slow to import)."""
    try:
        from mcpx.tui import run_inspect
    except ImportError:
        return None
    return run_inspect


def command(
    misbehave: Annotated[
        str | None,
        typer.Option(
            "--misbehave",
            metavar="MODE",
            help="Make the demo server break a rule on purpose: garbage, crash, hang, slow-start, "
            "unknown-ids or huge.",
        ),
    ] = None,
    stdio: Annotated[
        bool,
        typer.Option(
            "--stdio",
            help="Be the demo server alone, on stdin/stdout, for any MCP client "
            "(mcpx call mcpx demo --stdio …, or a host's config).",
        ),
    ] = False,
    protocol_era: Annotated[
        str,
        typer.Option(
            "--protocol-era",
            metavar="ERA",
            help="legacy, auto or modern: the era the inspector speaks (the demo server speaks both).",
        ),
    ] = "auto",
    record: Record = None,
    record_secrets: RecordSecrets = False,
) -> None:
    """Open the inspector on a demo server that shows every MCP feature (both protocol eras).

    Scripts reach the same server as the reserved TARGET `demo` (mcpx call demo --method tools/list), and
    any other client by starting `mcpx demo --stdio`."""
    from mcpx.cli.main import execute
    from mcpx.demo.misbehave import MODES

    if misbehave is not None and misbehave not in MODES:
        choices = ", ".join(MODES)
        execute("text", lambda: _refuse(f"--misbehave must be one of {choices}, not {misbehave!r}"))
    if stdio:
        if record is not None or record_secrets or protocol_era != "auto":
            message = "--stdio serves the demo server alone: --record and --protocol-era belong to its client"
            execute("text", lambda: _refuse(message))
        from mcpx.demo.app import main

        raise typer.Exit(main(["--misbehave", misbehave] if misbehave else []))
    if protocol_era not in ("legacy", "auto", "modern"):
        message = f"--protocol-era must be legacy, auto or modern, not {protocol_era!r}"
        execute("text", lambda: _refuse(message))
    spec = demo_spec(misbehave)
    run_inspect = _inspector()
    if run_inspect is None:
        execute("text", lambda: _print_catalogue(spec))
        return
    from mcpx.cli.recording import RecordingPlan
    from mcpx.tui import InspectSettings

    try:
        recording = RecordingPlan.from_flags(record, record_secrets, spec, protocol_era)
    except UsageError as exc:
        print_error(exc, "text")
        raise typer.Exit(exc.exit_code) from None
    settings = InspectSettings.load(protocol_era=protocol_era)
    raise typer.Exit(run_inspect(spec, settings=settings, recording=recording))


def _refuse(message: str) -> Any:
    raise UsageError(message)


async def _print_catalogue(spec: ServerSpec) -> int:
    from mcpx.protocol.connect import connect

    async with connect(spec, protocol_era="legacy") as client:
        tools = await client.list_tools()
        resources = await client.list_resources()
        prompts = await client.list_prompts()
        typer.echo(
            f"The demo server ({client.server_info.title or client.server_info.name} "
            f"{client.server_info.version}) is up; this build of mcpx has no inspector screen yet, so "
            "here is what it offers. Try: mcpx call demo --method tools/call --tool-name echo "
            "--tool-arg text=hello"
        )
        typer.echo(f"\n{len(tools)} tools:")
        for tool in tools:
            typer.echo(f"  {tool.name:<20} {tool.title or ''}")
        typer.echo(f"{len(resources)} resources: {', '.join(r.uri for r in resources)}")
        typer.echo(f"{len(prompts)} prompts: {', '.join(p.name for p in prompts)}")
    return 0
