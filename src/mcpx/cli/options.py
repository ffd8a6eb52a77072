"""Connection options shared by every command that reaches a server (`call`, `inspect`, …), and the
parsing of the small `key=value` languages the official inspector's CLI uses."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer

from mcpx.errors import UsageError
from mcpx.protocol.eras import Era
from mcpx.transports.spec import ServerSpec, TransportName, resolve_target

Target = Annotated[
    str | None,
    typer.Argument(
        help="A server script (.py .js .mjs .cjs .ts), a command, or an http(s) URL.", show_default=False
    ),
]
ServerArgs = Annotated[
    list[str] | None,
    typer.Argument(
        help="Arguments for the server; put those starting with a dash after --.", show_default=False
    ),
]
Env = Annotated[list[str] | None, typer.Option("-e", "--env", help="KEY=VALUE for the server's environment.")]
Cwd = Annotated[str | None, typer.Option("--cwd", help="Working directory of the server process.")]
Header = Annotated[
    list[str] | None, typer.Option("--header", "-H", help='"Name: value" on every HTTP request.')
]
TransportOpt = Annotated[
    str, typer.Option("--transport", help="stdio, http (Streamable HTTP), sse (legacy HTTP+SSE) or auto.")
]
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
ProbeTimeout = Annotated[
    float, typer.Option("--probe-timeout", help="Seconds auto waits for server/discover before legacy.")
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

_TRANSPORTS = ("stdio", "http", "sse", "auto")


@dataclass(slots=True)
class OAuthFlags:
    """The `--oauth-*` flags; they override an entry's `oauth` object from a config file."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scope: str | None = None
    callback_port: int | None = None
    no_browser: bool = False
    non_interactive: bool = False

    def settings(self, from_config: dict[str, Any] | None = None) -> Any:
        from mcpx.auth.flow import OAuthSettings

        values: dict[str, Any] = dict(from_config or {})
        for name in ("client_id", "client_secret", "client_metadata_url", "scope", "callback_port"):
            value = getattr(self, name)
            if value is not None:
                values[name] = value
        if not values.get("client_secret") and os.environ.get("MCPX_OAUTH_CLIENT_SECRET"):
            values["client_secret"] = os.environ["MCPX_OAUTH_CLIENT_SECRET"]
        port = values.get("callback_port")
        if port is not None and not 0 < int(port) < 65536:
            raise UsageError(f"--oauth-callback-port must be a port number, not {port}")
        url = values.get("client_metadata_url")
        if url is not None and not str(url).startswith("https://"):
            raise UsageError("--oauth-client-metadata-url must be an https:// URL with a path")
        if self.non_interactive:
            return OAuthSettings(mode="non-interactive", **values)
        return OAuthSettings(mode="no-browser" if self.no_browser else "browser", **values)


