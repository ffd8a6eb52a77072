"""`mcpx proxy TARGET [server args…]`: stand between a host (Claude, Cursor, VS Code…) and a server.

Put it in the host's config where the server's command was (or let `mcpx proxy install` do that): the
host talks to mcpx on stdio, mcpx relays every frame to TARGET (a command, or an http(s) URL: it bridges
a stdio-only host to a remote server) and records the session into the sessions folder. `mcpx sessions`
lists them; `mcpx inspect --attach NAME` watches one live.

stdout carries only the relayed protocol; mcpx's own sentences go to stderr, prefixed `mcpx proxy:`.
`mcpx proxy install …` and `mcpx proxy uninstall …` rewrite a host's config (see `mcpx.proxy.install`).
"""

from __future__ import annotations

import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.cli.options import RecordSecrets
from mcpx.errors import UsageError

#: the words after `mcpx proxy` that are verbs of its own, not a server's command
VERBS = ("install", "uninstall")


@o.connection_flags(config=True, version=False, remote=True, waits=False)
def command(
    target: o.Target = None,
    server_args: o.ServerArgs = None,
    name: Annotated[
        str | None, typer.Option("--name", help="The session's name (default: the server's).")
    ] = None,
    record: Annotated[
        str | None,
        typer.Option("--record", help="Record to this file (default: a new file in the sessions folder)."),
    ] = None,
    record_secrets: RecordSecrets = False,
    listen: Annotated[
        str | None,
        typer.Option("--listen", help="Serve Streamable HTTP on [HOST:]PORT instead of stdio (127.0.0.1)."),
    ] = None,
    forward_header: Annotated[
        list[str] | None,
        typer.Option(
            "--forward-header",
            help="With --listen: pass this header of the host's on to a URL TARGET too (repeatable; "
            "by default no credential is passed).",
        ),
    ] = None,
    connection: o.ConnectionOptions = o.FLAGS,
) -> None:
    """Relay a host's MCP session to TARGET, recording it (install: put it in a host's config)."""
    from mcpx.cli.main import execute

    if target in VERBS:
        from mcpx.cli.proxy_install import run_verb

        run_verb(target, list(server_args or []))
        return

    def prepare() -> Coroutine[Any, Any, int]:
        spec = connection.spec()
        path = None
        if record is not None:
            path = Path(record).expanduser()
            if path.is_dir():
                raise UsageError(f"--record {record!r} is a directory; name a file")
            if not path.parent.exists():
                raise UsageError(f"--record {record!r}: the folder {str(path.parent)!r} does not exist")
        where = None
        if listen is not None:
            from mcpx.proxy.listen import parse_listen

            where = parse_listen(listen)
        forward = tuple(forward_header or ())
        if forward:
            from mcpx.proxy.forward import refused_names

            if listen is None:
                raise UsageError("--forward-header needs --listen: a host on stdio sends no headers")
            if refused := refused_names(forward):
                raise UsageError(
                    f"--forward-header {refused[0]!r}: that header belongs to the host's connection with "
                    "the proxy (or to the proxy's own requests) and is never passed on"
                )
        return _serve(spec, name, path, record_secrets, where, forward)

    execute("text", prepare)


async def _serve(
    spec: Any,
    name: str | None,
    record: Path | None,
    record_secrets: bool,
    listen: tuple[str, int] | None,
    forward: tuple[str, ...],
) -> int:
    from mcpx.proxy.relay import Proxy, ProxyOptions

    options = ProxyOptions(
        name=name, record=record, record_secrets=record_secrets, listen=listen, forward_headers=forward
    )
    proxy = Proxy(spec, options)
    code = await proxy.run()
    sys.stdout.flush()
    return code
