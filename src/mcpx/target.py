"""A target: which server to reach, as a plain value on the ground floor (nothing here opens anything).

TARGET rules (as the official inspector's): a `.py` file runs with this Python, `.js/.mjs/.cjs` with
`node`, `.ts` with `npx -y tsx`, an `http(s)://` URL is a remote server, anything else is a command.
Words after TARGET are the server's argv.

`mcpx.transports.open_transport(target, traffic)` turns a `ServerSpec` into a transport; the front door
(`mcpx.protocol.session.open_session`) is how faces and features get a connected client from one. This
module imports nothing of mcpx but its errors and the wire's secret policy (a target masks its own URL
and teaches the policy its secrets), so every floor above the wire can hold a target.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from mcpx.errors import UsageError
from mcpx.wire.secret_policy import SecretPolicy, mask_url

TransportName = Literal["stdio", "http", "sse", "auto"]
#: the names `--transport` and config files accept, in the order help texts give them
TRANSPORT_NAMES: tuple[TransportName, ...] = get_args(TransportName)
#: what a name means where the name alone does not say (help texts)
TRANSPORT_NOTES: dict[TransportName, str] = {"http": "Streamable HTTP", "sse": "legacy HTTP+SSE"}
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
    #: this server's own sign-in: builds the `httpx.Auth` for its HTTP requests from the traffic log (the
    #: OAuth flow of `mcpx.auth`, attached by the layer above; typed loosely because this floor knows
    #: neither the log nor httpx). `SessionOptions.auth`, when given, takes its place.
    auth: Callable[[Any], Any] | None = None
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


def is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


def check_transport(name: str, flag: str = "--transport") -> TransportName:
    """`name` as a `TransportName`, or one sentence saying what it may be."""
    if name not in TRANSPORT_NAMES:
        raise UsageError(f"{flag} must be one of {', '.join(TRANSPORT_NAMES)}, not {name!r}")
    return name


#: the TARGET name that means the demo server bundled with mcpx (`./demo` still runs a file called demo)
DEMO_TARGET = "demo"


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
    common: dict[str, Any] = {
        "env": dict(env or {}),
        "cwd": cwd,
        "headers": dict(headers or {}),
        "transport": transport,
    }
    if target.startswith("-"):
        raise UsageError(
            f"no such option: {target} (a server's own options go after TARGET, or after -- where mcpx "
            "has one of that name)"
        )
    if is_url(target):
        if args:
            raise UsageError(f"a URL target takes no server arguments (got {shlex.join(args)})")
        return ServerSpec(url=target, **common)
    if target == DEMO_TARGET:
        # reserved: the demo server that ships inside mcpx, started with this very Python (any venv, pipx)
        return ServerSpec(command=[sys.executable, "-m", "mcpx.demo", *args], name="mcpx demo", **common)
    ext = os.path.splitext(target)[1].lower()
    if ext in _INTERPRETERS:
        if not os.path.exists(target):
            raise UsageError(f"the server file {target!r} does not exist")
        interpreter = list(_INTERPRETERS[ext])
        if interpreter[0] != sys.executable and _which(interpreter[0]) is None:
            raise UsageError(f"{target!r} needs {interpreter[0]!r}, which is not on PATH")
        script = os.path.abspath(target)
        return ServerSpec(command=[*interpreter, script, *args], **common)
    command = [target, *args]
    if not args and " " in target and not os.path.exists(target):
        # "npx -y @scope/server" given as one word: split it as a shell would
        command = shlex.split(target)
    return ServerSpec(command=command, **common)


__all__ = [
    "DEMO_TARGET",
    "TRANSPORT_NAMES",
    "TRANSPORT_NOTES",
    "ServerSpec",
    "TransportName",
    "check_transport",
    "command_line",
    "command_words",
    "is_url",
    "resolve_target",
]


# Commands printed for the user to run (report headers, "run `mcpx doctor …`" hints, the TUI's banner),
# quoted so that they can be copied and run as printed. Here, on the ground floor, so that every face
# prints them the same way.
#
# Server arguments always follow `--`: without it, a server argument that starts with a dash would be read
# as one of mcpx's own options. Words are quoted as a POSIX shell reads them (`shlex`). Values that may be
# secret (`-e`, `--header`, `--bearer`, a URL's userinfo or token query values) are never printed: a hint
# must not leak them (a URL that needs its credentials is printed masked; give them again).
def command_line(
    verb: str,
    spec: ServerSpec,
    *,
    target: str | None = None,
    server_args: Sequence[str] = (),
    flags: Sequence[str] = (),
) -> str:
    """`mcpx VERB …` reaching the same server: from the words the user typed (`target`, `server_args`)
    when given, else from the spec (a config entry by its name, a URL, or the resolved command); `flags`
    go after the target's own, before the server's arguments (which follow `--`)."""
    return shlex.join(command_words(verb, spec, target=target, server_args=server_args, flags=flags))


def command_words(
    verb: str,
    spec: ServerSpec,
    *,
    target: str | None = None,
    server_args: Sequence[str] = (),
    flags: Sequence[str] = (),
) -> list[str]:
    """The words of `command_line()`, unquoted."""
    words = ["mcpx", verb]
    command = list(spec.command or [])
    if target is None and command[1:3] == ["-m", "mcpx.demo"]:
        target, server_args = DEMO_TARGET, command[3:]  # the reserved TARGET, not this machine's Python
    elif spec.name is not None and spec.source:  # a config entry, by its name
        return [*words, "--config", spec.source, "--server", spec.name, *flags]
    if target is None:
        if spec.url is not None:
            target = spec.url
        else:
            target, server_args = (command[0] if command else ""), command[1:]
    if "://" in target:
        target = mask_url(target)  # userinfo and secret-looking query values never reach a hint
    words.append(target)
    if spec.cwd:
        words += ["--cwd", spec.cwd]
    if spec.transport != "auto":
        words += ["--transport", spec.transport]
    words += flags
    if server_args:
        words += ["--", *server_args]
    return words


def _which(program: str) -> str | None:
    import shutil  # only for a script another interpreter runs: shutil loads zlib, bz2 and lzma

    return shutil.which(program)
