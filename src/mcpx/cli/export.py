"""`mcpx export FILE --format har|otlp-json [--output OUT]`: a recording (or a proxied session, by name)
written for other tools — HAR 1.2 or OTLP/JSON traces (see `mcpx.record.export`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer

from mcpx.errors import UsageError


def command(
    file: Annotated[
        str, typer.Argument(help="A recording, or the name of a proxied session.", show_default=False)
    ],
    fmt: Annotated[str, typer.Option("--format", help="har or otlp-json.", show_default=False)] = "har",
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Write here (default: stdout).", show_default=False)
    ] = None,
) -> None:
    """Write a recording as HAR 1.2 or OTLP/JSON traces, for other tools."""
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        from mcpx.record.export import FORMATS

        if fmt not in FORMATS:
            raise UsageError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
        path = Path(file)
        if not path.exists():
            from mcpx.proxy.sessions import find_session

            entry = find_session(file)
            if entry is None:
                raise UsageError(f"{file!r} is neither a recording nor the name of a proxied session")
            path = entry.recording
        return _export(path, fmt, output)

    execute("text", prepare)


async def _export(path: Path, fmt: Any, output: str | None) -> int:
    from mcpx.record.export import export
    from mcpx.record.reader import read_recording
    from mcpx.wire.private_files import write_private

    data = json.dumps(export(read_recording(path), fmt), indent=1, ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(data)
    else:
        write_private(output, data)  # it holds the session's traffic: its owner's alone, as a recording
    return 0
