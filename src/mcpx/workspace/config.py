"""Server definitions from the config files people already have.

Shapes read: `mcpServers` (Claude Desktop, Claude Code `.mcp.json`, Cursor, the official inspector's
catalog) and VS Code's `servers` (`.vscode/mcp.json`); `command`/`args`/`env`/`cwd` for stdio and
`url`/`type`/`headers` for HTTP, and `oauth` for signing in (Claude Code's `{"clientId", "callbackPort"}`,
plus `clientSecret`, `clientMetadataUrl`, `scope`; snake_case spellings too). `${VAR}`, `${env:VAR}` and
`${VAR:-default}` in strings are expanded as the hosts do. An entry that cannot be used is kept with the
reason (`ConfigProblem`), never dropped.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpx.errors import UsageError
from mcpx.transports.spec import ServerSpec, TransportName

_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TYPES: dict[str, TransportName] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamablehttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}


@dataclass(slots=True)
class ConfigProblem:
    name: str
    reason: str
    source: str


def expand(value: str, environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        return env.get(name, default if default is not None else "")

    return _VAR.sub(substitute, value)


def load_servers(path: str | Path) -> dict[str, ServerSpec | ConfigProblem]:
    """Every server a config file defines, by name, in file order."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"the config file {source!r} does not exist") from None
    except OSError as exc:
        raise UsageError(f"cannot read the config file {source!r}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"the config file {source!r} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise UsageError(f"the config file {source!r} holds no object")
    if data.get("mcpServers", data.get("servers")) is None:
        raise UsageError(f'the config file {source!r} has neither an "mcpServers" nor a "servers" object')
    return servers_in(data, source)


def servers_in(data: Mapping[str, Any], source: str) -> dict[str, ServerSpec | ConfigProblem]:
    """The servers of one object holding `mcpServers` or `servers` (none: an empty table)."""
    table = data.get("mcpServers", data.get("servers"))
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise UsageError(f"in {source!r}, the servers entry is not an object")
    return {str(name): _entry(str(name), entry, source) for name, entry in table.items()}


def _entry(name: str, entry: Any, source: str) -> ServerSpec | ConfigProblem:
    if not isinstance(entry, dict):
        return ConfigProblem(name, "the entry is not an object", source)
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    transport = _TYPES.get(kind.replace(" ", ""), "auto") if kind else "auto"
    if kind and kind not in _TYPES:
        return ConfigProblem(name, f"unknown type {kind!r}", source)
    env = entry.get("env") or {}
    headers = entry.get("headers") or {}
    if not isinstance(env, dict) or not isinstance(headers, dict):
        return ConfigProblem(name, '"env" and "headers" must be objects', source)
    env = {str(k): expand(str(v)) for k, v in env.items()}
    headers = {str(k): expand(str(v)) for k, v in headers.items()}
    cwd = entry.get("cwd")
    cwd = expand(str(cwd)) if cwd else None
    if "url" in entry or "serverUrl" in entry:
        url = expand(str(entry.get("url") or entry.get("serverUrl")))
        oauth = _oauth(entry.get("oauth"))
        if isinstance(oauth, str):
            return ConfigProblem(name, oauth, source)
        return ServerSpec(
            url=url, headers=headers, transport=transport, name=name, source=source, oauth=oauth
        )
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        return ConfigProblem(name, 'neither a "command" nor a "url"', source)
    args = entry.get("args") or []
    if not isinstance(args, list):
        return ConfigProblem(name, '"args" is not a list', source)
    return ServerSpec(
        command=[expand(command), *(expand(str(a)) for a in args)],
        env=env,
        cwd=cwd,
        transport="stdio",
        name=name,
        source=source,
    )


_OAUTH_KEYS = {
    "clientid": "client_id",
    "clientsecret": "client_secret",
    "clientmetadataurl": "client_metadata_url",
    "scope": "scope",
    "scopes": "scope",
    "callbackport": "callback_port",
}


def _oauth(value: Any) -> dict[str, Any] | str:
    """An entry's `oauth` object as OAuth settings (names as `OAuthSettings` has them), or the problem."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        return '"oauth" must be an object'
    settings: dict[str, Any] = {}
    for key, raw in value.items():
        name = _OAUTH_KEYS.get(str(key).replace("_", "").lower())
        if name is None or raw is None:
            continue
        if name == "callback_port":
            if not isinstance(raw, int) or isinstance(raw, bool) or not 0 < raw < 65536:
                return f'"oauth.{key}" must be a port number'
            settings[name] = raw
        elif name == "scope" and isinstance(raw, list):
            settings[name] = " ".join(expand(str(s)) for s in raw)
        else:
            settings[name] = expand(str(raw))
    return settings


def pick_server(path: str | Path, name: str | None) -> ServerSpec:
    """The server `name` from the file; without a name, the only one (several → an error listing them)."""
    servers = load_servers(path)
    if not servers:
        raise UsageError(f"the config file {str(path)!r} defines no servers")
    if name is None:
        if len(servers) > 1:
            raise UsageError(
                f"the config file {str(path)!r} defines {len(servers)} servers; choose one with --server: "
                + ", ".join(servers)
            )
        name = next(iter(servers))
    found = servers.get(name)
    if found is None:
        raise UsageError(f"no server {name!r} in {str(path)!r}; it defines: " + ", ".join(servers))
    if isinstance(found, ConfigProblem):
        raise UsageError(f"the server {name!r} in {found.source!r} cannot be used: {found.reason}")
    return found
