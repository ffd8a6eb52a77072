"""Commands printed for the user to run (report headers, "run `mcpx doctor …`" hints), quoted so that they
can be copied and run as printed.

Server arguments always follow `--`: without it, a server argument that starts with a dash would be read
as one of mcpx's own options. Words are quoted as a POSIX shell reads them (`shlex`). Values that may be
secret (`-e`, `--header`, `--bearer`, a URL's userinfo or token query values) are never printed: a hint
must not leak them (a URL that needs its credentials is printed masked; give them again).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from mcpx.target import DEMO_TARGET, ServerSpec


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
    command = list(spec.command or [])
    if target is None and command[1:3] == ["-m", "mcpx.demo"]:
        target, server_args = DEMO_TARGET, command[3:]  # the reserved TARGET, not this machine's Python
    elif spec.name is not None and spec.source:  # a config entry, by its name
        words += ["--config", spec.source, "--server", spec.name]
        return shlex.join(words)
    if target is None:
        if spec.url is not None:
            target = spec.url
        else:
            target, server_args = (command[0] if command else ""), command[1:]
    if "://" in target:
        from mcpx.wire.secret_policy import mask_url

        target = mask_url(target)  # userinfo and secret-looking query values never reach a hint
    words.append(target)
    if spec.cwd:
        words += ["--cwd", spec.cwd]
    if spec.transport != "auto":
        words += ["--transport", spec.transport]
    if server_args:
        words += ["--", *server_args]
    return shlex.join(words)
