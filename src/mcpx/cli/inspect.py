"""`mcpx inspect`: open the TUI on a live connection (same TARGET rules and flags as `mcpx call`).

Textual is imported only here, when the command runs, so the other commands start fast.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.cli.output import print_error
from mcpx.cli.recording import Record, RecordingPlan, RecordSecrets
from mcpx.errors import McpxError, UsageError


def command(
    target: o.Target = None,
    server_args: o.ServerArgs = None,
    env: o.Env = None,
    cwd: o.Cwd = None,
    header: o.Header = None,
    transport: o.TransportOpt = "auto",
    config: o.Config = None,
    server: o.Server = None,
    timeout: o.Timeout = None,
    protocol_era: o.EraOpt = "auto",
    protocol_version: o.Version = None,
    probe_timeout: o.ProbeTimeout = 2.0,
    bearer: o.Bearer = None,
    secret_header: o.SecretHeader = None,
    server_url: o.ServerUrl = None,
    oauth_client_id: o.OAuthClientId = None,
    oauth_client_secret: o.OAuthClientSecret = None,
    oauth_client_metadata_url: o.OAuthMetadataUrl = None,
    oauth_scope: o.OAuthScope = None,
    oauth_callback_port: o.OAuthCallbackPort = None,
    oauth_no_browser: o.OAuthNoBrowser = False,
    oauth_non_interactive: o.OAuthNonInteractive = False,
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
) -> None:
    """Open the inspector TUI on a live server; with no TARGET, on every configured server (a workspace)."""
    connection = o.ConnectionOptions(
        target, server_args or [], env or [], cwd, header or [], transport, config, server,
        timeout, protocol_era, protocol_version, probe_timeout,
    )  # fmt: skip
    connection.remote(bearer, secret_header, server_url)
    from mcpx.tui import TuiSignIn

    prompts = TuiSignIn()  # the terminal belongs to the TUI: sign-in talks through its screen
    connection.sign_in(
        o.OAuthFlags(
            oauth_client_id, oauth_client_secret, oauth_client_metadata_url, oauth_scope,
            oauth_callback_port, oauth_no_browser, oauth_non_interactive,
        ),
        show=prompts.show, paste=prompts.paste,
    )  # fmt: skip
    # no target (or --config without --server): every configured server, in the workspace
    workspace = target is None and server_url is None and server is None
    try:
        recording = None
        if workspace:
            from mcpx.cli.ls import configured

            if record is not None:
                raise UsageError(
                    "--record records one server: name it (TARGET, or --config FILE --server NAME)"
                )
            if protocol_era not in ("legacy", "auto", "modern"):
                raise UsageError(f"--protocol-era must be legacy, auto or modern, not {protocol_era!r}")
            servers = configured([config] if config else [])
            spec = None
        else:
            spec = connection.spec()
            era = connection.era(spec)  # refuse a bad era or version before the screen opens
            recording = RecordingPlan.from_flags(record, record_secrets, spec, era.name)
        overrides: dict[str, Any] = {
            "protocol_era": protocol_era,
            "protocol_version": protocol_version,
            "probe_timeout": probe_timeout,
        }
        if timeout is not None:
            overrides["timeout"] = connection.request_timeout
        if log_level is not None:
            overrides["log_level"] = log_level
        if theme is not None:
            overrides["theme"] = theme
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
        raise typer.Exit(run_inspect(spec, settings=settings, recording=recording, roots=roots))
    from mcpx.tui import run_workspace
    from mcpx.workspace.manager import Workspace

    raise typer.Exit(
        run_workspace(
            Workspace(
                servers,
                connect_timeout=settings.connect_timeout or 30.0,
                request_timeout=settings.timeout,
                protocol_era=protocol_era,
                probe_timeout=probe_timeout,
            ),
            settings=settings,
            roots=roots,
        )
    )
