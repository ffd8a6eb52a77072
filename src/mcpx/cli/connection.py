"""A command's connection flags as values (`ConnectionOptions`: which server, how to talk to it) and the
parsing of the small `key=value` languages the official inspector's CLI uses.

Free of typer: `mcpx call` reads its words without typer (call_argv.py) and builds these itself; the
typer declarations of the same flags are in options.py, which re-exports everything here."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpx.errors import UsageError
from mcpx.target import ServerSpec, check_transport, resolve_target

if TYPE_CHECKING:
    from mcpx.protocol.eras import Era
    from mcpx.protocol.options import SessionOptions


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
    """A command's connection flags as given: which server (`spec()`), and how to talk to it
    (`session()`, the one frozen `SessionOptions`). Built once per command by `connection_flags`;
    nothing is checked until `spec()` / `session()` run inside the command's `prepare`."""

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

    @classmethod
    def from_flags(
        cls, target: str | None, server_args: list[str] | None, flags: dict[str, Any]
    ) -> ConnectionOptions:
        """The options from `connection_flags`' parameters (a flag the command lacks keeps its default)."""
        options = cls(
            target,
            list(server_args or []),
            list(flags.get("env") or []),
            flags.get("cwd"),
            list(flags.get("header") or []),
            flags.get("transport", "auto"),
            flags.get("config"),
            flags.get("server"),
            flags.get("timeout"),
            flags.get("protocol_era", "auto"),
            flags.get("protocol_version"),
            flags.get("probe_timeout", 2.0),
        )
        if "bearer" in flags:  # commands without the HTTP-only flags never read $MCPX_BEARER either
            options.remote(flags["bearer"], flags["secret_header"], flags["server_url"])
        if flags.get("allow_cross_origin_redirects"):
            from mcpx.transports.http_common import ALLOW_CROSS_ORIGIN

            # the process-wide switch every HTTP client of this command reads (see http_common.client_for)
            os.environ[ALLOW_CROSS_ORIGIN] = "1"
        if "oauth_client_id" in flags:
            options.oauth = OAuthFlags(
                flags["oauth_client_id"],
                flags["oauth_client_secret"],
                flags["oauth_client_metadata_url"],
                flags["oauth_scope"],
                flags["oauth_callback_port"],
                flags["oauth_no_browser"],
                flags["oauth_non_interactive"],
            )
        return options

    def remote(self, bearer: str | None, secret_headers: list[str] | None, server_url: str | None) -> None:
        """Take the HTTP-only flags (shared by every command that reaches a server)."""
        self.bearer = bearer or os.environ.get("MCPX_BEARER") or None
        self.secret_headers = list(secret_headers or [])
        self.server_url = server_url

    def sign_in(self, flags: OAuthFlags | None = None, **prompts: Any) -> None:
        """Sign in with OAuth when a URL server answers 401 (unless an Authorization header is given);
        `prompts` replace the terminal's `show` and `paste` (the TUI's sign-in screen)."""
        self.oauth = flags if flags is not None else self.oauth or OAuthFlags()
        self.oauth_prompts = prompts

    def _attach_oauth(self, spec: ServerSpec) -> ServerSpec:
        if self.oauth is None or spec.url is None:
            return spec
        if any(name.lower() == "authorization" for name in spec.headers):
            return spec  # --bearer / --header: the user's credentials, not mcpx's sign-in
        from mcpx.auth import oauth_for
        from mcpx.cli.output import show_sign_in

        prompts = {"show": show_sign_in, **self.oauth_prompts}
        # the target's own sign-in: the TUI reconnects with it, and a config entry's `oauth` feeds it
        spec.auth = oauth_for(spec.url, self.oauth.settings(spec.oauth), **prompts)
        return spec

    @property
    def request_timeout(self) -> float | None:
        """Seconds per answer; 0 or less waits forever."""
        return self.timeout if self.timeout is not None and self.timeout > 0 else None

    def session(self, **extra: Any) -> SessionOptions:
        """How to talk to the server, checked (one sentence for a bad era or version); `extra` adds what
        the command answers with (roots, on_elicit, …) or changes a field."""
        from mcpx.protocol.options import SessionOptions

        values: dict[str, Any] = {
            "era": self.protocol_era,
            "protocol_version": self.protocol_version,
            "probe_timeout": self.probe_timeout,
            "timeout": self.request_timeout,
        }
        values.update(extra)
        return SessionOptions(**values)

    def era(self, spec: ServerSpec) -> Era:
        """The era strategy the flags ask for (auto remembers its verdict per server)."""
        return self.session().make_era(spec.label)

    def spec(self) -> ServerSpec:
        """The server these options name (raises `UsageError` with one sentence when they can't)."""
        transport = check_transport(self.transport)
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
