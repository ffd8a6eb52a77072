"""`mcpx proxy install` and `mcpx proxy uninstall`: a host's config rewritten to use the proxy, and back.

    mcpx proxy install --host claude-desktop --all          every server of Claude Desktop's config
    mcpx proxy install --host cursor --server github        one server (repeat --server for more)
    mcpx proxy uninstall --host cursor                      the file as it was (from its backup)

`--dry-run` shows the change and writes nothing. See `mcpx.proxy.install` for each host's file.
"""

from __future__ import annotations

import shlex
from typing import Annotated, Any

import typer

from mcpx.cli.output import print_error
from mcpx.errors import McpxError, UsageError
from mcpx.wire.controls import escape_controls
from mcpx.wire.secret_policy import RULES

HostOpt = Annotated[
    str,
    typer.Option(
        "--host", metavar="HOST", help="claude-desktop, claude-code, cursor or vscode.", show_default=False
    ),
]
app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _host(name: str) -> Any:
    from mcpx.proxy.install import HOSTS

    if name not in HOSTS:
        raise UsageError(f"--host must be one of {', '.join(HOSTS)}, not {name!r}")
    return name


def _say(text: str) -> None:
    typer.echo(escape_controls(RULES.text(text)))


def _line(entry: dict[str, Any]) -> str:
    if "url" in entry or "serverUrl" in entry:
        return str(entry.get("url") or entry.get("serverUrl"))
    return shlex.join([str(entry.get("command", "")), *[str(a) for a in entry.get("args") or []]])


_EXAMPLES = """\b
Examples:
  mcpx proxy install --host claude-desktop --all --dry-run
  mcpx proxy install --host cursor --server github
  mcpx proxy uninstall --host cursor"""


@app.command("install", epilog=_EXAMPLES)
def install_command(
    host: HostOpt,
    server: Annotated[
        list[str] | None,
        typer.Option("--server", metavar="NAME", help="A server of that config (repeatable)."),
    ] = None,
    all_servers: Annotated[bool, typer.Option("--all", help="Every server of that config.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the change; write nothing.")] = False,
) -> None:
    """Rewrite a host's config so its servers run through mcpx proxy (a backup is kept)."""
    from mcpx.proxy.install import install, plan_install
    from mcpx.workspace.discovery import Places

    if not server and not all_servers:
        raise UsageError("name the servers to proxy with --server NAME (repeatable), or --all")
    if server and all_servers:
        raise UsageError("give either --server or --all, not both")
    plan = plan_install(_host(host), Places.here(), None if all_servers else list(server or []))
    for change in plan.changes:
        if change.after is None:
            _say(f"  {change.name}: left as it is ({change.skipped})")
        else:
            before, after = _line(change.before), _line(change.after)
            _say(f"  {change.name} ({change.where}):\n    - {before}\n    + {after}")
    if dry_run:
        _say(f"(dry run: {plan.path} was not changed)")
        return
    backup = install(plan)
    if backup is None:
        _say(f"nothing to change in {plan.path}")
        return
    _say(f"rewrote {plan.path} ({len(plan.applied)} server(s)); the original is in {backup}")
    _say(f"restart the host to use it; undo with: mcpx proxy uninstall --host {host}")


@app.command("uninstall")
def uninstall_command(host: HostOpt) -> None:
    """Put back a host's config as it was before mcpx proxy install."""
    from mcpx.proxy.install import uninstall
    from mcpx.workspace.discovery import Places

    path, exact, names = uninstall(_host(host), Places.here())
    how = (
        "byte for byte from its backup"
        if exact
        else (
            "entry by entry (the file changed since install: the rest of it is kept, its layout may differ)"
        )
    )
    _say(f"restored {path} {how}: {', '.join(names)}")


def run_verb(verb: str, words: list[str]) -> None:
    """`mcpx proxy install|uninstall …`: the verb's own flags, one sentence and exit 1 when wrong."""
    command = typer.main.get_command(app)
    try:
        command.main(args=[verb, *words], prog_name="mcpx proxy", standalone_mode=False)
    except McpxError as exc:
        print_error(exc, "text")
        raise typer.Exit(exc.exit_code) from None
    except typer.Exit:
        raise
    except Exception as exc:  # click's usage errors, as vendored by typer
        formatter = getattr(exc, "format_message", None)
        print_error(UsageError(formatter() if formatter else str(exc)), "text")
        raise typer.Exit(1) from None
