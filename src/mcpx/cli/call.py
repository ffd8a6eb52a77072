"""`mcpx call`: one request to a server from a script or CI, with the official inspector's `--cli` flags.

This is typer's declaration of the command (its `--help`, its errors); what it does is calling.py, and a
plain run is read without typer by call_argv.py, which tests hold to this declaration."""

from __future__ import annotations

from typing import Annotated

import typer

from mcpx.cli import calling
from mcpx.cli import options as o
from mcpx.cli.options import Record, RecordSecrets

MAX_TOTAL_TIMEOUT = calling.MAX_TOTAL_TIMEOUT


@o.connection_flags(timeout=60.0, oauth=True)
def command(
    target: o.Target = None,
    server_args: o.ServerArgs = None,
    method: Annotated[str | None, typer.Option("--method", help="The MCP method to call.")] = None,
    tool_name: Annotated[str | None, typer.Option("--tool-name")] = None,
    tool_arg: Annotated[
        list[str] | None, typer.Option("--tool-arg", help="key=value (JSON if it parses).")
    ] = None,
    tool_args_json: Annotated[
        str | None, typer.Option("--tool-args-json", help="All arguments as JSON.")
    ] = None,
    uri: Annotated[str | None, typer.Option("--uri")] = None,
    prompt_name: Annotated[str | None, typer.Option("--prompt-name")] = None,
    prompt_args: Annotated[list[str] | None, typer.Option("--prompt-args", help="key=value.")] = None,
    params: Annotated[str | None, typer.Option("--params", help="Params as JSON for any method.")] = None,
    cursor: Annotated[str | None, typer.Option("--cursor", help="Fetch one page of a list.")] = None,
    log_level: Annotated[str | None, typer.Option("--log-level")] = None,
    verify: Annotated[
        bool,
        typer.Option("--verify", help="skills/list, skills/get: load the skills and verify every file."),
    ] = False,
    task: Annotated[
        bool,
        typer.Option(
            "--task", help="tools/call: call as a task (automatic when the tool's taskSupport is required)."
        ),
    ] = False,
    advertise_apps: Annotated[
        bool,
        typer.Option(
            "--advertise-apps", help="Declare MCP Apps support (servers may list app tools only then)."
        ),
    ] = False,
    connection: o.ConnectionOptions = o.FLAGS,
    max_total_timeout: o.MaxTotalTimeout = MAX_TOTAL_TIMEOUT,
    elicit: Annotated[
        str | None,
        typer.Option(
            "--elicit", help="Answer elicitation: accept-defaults, decline, cancel or @answers.json."
        ),
    ] = None,
    sample: Annotated[
        str | None, typer.Option("--sample", help="Answer sampling: decline or @reply.json.")
    ] = None,
    root: Annotated[list[str] | None, typer.Option("--root", help="A root to offer (URI or path).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    traffic: Annotated[
        bool, typer.Option("--traffic", help="Write every frame and stderr line to stderr.")
    ] = False,
    record: Record = None,
    record_secrets: RecordSecrets = False,
) -> None:
    """Connect, send one request, print its result, exit with a code scripts can trust."""
    from mcpx.cli.main import execute

    execute(
        fmt,
        calling.prepare(
            connection=connection,
            method=method,
            tool_name=tool_name,
            tool_arg=tool_arg,
            tool_args_json=tool_args_json,
            uri=uri,
            prompt_name=prompt_name,
            prompt_args=prompt_args,
            params=params,
            cursor=cursor,
            log_level=log_level,
            verify=verify,
            task=task,
            advertise_apps=advertise_apps,
            max_total_timeout=max_total_timeout,
            elicit=elicit,
            sample=sample,
            root=root,
            fmt=fmt,
            traffic=traffic,
            record=record,
            record_secrets=record_secrets,
        ),
        calling.LOOP,
    )
