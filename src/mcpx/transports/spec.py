"""How to reach a server: a `ServerSpec`, built from a TARGET on the command line or from a config file.

TARGET rules (as the official inspector's): a `.py` file runs with this Python, `.js/.mjs/.cjs` with
`node`, `.ts` with `npx -y tsx`, an `http(s)://` URL is a remote server, anything else is a command.
Words after TARGET are the server's argv.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mcpx.errors import UsageError
from mcpx.transports.base import Transport
from mcpx.transports.stdio import StdioTransport
from mcpx.wire import TrafficLog
from mcpx.wire.secret_policy import SecretPolicy, mask_url

TransportName = Literal["stdio", "http", "sse", "auto"]
_INTERPRETERS: dict[str, list[str]] = {
    ".py": [sys.executable],
    ".js": ["node"],
    ".mjs": ["node"],
    ".cjs": ["node"],
    ".ts": ["npx", "-y", "tsx"],
}


@dataclass(slots=True)
class ServerSpec:
    """A server to connect to: a command (stdio) or a URL (HTTP), with its settings."""

    command: list[str] | None = None
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    #: header names (beyond Authorization, Cookie, …) whose values are masked in traffic and recordings
    secret_headers: list[str] = field(default_factory=list)
    transport: TransportName = "auto"
    #: the name it has in a config file, when it came from one
    name: str | None = None
    source: str | None = None
    #: builds the `httpx.Auth` for this server's HTTP requests, given the traffic log (the OAuth flow of
    #: `mcpx.auth`, attached by the layer above; transports only ever see an `httpx.Auth`)
    auth: Callable[[TrafficLog], Any] | None = None
    #: OAuth settings a config-file entry gave (client id, scope, …), for the layer above to read
    oauth: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        if self.url:
            return mask_url(self.url)  # shown and stored: never the userinfo or a secret query value
        return shlex.join(self.command or [])

    def teach(self, secrets: SecretPolicy) -> None:
        """Tell a secret policy the values this server is started or reached with (secret env values,
        inherited ones too for a process; header values; URL userinfo and secret query values)."""
        secrets.learn_target(
            env=self.env,
            headers=self.headers,
            secret_headers=self.secret_headers,
            url=self.url,
            inherited=self.command is not None,
        )

    def open(self, traffic: TrafficLog) -> Transport:
        """Build the transport this spec describes (not started yet)."""
        self.teach(traffic.secrets)
        if self.command is not None and self.transport in ("stdio", "auto"):
            return StdioTransport(self.command, traffic=traffic, env=self.env, cwd=self.cwd)
        if self.url is not None:
            # imported here so that stdio servers never pay for httpx
            from mcpx.transports.remote import open_url

            if self.auth is not None:
                return open_url(self, traffic, auth=self.auth(traffic))
            return open_url(self, traffic)
        raise UsageError(f"the {self.transport} transport needs a URL, and {self.label!r} is a command")


def is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


def resolve_target(
    target: str,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    headers: Mapping[str, str] | None = None,
    transport: TransportName = "auto",
) -> ServerSpec:
    """Turn TARGET and the words after it into a `ServerSpec` (raises `UsageError` for what cannot work)."""
    if not target:
        raise UsageError("no TARGET given: name a server script, a command or a URL")
    common = {"env": dict(env or {}), "cwd": cwd, "headers": dict(headers or {}), "transport": transport}
    if is_url(target):
        if args:
            raise UsageError(f"a URL target takes no server arguments (got {shlex.join(args)})")
        return ServerSpec(url=target, **common)  # type: ignore[arg-type]
    ext = os.path.splitext(target)[1].lower()
    if ext in _INTERPRETERS:
        if not os.path.exists(target):
            raise UsageError(f"the server file {target!r} does not exist")
        interpreter = list(_INTERPRETERS[ext])
        if interpreter[0] != sys.executable and shutil.which(interpreter[0]) is None:
            raise UsageError(f"{target!r} needs {interpreter[0]!r}, which is not on PATH")
        script = os.path.abspath(target)
        return ServerSpec(command=[*interpreter, script, *args], **common)  # type: ignore[arg-type]
    command = [target, *args]
    if not args and " " in target and not os.path.exists(target):
        # "npx -y @scope/server" given as one word: split it as a shell would
        command = shlex.split(target)
    return ServerSpec(command=command, **common)  # type: ignore[arg-type]
