"""Commands printed for the user to run (report headers, "run `mcpx doctor …`" hints), quoted so that they
can be copied and run as printed.

Server arguments always follow `--`: without it, a server argument that starts with a dash would be read
as one of mcpx's own options. Words are quoted as a POSIX shell reads them (`shlex`). Values that may be
secret (`-e`, `--header`, `--bearer`) are never printed: a hint must not leak them.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from mcpx.transports.spec import ServerSpec


def command_line(
    verb: str,
    spec: ServerSpec,
    *,
    target: str | None = None,
    server_args: Sequence[str] = (),
) -> str:
    """`mcpx VERB …` reaching the same server: from the words the user typed (`target`, `server_args`)
    when given, else from the spec (a config entry by its name, a URL, or the resolved command)."""
    words = ["mcpx", verb]
    if spec.name is not None:
        if spec.source:
            words += ["--config", spec.source]
        words += ["--server", spec.name]
        return shlex.join(words)
    if target is None:
        if spec.url is not None:
            target = spec.url
        else:
            command = list(spec.command or [])
            target, server_args = (command[0] if command else ""), command[1:]
    words.append(target)
    if spec.cwd:
        words += ["--cwd", spec.cwd]
    if spec.transport != "auto":
        words += ["--transport", spec.transport]
    if server_args:
        words += ["--", *server_args]
    return shlex.join(words)
