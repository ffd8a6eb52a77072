"""`mcpx replay FILE --against TARGET [server args…]`: the recording as a regression test.

Exit 0 when every response is the same as recorded, 7 when something changed, went missing or is new
(DESIGN.md), 4 when the server cannot be reached. Without `--against`, the recording opens in the TUI
(read-only, with a time scrubber) when stdout is a terminal; otherwise mcpx describes the recording.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Coroutine
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.errors import UsageError
from mcpx.wire.controls import escape_controls

DRIFT_EXIT = 7
_MARKS = {"same": "same   ", "changed": "CHANGED", "missing": "MISSING", "new": "NEW    "}


@o.connection_flags(timeout=60.0, config=False, remote=False)
def command(
    file: Annotated[str, typer.Argument(help="A recording made with --record.", show_default=False)],
    server_args: o.ServerArgs = None,
    against: Annotated[
        str | None,
        typer.Option(
            "--against", help="Replay against this server (script, command or URL).", show_default=False
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="A JSONPath whose differences do not count (repeatable): $..timestamp"),
    ] = None,
    connection: o.ConnectionOptions = o.FLAGS,
    protocol_era: Annotated[
        str | None, typer.Option("--protocol-era", help="legacy, auto or modern (default: the recording's).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List unchanged requests too.")] = False,
    check_secrets: Annotated[
        bool,
        typer.Option(
            "--check-secrets",
            help="List values in FILE that still look like secrets (exit 6 if any): run before sharing it.",
        ),
    ] = False,
) -> None:
    """Open a recording in the TUI, or replay it against a server and report changes (exit 7 on drift)."""
    from mcpx.cli.main import execute

    connection.target = against
    if check_secrets:
        execute(fmt, lambda: _exit_with(_check_secrets(file, fmt)))
        return
    if against is None and not server_args and fmt == "text" and sys.stdout.isatty():
        raise typer.Exit(_open_tui(file))

    def prepare() -> Coroutine[Any, Any, int]:
        from mcpx.record.reader import read_recording

        o.check_format(fmt)
        patterns = o.ignore_patterns(ignore)
        recording = read_recording(file)
        gc.freeze()  # the recording lives as long as the command: keep the collector off it
        for problem in recording.problems:
            sys.stderr.write(escape_controls(f"mcpx: {file}: {problem}") + "\n")
        if against is None:
            if server_args:
                raise UsageError("server arguments need --against TARGET")
            return _describe(recording, fmt)
        era = protocol_era or (recording.era if recording.era in ("legacy", "modern") else "auto")
        spec = connection.spec()
        options = connection.session(era=era)
        return _replay(recording, spec, options, patterns, fmt, verbose)

    execute(fmt, prepare)


async def _replay(recording: Any, spec: Any, options: Any, patterns: Any, fmt: str, verbose: bool) -> int:
    from mcpx.record.replay import replay
    from mcpx.wire.traffic import TrafficLog

    log = TrafficLog()  # its policy learns what the server is reached with: the report masks it
    report = await replay(recording, spec, options, ignore=patterns, traffic=log)
    if fmt == "json":
        body = log.secrets.value(report.to_json())
        sys.stdout.write(json.dumps(body, ensure_ascii=False, default=repr) + "\n")
    else:
        sys.stdout.write(escape_controls(log.secrets.text("\n".join(render(report, verbose)))) + "\n")
    sys.stdout.flush()
    return DRIFT_EXIT if report.drift else 0


def render(report: Any, verbose: bool = False) -> list[str]:
    """The text report: one line per request (unchanged ones only with `verbose`), diffs indented."""
    version = f" {report.protocol_version}" if report.protocol_version else ""
    lines = [f"replaying {report.recording} against {report.against} ({report.era}{version})"]
    for item in report.items:
        if item.status == "same" and not verbose and not item.notes:
            continue
        lines.append(f"  {_MARKS[item.status]}  #{item.seq} {item.label}")
        lines.extend(f"             {change.describe()}" for change in item.changes[:50])
        if len(item.changes) > 50:
            lines.append(f"             … and {len(item.changes) - 50} more differences")
        if item.ignored:
            lines.append(f"             ({len(item.ignored)} difference(s) ignored by --ignore)")
        lines.extend(f"             note: {note}" for note in item.notes)
    counts = report.counts()
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n or k == "same")
    verdict = "drift (exit 7)" if report.drift else "no drift"
    ignored = sum(len(item.ignored) for item in report.items)
    if ignored:
        summary += f" ({ignored} difference(s) ignored by --ignore)"
    lines.append(f"{len(report.items)} responses compared: {summary} — {verdict}")
    return lines


def _open_tui(file: str) -> int:
    """`mcpx replay FILE` in a terminal: the recording in the TUI (a bad file: one sentence, exit 1)."""
    from mcpx.cli.output import print_error
    from mcpx.errors import McpxError

    try:
        from mcpx.tui import InspectSettings, make_replay_app

        app = make_replay_app(file, settings=InspectSettings.load())
    except McpxError as exc:
        print_error(exc, "text")
        return exc.exit_code
    from mcpx.tui.shell.signals import exit_on_signals

    with exit_on_signals(app):  # SIGINT/SIGTERM/SIGHUP: leave like `q`, terminal restored, 128 + n
        result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)


SECRETS_FOUND_EXIT = 6


async def _exit_with(code: int) -> int:
    return code


def _check_secrets(file: str, fmt: str) -> int:
    """`--check-secrets`: every value that looks like a secret, by line; exit 6 when there is one."""
    import os

    from mcpx.record.secret_check import check_file

    o.check_format(fmt)
    if not os.path.isfile(file):
        raise UsageError(f"no recording at {file!r}")
    findings = check_file(file)
    if fmt == "json":
        sys.stdout.write(json.dumps({"findings": [f.to_json() for f in findings]}) + "\n")
    elif findings:
        lines = [f"{file}: {len(findings)} value(s) look like secrets:"]
        lines += [f"  {finding.describe()}" for finding in findings]
        lines.append("Mask or remove them before sharing the file (see docs/security.md).")
        sys.stdout.write("\n".join(lines) + "\n")
    else:
        sys.stdout.write(f"{file}: nothing that looks like a secret\n")
    return SECRETS_FOUND_EXIT if findings else 0


async def _describe(recording: Any, fmt: str) -> int:
    """No --against and no terminal (or --format json): a description of the recording."""
    summary = recording.summary()
    if fmt == "json":
        sys.stdout.write(json.dumps(summary, ensure_ascii=False) + "\n")
        return 0
    out = [
        f"{summary['path']}: a recording of {summary['target']}",
        f"  started {summary['started']} by mcpx {summary['mcpx_version']}, {summary['era']}"
        + (f" {summary['protocol_version']}" if summary["protocol_version"] else "")
        + f", {summary['events']} events over {summary['duration_s']} s, secrets {summary['secrets']}",
    ]
    for method, count in sorted(summary["requests"].items()):
        out.append(f"  {count:6d} × {method}")
    if summary["truncated"]:
        out.append(
            "  the recording was cut off (mcpx was killed while writing); every complete event is kept"
        )
    out.append(
        "Run `mcpx replay FILE` in a terminal to open it in the TUI, `mcpx replay FILE --against TARGET` to "
        "replay it against a server, or `mcpx mock FILE` to serve it."
    )
    sys.stdout.write(escape_controls("\n".join(out)) + "\n")
    return 0
