"""What the non-TUI commands write: results on stdout, `--traffic` and errors on stderr.

Text meant for a person passes through `escape_controls` (server text never drives the terminal); JSON
output keeps the exact characters (JSON escapes controls itself)."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from mcpx.errors import McpxError
from mcpx.wire.controls import escape_controls, escape_json_controls
from mcpx.wire.secret_policy import RULES, SecretPolicy
from mcpx.wire.traffic import TrafficEvent, TrafficLog

_ARROWS = {"out": "→", "in": "←", "info": "•"}


def print_result(
    result: Any, fmt: str, out: TextIO | None = None, secrets: SecretPolicy = RULES, *, method: str = ""
) -> None:
    """A result on stdout, its secrets masked by the session's policy (as `--traffic` and recordings):
    `--format json` the whole result on one line; text what a person reads (see `result_text`)."""
    stream = out or sys.stdout
    result = secrets.value(result)
    if fmt == "json":
        stream.write(json.dumps({"result": result}, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        from mcpx.cli.result_text import result_text

        # masked again once joined: a secret cut across content items is whole only here
        stream.write(secrets.text(result_text(method, result)) + "\n")
    stream.flush()


def release_stdout() -> None:
    """The answer is out: let whoever reads our stdout through a pipe (`mcpx call … | jq`) see its end
    now, while the server is still being stopped; the exit code still waits for that stop.

    fd 1 is pointed at /dev/null rather than closed, so a late write cannot fail or land in a file that
    reuses the number. A terminal or a file is left alone: nobody waits there for an end.
    """
    import os
    import stat

    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno()
        if not (stat.S_ISFIFO(os.fstat(fd).st_mode) or stat.S_ISSOCK(os.fstat(fd).st_mode)):
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)
    except (OSError, ValueError):  # no real stdout (captured by a test, closed by the caller): nothing to do
        return


def print_error(error: McpxError, fmt: str, err: TextIO | None = None) -> None:
    """The human sentence (text format), then one JSON line: always the last line on stderr."""
    stream = err or sys.stderr
    RULES.error(error)  # URL userinfo, credentials by their shape (the session masked what it knew)
    if fmt != "json":
        stream.write(f"mcpx: {escape_controls(error.message)}\n")
    try:
        line = json.dumps(error.to_json(), ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        line = json.dumps({"error": {"code": error.code, "message": error.message}}, ensure_ascii=False)
    stream.write(escape_json_controls(line) + "\n")  # the same JSON value, safe on a terminal
    stream.flush()


class TrafficPrinter:
    """`--traffic`: every frame in and out, every stderr line and transport fact, as it happens."""

    def __init__(self, log: TrafficLog, stream: TextIO | None = None) -> None:
        self.log = log
        self.stream = stream or sys.stderr
        self.secrets = log.secrets

    def attach(self) -> None:
        self.log.subscribe(self)
        self.log.subscribe_flags(self.flagged)

    def flagged(self, event: TrafficEvent, problem: str) -> None:
        """A problem found after the event was printed (a late answer, a failed handler)."""
        when = f"+{self.log.elapsed(event):.3f}s"
        self.stream.write(f"{when} ! {escape_controls(self.secrets.text(problem))} (event #{event.seq})\n")

    def __call__(self, event: TrafficEvent) -> None:
        when = f"+{self.log.elapsed(event):.3f}s"
        raw = self.secrets.text(event.raw)  # the log keeps the bytes; what is shown is masked
        if event.channel == "stderr":
            line = f"{when} stderr| {raw}"
        else:
            line = f"{when} {_ARROWS[event.direction]} {raw}"
        for flag in event.flags:
            line += f"\n{when} ! {self.secrets.text(flag)}"
        self.stream.write(escape_controls(line) + "\n")


def show_sign_in(text: str) -> None:
    """A sign-in message on stderr; an address on a line of its own is also offered to the terminal's
    clipboard (OSC 52, which terminals that allow it honour, over SSH too)."""
    import base64

    text = escape_controls(text)  # the address comes from the server's authorization metadata
    print(text, file=sys.stderr, flush=True)
    if not sys.stderr.isatty():
        return
    for line in text.splitlines():
        if line.startswith(("http://", "https://")):
            encoded = base64.b64encode(line.encode()).decode()
            sys.stderr.write(f"\x1b]52;c;{encoded}\x07")
            sys.stderr.flush()
