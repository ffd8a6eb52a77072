"""`mcpx doctor`: why won't it connect? One step at a time, each with its timing and a hint."""

from __future__ import annotations

import json
import sys
from collections.abc import Coroutine
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.cli.output import print_error
from mcpx.errors import McpxError
from mcpx.wire.controls import escape_controls

_MARKS = {"ok": "✓", "fail": "✗", "warn": "!", "skip": "-"}


@o.connection_flags(timeout=10.0)
def command(
    target: o.Target = None,
    server_args: o.ServerArgs = None,
    connection: o.ConnectionOptions = o.FLAGS,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Walk the connection step by step and stop at the first step that fails."""
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        o.check_format(fmt)
        spec = connection.spec()
        from mcpx.target import command_line

        # the header is the command that runs this again, as it can be copied (server arguments after --)
        again = (
            command_line("doctor", spec, target=target, server_args=server_args or [])
            if target
            else command_line("doctor", spec)
        )
        return _run(spec, connection.session(timeout=connection.request_timeout or 10.0), fmt, again)

    execute(fmt, prepare)


async def _run(spec: Any, options: Any, fmt: str, again: str = "") -> int:
    from mcpx.check.doctor import doctor
    from mcpx.wire.secret_policy import SecretPolicy

    report = await doctor(spec, options)
    secrets = SecretPolicy()
    spec.teach(secrets)  # what the server is reached with is masked in the report, as in every view
    if fmt == "json":
        sys.stdout.write(json.dumps(secrets.value(report.to_json()), ensure_ascii=False) + "\n")
    else:
        out = [again or f"mcpx doctor {report.target}"]
        for step in report.steps:
            line = (
                f"  {_MARKS[step.status]} {step.name:<30} {step.took * 1000:7.0f} ms  {step.detail}".rstrip()
            )
            out.append(line)
            if step.timings:
                out.append(
                    "      "
                    + " · ".join(
                        f"{k.removesuffix('_ms').replace('_', ' ')} {v:g} ms" for k, v in step.timings.items()
                    )
                )
            if step.status in ("fail", "warn"):
                if step.expected:
                    out.append(f"      expected: {step.expected}")
                if step.got:
                    out.append("      got:      " + step.got.replace("\n", "\n                "))
                if step.hint:
                    out.append(f"      fix:      {step.hint}")
        out.append(f"verdict: {report.verdict}")
        # server stderr, banners and HTTP bodies are quoted in details: never let them drive the terminal
        sys.stdout.write(escape_controls(secrets.text("\n".join(out))) + "\n")
    sys.stdout.flush()
    if report.exit_code:  # the verdict once more as the promised JSON error line on stderr
        verdict = secrets.text(report.verdict)
        error = McpxError(f"doctor: {verdict}", verdict=verdict)
        error.code, error.exit_code = "doctor_failed", report.exit_code
        print_error(error, fmt)
    return report.exit_code
