"""`mcpx diff A B`: compare what two servers offer, each a recording or a live target.

A live target is a server script, a command (quote it when it has arguments: "npx -y some-server") or a
URL; the connection flags apply to both live sides. Exit 0 when they offer the same, 7 when they differ.
"""

from __future__ import annotations

import gc
import json
import os
import shlex
import sys
from collections.abc import Coroutine
from dataclasses import replace
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.errors import UsageError
from mcpx.wire.controls import escape_controls

DRIFT_EXIT = 7
_SIDE = Annotated[
    str, typer.Argument(help="A recording, or a server: script, quoted command or URL.", show_default=False)
]


@o.connection_flags(timeout=60.0, config=False, remote=False)
def command(
    a: _SIDE,
    b: _SIDE,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="A JSONPath whose differences do not count (repeatable): $.serverInfo"),
    ] = None,
    connection: o.ConnectionOptions = o.FLAGS,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Compare server info, capabilities and catalogues of A and B (exit 7 when they differ)."""
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        o.check_format(fmt)
        patterns = o.ignore_patterns(ignore)
        sides: list[Any] = []
        for target in (a, b):
            if is_recording(target):
                from mcpx.record.reader import read_recording

                sides.append(read_recording(target))
                gc.freeze()  # the recording lives as long as the command: keep the collector off it
            else:
                words = split_target(target)
                sides.append(replace(connection, target=words[0], server_args=words[1:]))
        return _diff(sides, patterns, fmt)

    execute(fmt, prepare)


def split_target(target: str) -> list[str]:
    """A quoted command ("python server.py --flag") as words; a path or URL as it is."""
    if os.path.exists(target) or "://" in target or " " not in target.strip():
        return [target]
    try:
        words = shlex.split(target)
    except ValueError as exc:
        raise UsageError(f"cannot read the command {target!r}: {exc}") from None
    return words or [target]


def is_recording(target: str) -> bool:
    """A file whose first line is a recording header (a `.jsonl` that is not one is still refused later)."""
    if not os.path.isfile(target):
        return False
    if target.endswith(".jsonl"):
        return True
    try:
        with open(target, "rb") as handle:
            return b'"mcpx_recording"' in handle.read(200)
    except OSError:
        return False


async def _snapshot(side: Any, secrets: Any) -> Any:
    from mcpx.record.catalog import from_client, from_recording

    if not isinstance(side, o.ConnectionOptions):
        return from_recording(side)
    from mcpx.protocol.session import open_session
    from mcpx.wire.traffic import TrafficLog

    spec = side.spec()
    # both live servers share one policy: what either was given is masked in the whole report
    async with open_session(spec, side.session(), traffic=TrafficLog(secrets=secrets)) as client:
        return await from_client(client, spec.label)


async def _diff(sides: list[Any], patterns: Any, fmt: str) -> int:
    from mcpx.record.catalog import compare
    from mcpx.wire.secret_policy import SecretPolicy

    secrets = SecretPolicy()
    first = await _snapshot(sides[0], secrets)
    second = await _snapshot(sides[1], secrets)
    result = compare(first, second, patterns)
    if fmt == "json":
        out = json.dumps(secrets.value(result.to_json()), ensure_ascii=False, default=repr)
    else:
        out = escape_controls(secrets.text("\n".join(render(result))))
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
    return DRIFT_EXIT if result.differs else 0


def render(result: Any) -> list[str]:
    a, b = result.a, result.b
    lines = [f"A: {a.source} ({_era(a)})", f"B: {b.source} ({_era(b)})"]
    for title, changes in (
        ("server info", result.server_info),
        ("capabilities", result.capabilities),
        ("instructions", result.instructions),
    ):
        if changes:
            lines.append(f"{title}:")
            lines.extend(f"  {change.describe()}" for change in changes)
        else:
            lines.append(f"{title}: same")
    for catalogue in result.catalogues:
        name = catalogue.name
        if catalogue.unknown:
            lines.append(f"{name}: not compared: {catalogue.unknown}")
            continue
        if not catalogue.differs:
            lines.append(f"{name}: same ({catalogue.same})")
            continue
        counts = [
            f"{len(catalogue.added)} added" if catalogue.added else "",
            f"{len(catalogue.removed)} removed" if catalogue.removed else "",
            f"{len(catalogue.changed)} changed" if catalogue.changed else "",
            f"{catalogue.same} same",
        ]
        lines.append(f"{name}: " + ", ".join(c for c in counts if c))
        lines.extend(f"  + {key}" for key in catalogue.added)
        lines.extend(f"  - {key}" for key in catalogue.removed)
        for key, changes in catalogue.changed.items():
            lines.append(f"  ~ {key}")
            lines.extend(f"      {change.describe()}" for change in changes)
    for note in a.notes + b.notes:
        lines.append(f"note: {note}")
    if result.ignored:
        lines.append(f"({result.ignored} difference(s) ignored by --ignore)")
    lines.append("different (exit 7)" if result.differs else "same")
    return lines


def _era(snapshot: Any) -> str:
    return " ".join(p for p in (snapshot.era, snapshot.protocol_version) if p) or "era unknown"
