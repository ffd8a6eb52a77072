"""The typer declarations of the connection flags shared by every command that reaches a server (`call`,
`inspect`, …), and `connection_flags`, which gives a command those flags as one `ConnectionOptions`
(connection.py, re-exported here with the value parsers)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from mcpx.cli.connection import (  # re-exported: the commands read them as `o.…`
    ConnectionOptions,
    OAuthFlags,
    check_format,
    ignore_patterns,
    parse_headers,
    parse_json_value,
    parse_pairs,
    parse_params,
    parse_tool_args,
    strict_json,
)
from mcpx.record.format import RECORD_DIR_ENV
from mcpx.target import TRANSPORT_NAMES, TRANSPORT_NOTES

Target = Annotated[
    str | None,
    typer.Argument(
        help="A server script (.py .js .mjs .cjs .ts), a command, or an http(s) URL.", show_default=False
    ),
]
ServerArgs = Annotated[
    list[str] | None,
    typer.Argument(
        help="Arguments for the server: words and options mcpx does not know (put the others after --).",
        show_default=False,
    ),
]
Env = Annotated[list[str] | None, typer.Option("-e", "--env", help="KEY=VALUE for the server's environment.")]
Cwd = Annotated[str | None, typer.Option("--cwd", help="Working directory of the server process.")]
Header = Annotated[
    list[str] | None, typer.Option("--header", "-H", help='"Name: value" on every HTTP request.')
]
_SPELLED = [f"{n} ({TRANSPORT_NOTES[n]})" if n in TRANSPORT_NOTES else n for n in TRANSPORT_NAMES]
_TRANSPORT_HELP = f"{', '.join(_SPELLED[:-1])} or {_SPELLED[-1]}."
TransportOpt = Annotated[str, typer.Option("--transport", help=_TRANSPORT_HELP)]
Config = Annotated[str | None, typer.Option("--config", help="A config file with mcpServers or servers.")]
Server = Annotated[str | None, typer.Option("--server", help="Which server of --config to use.")]
Timeout = Annotated[
    float | None, typer.Option("--timeout", help="Seconds to wait for each answer (progress resets it).")
]
MaxTotalTimeout = Annotated[
    float,
    typer.Option(
        "--max-total-timeout",
        help="Seconds one request may take in all, however much progress the server reports (0: no bound).",
    ),
]
EraOpt = Annotated[str, typer.Option("--protocol-era", help="legacy, auto or modern.")]
Version = Annotated[str | None, typer.Option("--protocol-version", help="Pin one protocol revision.")]
Bearer = Annotated[
    str | None, typer.Option("--bearer", help="A token sent as Authorization: Bearer (or $MCPX_BEARER).")
]
SecretHeader = Annotated[
    list[str] | None, typer.Option("--secret-header", help="A header name whose value is masked in traffic.")
]
ServerUrl = Annotated[str | None, typer.Option("--server-url", help="The server's URL (instead of TARGET).")]
AllowCrossOrigin = Annotated[
    bool,
    typer.Option(
        "--allow-cross-origin-redirects",
        help="Follow a POST the server redirects to another origin (never with credentials or your headers).",
    ),
]
ProbeTimeout = Annotated[
    float, typer.Option("--probe-timeout", help="Seconds auto waits for server/discover before legacy.")
]

Record = Annotated[
    str | None,
    typer.Option(
        "--record",
        help=f"Record the session to this file (JSONL; {RECORD_DIR_ENV} records every session there).",
        show_default=False,
    ),
]
RecordSecrets = Annotated[
    bool,
    typer.Option("--record-secrets", help="Keep tokens, cookies and secret env values in the recording."),
]

OAuthClientId = Annotated[
    str | None,
    typer.Option(
        "--oauth-client-id", help="Sign in as this client, registered with the authorization server."
    ),
]
OAuthClientSecret = Annotated[
    str | None,
    typer.Option("--oauth-client-secret", help="That client's secret (or $MCPX_OAUTH_CLIENT_SECRET)."),
]
OAuthMetadataUrl = Annotated[
    str | None,
    typer.Option("--oauth-client-metadata-url", help="An https URL of a Client ID Metadata Document."),
]
OAuthScope = Annotated[
    str | None,
    typer.Option("--oauth-scope", help="Scopes to ask for (space-separated), instead of mcpx's pick."),
]
OAuthCallbackPort = Annotated[
    int | None, typer.Option("--oauth-callback-port", help="The loopback port for the sign-in redirect.")
]
OAuthNoBrowser = Annotated[
    bool,
    typer.Option("--oauth-no-browser", help="Print the sign-in address instead of opening a browser."),
]
OAuthNonInteractive = Annotated[
    bool,
    typer.Option(
        "--oauth-non-interactive",
        help="For servers that approve at once: GET the authorization URL, take the code from its redirect.",
    ),
]


_OWN: Any = object()  # a flag placed among the shared ones only when the command declares it itself
#: the shared connection flags, in the order `--help` lists them, by group: (parameter, annotation, default)
_FLAGS: dict[str, list[tuple[str, Any, Any]]] = {
    "server": [
        ("env", Env, None),
        ("cwd", Cwd, None),
        ("header", Header, None),
        ("transport", TransportOpt, "auto"),
    ],
    "config": [("config", Config, None), ("server", Server, None)],
    # --max-total-timeout: only where the command declares it (call), placed after --timeout
    "timeout": [("timeout", Timeout, 60.0), ("max_total_timeout", MaxTotalTimeout, _OWN)],
    "era": [
        ("protocol_era", EraOpt, "auto"),
        ("protocol_version", Version, None),
        ("probe_timeout", ProbeTimeout, 2.0),
    ],
    "remote": [
        ("bearer", Bearer, None),
        ("secret_header", SecretHeader, None),
        ("server_url", ServerUrl, None),
        ("allow_cross_origin_redirects", AllowCrossOrigin, False),
    ],
    "oauth": [
        ("oauth_client_id", OAuthClientId, None),
        ("oauth_client_secret", OAuthClientSecret, None),
        ("oauth_client_metadata_url", OAuthMetadataUrl, None),
        ("oauth_scope", OAuthScope, None),
        ("oauth_callback_port", OAuthCallbackPort, None),
        ("oauth_no_browser", OAuthNoBrowser, False),
        ("oauth_non_interactive", OAuthNonInteractive, False),
    ],
}
_F = TypeVar("_F", bound=Callable[..., Any])
#: the default a command gives its `connection` parameter (`connection_flags` always passes the real one)
FLAGS: Any = None


def connection_flags(
    *,
    timeout: float | None = 60.0,
    config: bool = True,
    version: bool = True,
    remote: bool = True,
    oauth: bool = False,
    waits: bool = True,
) -> Callable[[_F], _F]:
    """Give a command the shared connection flags and hand it one `ConnectionOptions` built from them.

    The command declares a parameter `connection: ConnectionOptions` where the flags belong in its
    `--help`; typer sees the flags there instead (env, cwd, header, transport, [config, server], timeout,
    protocol era/version/probe, [bearer, secret header, server URL], [oauth …]). `timeout` is the command's
    default for `--timeout`; `config`, `version`, `remote` and `oauth` say which groups it has. A command
    that declares one of the flags itself (another default or help) keeps its own, in the shared place in
    `--help`, and sets the matching field of `connection` in its body. TARGET and the server's arguments,
    when the command has them as `target` and `server_args`, fill in the options too. A command that
    neither opens a conversation nor waits for answers of its own (`waits=False`: the proxy relays someone
    else's) has no timeout or era flags: they would be accepted and do nothing.
    """
    groups = ["server", *(["config"] if config else []), *(["timeout", "era"] if waits else [])]
    groups += [*(["remote"] if remote else []), *(["oauth"] if oauth else [])]

    def decorate(command: _F) -> _F:
        own = inspect.signature(command, eval_str=True)
        assert "connection" in own.parameters, f"{command.__name__} needs a `connection` parameter"
        shared: list[inspect.Parameter] = []  # the flags, in their place in `--help`
        for group in groups:
            for name, annotation, default in _FLAGS[group]:
                if name in own.parameters:  # the command's own spelling, in the shared place
                    shared.append(own.parameters[name])
                elif default is not _OWN and (version or name != "protocol_version"):
                    default = timeout if name == "timeout" else default
                    shared.append(inspect.Parameter(name, _KEYWORD, annotation=annotation, default=default))
        moved = {p.name for p in shared}
        params: list[inspect.Parameter] = []
        for param in own.parameters.values():
            if param.name == "connection":
                params.extend(shared)
            elif param.name not in moved:
                params.append(param)
        names = [p.name for p in shared if p.name not in own.parameters]

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            flags = {name: kwargs.pop(name) for name in names}
            kwargs["connection"] = ConnectionOptions.from_flags(
                kwargs.get("target"), kwargs.get("server_args"), flags
            )
            return command(**kwargs)

        run.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        return run  # type: ignore[return-value]

    return decorate


_KEYWORD = inspect.Parameter.POSITIONAL_OR_KEYWORD


__all__ = [
    "ConnectionOptions",
    "OAuthFlags",
    "check_format",
    "connection_flags",
    "ignore_patterns",
    "parse_headers",
    "parse_json_value",
    "parse_pairs",
    "parse_params",
    "parse_tool_args",
    "strict_json",
]