@dataclass(slots=True)
class ConnectionOptions:
    target: str | None
    server_args: list[str] = field(default_factory=list)
    env: list[str] = field(default_factory=list)
    cwd: str | None = None
    headers: list[str] = field(default_factory=list)
    transport: str = "auto"
    config: str | None = None
    server: str | None = None
    timeout: float | None = 60.0
    protocol_era: str = "auto"
    protocol_version: str | None = None
    probe_timeout: float = 2.0
    #: `--bearer` / $MCPX_BEARER: sent as `Authorization: Bearer …` (masked in traffic and recordings)
    bearer: str | None = None
    #: more header names whose values are masked
    secret_headers: list[str] = field(default_factory=list)
    #: `--server-url`: the official inspector's spelling of a URL target
    server_url: str | None = None
    #: the `--oauth-*` flags of a command that signs in when a server asks (None: it never does)
    oauth: OAuthFlags | None = None
    #: how the sign-in talks to the user: `show` and `paste` callbacks (default: the terminal)
    oauth_prompts: dict[str, Any] = field(default_factory=dict)

    def remote(self, bearer: str | None, secret_headers: list[str] | None, server_url: str | None) -> None:
        """Take the HTTP-only flags (shared by every command that reaches a server)."""
        self.bearer = bearer or os.environ.get("MCPX_BEARER") or None
        self.secret_headers = list(secret_headers or [])
        self.server_url = server_url

    def sign_in(self, flags: OAuthFlags, **prompts: Any) -> None:
        """Sign in with OAuth when a URL server answers 401 (unless an Authorization header is given);
        `prompts` replace the terminal's `show` and `paste` (the TUI's sign-in screen)."""
        self.oauth = flags
        self.oauth_prompts = prompts

    def _attach_oauth(self, spec: ServerSpec) -> ServerSpec:
        if self.oauth is None or spec.url is None:
            return spec
        if any(name.lower() == "authorization" for name in spec.headers):
            return spec  # --bearer / --header: the user's credentials, not mcpx's sign-in
        from mcpx.auth import oauth_for
        from mcpx.cli.output import show_sign_in

        prompts = {"show": show_sign_in, **self.oauth_prompts}
        spec.auth = oauth_for(spec.url, self.oauth.settings(spec.oauth), **prompts)
        return spec

    @property
    def request_timeout(self) -> float | None:
        """Seconds per answer; 0 or less waits forever."""
        return self.timeout if self.timeout is not None and self.timeout > 0 else None

    def era(self, spec: ServerSpec) -> Era:
        """The era strategy the flags ask for (auto remembers its verdict per server)."""
        from mcpx.protocol.auto import make_era

        return make_era(
            self.protocol_era, self.protocol_version, probe_timeout=self.probe_timeout, key=spec.label
        )

    def spec(self) -> ServerSpec:
        """The server these options name (raises `UsageError` with one sentence when they can't)."""
        if self.transport not in _TRANSPORTS:
            raise UsageError(f"--transport must be one of {', '.join(_TRANSPORTS)}, not {self.transport!r}")
        transport: TransportName = self.transport  # type: ignore[assignment]
        env = parse_pairs(self.env, "-e", "KEY=VALUE")
        headers = parse_headers(self.headers)
        if self.bearer:
            headers["Authorization"] = f"Bearer {self.bearer}"
        if self.server_url is not None:
            if self.target is not None:
                raise UsageError("give either TARGET or --server-url, not both")
            self.target = self.server_url
        if self.config is not None:
            from mcpx.workspace.config import pick_server

            if self.target is not None:
                raise UsageError("give either TARGET or --config, not both")
            spec = pick_server(self.config, self.server)
            spec.env.update(env)
            spec.headers.update(headers)
            if self.cwd:
                spec.cwd = self.cwd
            if self.server_args and spec.command:
                spec.command.extend(self.server_args)
            if transport != "auto":
                spec.transport = transport
            spec.secret_headers.extend(self.secret_headers)
            return self._attach_oauth(spec)
        if self.server is not None:
            raise UsageError("--server names a server in a config file: add --config FILE")
        if self.target is None:
            raise UsageError("no TARGET given: name a server script, a command or a URL (or use --config)")
        spec = resolve_target(
            self.target, self.server_args, env=env, cwd=self.cwd, headers=headers, transport=transport
        )
        spec.secret_headers.extend(self.secret_headers)
        return self._attach_oauth(spec)


def check_format(fmt: str) -> None:
    """`--format` is text or json for every command."""
    if fmt not in ("text", "json"):
        raise UsageError(f"--format must be text or json, not {fmt!r}")


def ignore_patterns(items: list[str] | None) -> Any:
    """`--ignore JSONPATH` (replay, diff) compiled once; a bad path is one sentence."""
    from mcpx.record.jsondiff import PatternError, compile_patterns

    try:
        return compile_patterns(items or [])
    except PatternError as exc:
        raise UsageError(str(exc)) from None


def parse_pairs(items: list[str] | None, flag: str, shape: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} expects {shape}, got {item!r}")
        pairs[key] = value
    return pairs


def parse_headers(items: list[str] | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise UsageError(f'--header expects "Name: value", got {item!r}')
        headers[name.strip()] = value.strip()
    return headers


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (JSON has no NaN or Infinity)")


def strict_json(text: str) -> Any:
    """json.loads without Python's NaN/Infinity extension: such a value would go out as null."""
    return json.loads(text, parse_constant=_no_constant)


def parse_json_value(text: str) -> Any:
    """A `--tool-arg` value: JSON when it parses as JSON, else the string as typed (so `x=NaN` is "NaN")."""
    try:
        return strict_json(text)
    except ValueError:
        return text


def parse_tool_args(items: list[str] | None, json_text: str | None) -> dict[str, Any] | None:
    arguments: dict[str, Any] | None = None
    if json_text is not None:
        try:
            loaded = strict_json(json_text)
        except ValueError as exc:
            raise UsageError(f"--tool-args-json is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise UsageError("--tool-args-json must be a JSON object")
        arguments = loaded
    for key, value in parse_pairs(items, "--tool-arg", "key=value").items():
        arguments = arguments or {}
        arguments[key] = parse_json_value(value)
    return arguments


def parse_params(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        params = strict_json(text)
    except ValueError as exc:
        raise UsageError(f"--params is not valid JSON: {exc}") from None
    if not isinstance(params, dict):
        raise UsageError("--params must be a JSON object")
    return params
