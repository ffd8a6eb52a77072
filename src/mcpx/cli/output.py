"""What the non-TUI commands write: results on stdout, `--traffic` and errors on stderr."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from mcpx.errors import McpxError
from mcpx.wire.traffic import TrafficEvent, TrafficLog

_ARROWS = {"out": "→", "in": "←", "info": "•"}


def print_result(result: Any, fmt: str, out: TextIO | None = None) -> None:
    stream = out or sys.stdout
    if fmt == "json":
        stream.write(json.dumps({"result": result}, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        stream.write(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    stream.flush()


def print_error(error: McpxError, fmt: str, err: TextIO | None = None) -> None:
    """The human sentence (text format), then one JSON line: always the last line on stderr."""
    stream = err or sys.stderr
    if fmt != "json":
        stream.write(f"mcpx: {error.message}\n")
    try:
        line = json.dumps(error.to_json(), ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        line = json.dumps({"error": {"code": error.code, "message": error.message}}, ensure_ascii=False)
    stream.write(line + "\n")
    stream.flush()


class TrafficPrinter:
    """`--traffic`: every frame in and out, every stderr line and transport fact, as it happens."""

    def __init__(self, log: TrafficLog, stream: TextIO | None = None) -> None:
        self.log = log
        self.stream = stream or sys.stderr

    def attach(self) -> None:
        self.log.subscribe(self)
        self.log.subscribe_flags(self.flagged)

    def flagged(self, event: TrafficEvent, problem: str) -> None:
        """A problem found after the event was printed (a late answer, a failed handler)."""
        when = f"+{self.log.elapsed(event):.3f}s"
        self.stream.write(f"{when} ! {problem} (event #{event.seq})\n")

    def __call__(self, event: TrafficEvent) -> None:
        when = f"+{self.log.elapsed(event):.3f}s"
        if event.channel == "stderr":
            line = f"{when} stderr| {event.raw}"
        else:
            line = f"{when} {_ARROWS[event.direction]} {event.raw}"
        for flag in event.flags:
            line += f"\n{when} ! {flag}"
        self.stream.write(line + "\n")
