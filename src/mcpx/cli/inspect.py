"""`mcpx inspect`: open the TUI on a live connection (same TARGET rules and flags as `mcpx call`).

Textual is imported only here, when the command runs, so the other commands start fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.cli.options import Record, RecordSecrets
from mcpx.cli.output import print_error
from mcpx.cli.recording import RecordingPlan
from mcpx.errors import McpxError, UsageError


@o.connection_flags(timeout=None, oauth=True)
def command(
    target: o.Target = None,
    server_args: o.ServerArgs = None,
    connection: o.ConnectionOptions = o.FLAGS,
    log_level: Annotated[
        str | None, typer.Option("--log-level", help="Ask the server for logs at this level.")
    ] = None,
    theme: Annotated[str | None, typer.Option("--theme", help="A Textual theme name.")] = None,
    record: Record = None,
    record_secrets: RecordSecrets = False,
    root: Annotated[
        list[str] | None,
        typer.Option("--root", help="A root to offer (URI or path); more in the Roots tab."),
    ] = None,
    watch: Annotated[
        bool,
        typer.Option("--watch", help="Restart the server when its files change, and show what changed."),
    ] = False,
    watch_path: Annotated[
        list[str] | None,
        typer.Option(
            "--watch-path", help="With --watch: a folder or file to watch (default: the script's folder)."
        ),
    ] = None,
    tests: Annotated[
        str | None,
        typer.Option(
            "--tests",
            help="The collection Save as test writes and Run tests runs (default: beside the script).",
        ),
    ] = None,
    advertise_apps: Annotated[
        bool,
        typer.Option(
            "--advertise-apps", help="Declare MCP Apps support (servers may list app tools only then)."
        ),
    ] = False,
    attach: Annotated[
        bool,
        typer.Option(
            "--attach",
            help="Watch a session `mcpx proxy` relays (TARGET: its name; default the newest live one).",
        ),
    ] = False,
) -> None:
    """Open the inspector TUI on a live server; with no TARGET, on every configured server (a workspace)."""
    if attach:
        _attach(target, theme)
        return
    from mcpx.tui import TuiSignIn

    prompts = TuiSignIn()  # the terminal belongs to the TUI: sign-in talks through its screen
    connection.sign_in(show=prompts.show, paste=prompts.paste)
    config, timeout = connection.config, connection.timeout
    protocol_era, probe_timeout = connection.protocol_era, connection.probe_timeout
    # no target (or --config without --server): every configured server, in the workspace
    workspace = target is None and connection.server_url is None and connection.server is None
    try:
        recording = None
        plan = None
        collection = Path(tests).resolve() if tests else None
        if workspace:
            from mcpx.cli.ls import configured

            if watch or watch_path:
                raise UsageError(
                    "--watch restarts one server: name it (TARGET, or --config FILE --server NAME)"
                )
            if record is not None:
                raise UsageError(
                    "--record records one server: name it (TARGET, or --config FILE --server NAME)"
                )
            connection.session()  # refuse a bad era or version before the screen opens
            servers = configured([config] if config else [])
            spec = None
        else:
            spec = connection.spec()
            options = connection.session()  # refuse a bad era or version before the screen opens
            recording = RecordingPlan.from_flags(record, record_secrets, spec, options.pinned_era)
            if watch or watch_path:
                from mcpx.watch.loop import WatchPlan

                plan = WatchPlan.for_spec(spec, watch_path or (), tests=tests)
        overrides: dict[str, Any] = {
            "protocol_era": protocol_era,
            "protocol_version": connection.protocol_version,
            "probe_timeout": probe_timeout,
        }
        if timeout is not None:
            overrides["timeout"] = connection.request_timeout
        if log_level is not None:
            overrides["log_level"] = log_level
        if theme is not None:
            overrides["theme"] = theme
        if advertise_apps:
            overrides["advertise_apps"] = True
        from mcpx.tui import InspectSettings, run_inspect

        settings = InspectSettings.load(**overrides)
    except McpxError as exc:
        print_error(exc, "text")
        raise typer.Exit(exc.exit_code) from None
    except ImportError as exc:  # pragma: no cover - a broken install
        print_error(UsageError(f"the TUI cannot start: {exc}"), "text")
        raise typer.Exit(1) from None
    from mcpx.cli.answers import roots_from_flags

    roots = roots_from_flags(root)
    if spec is not None:
        raise typer.Exit(
            run_inspect(
                spec, settings=settings, recording=recording, roots=roots, watch=plan, tests=collection
            )
        )
    from dataclasses import replace

    from mcpx.tui import run_workspace
    from mcpx.tui.settings import session_options
    from mcpx.workspace.manager import Workspace

    # the same session options as one server's inspector (era, timeouts, --advertise-apps), for every server
    options = session_options(settings)
    options = replace(options, connect_timeout=options.connect_timeout or 30.0)
    raise typer.Exit(run_workspace(Workspace(servers, options=options), settings=settings, roots=roots))


def _attach(name: str | None, theme: str | None) -> None:
    """`--attach [NAME]`: the replay view on a proxied session's recording, following it while live."""
    from mcpx.proxy.sessions import find_session

    try:
        entry = find_session(name)
        if entry is None:
            which = f"named {name!r}" if name else "yet"
            raise UsageError(f"no proxied session {which} (mcpx sessions lists them; mcpx proxy starts one)")
        from mcpx.tui import InspectSettings, run_attach

        overrides: dict[str, Any] = {"theme": theme} if theme is not None else {}
        settings = InspectSettings.load(**overrides)
        code = run_attach(entry, settings=settings)
    except McpxError as exc:
        print_error(exc, "text")
        raise typer.Exit(exc.exit_code) from None
    raise typer.Exit(code)
