"""`mcpx check`: is my server right? Protocol checks, each with its rule, its level and the exchange."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer

from mcpx.cli import options as o
from mcpx.cli.options import RecordSecrets
from mcpx.cli.recording import RecordingPlan
from mcpx.errors import ConnectError, RequestTimeoutError, UsageError
from mcpx.target import ServerSpec
from mcpx.wire.controls import escape_controls
from mcpx.wire.traffic import TrafficLog

_MARKS = {"pass": "✓", "fail": "✗", "warn": "!", "skip": "-", "incomplete": "?"}
_WORDS = {"pass": "pass", "fail": "FAIL", "warn": "warn", "skip": "skipped", "incomplete": "incomplete"}
_COLOURS = {"pass": "32", "fail": "31;1", "warn": "33", "skip": "2", "incomplete": "35"}
FRAME_WIDTH = 600


@o.connection_flags(timeout=10.0, version=False, remote=False)
def command(
    target: o.Target = None,
    server_args: o.ServerArgs = None,
    call_tools: Annotated[
        bool,
        typer.Option(
            "--call-tools", help="Also call tools annotated readOnlyHint (calls can change things)."
        ),
    ] = False,
    all_tools: Annotated[
        bool, typer.Option("--all-tools", help="Call every tool, read-only or not.")
    ] = False,
    tool_timeout: Annotated[
        float | None,
        typer.Option("--tool-timeout", help="Seconds each tool call may take in all (default: --timeout)."),
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Run only these checks (ids, id prefixes or groups).")
    ] = None,
    skip: Annotated[list[str] | None, typer.Option("--skip", help="Leave these checks out.")] = None,
    list_checks: Annotated[bool, typer.Option("--list", help="List the checks and exit.")] = False,
    recording: Annotated[
        str | None,
        typer.Option(
            "--recording",
            help="Judge a recorded session (FILE, a .mcpx.jsonl) instead of a server: nothing is sent.",
            show_default=False,
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="Show the rule and the exchange of each failure and warning."),
    ] = False,
    junit: Annotated[
        str | None, typer.Option("--junit", help="Also write a JUnit XML report to FILE.")
    ] = None,
    record: Annotated[
        str | None,
        typer.Option(
            "--record",
            help="Record the main connection to FILE, each other one beside it (STEM.LABEL.mcpx.jsonl).",
            show_default=False,
        ),
    ] = None,
    record_secrets: RecordSecrets = False,
    connection: o.ConnectionOptions = o.FLAGS,
    probe_timeout: Annotated[
        float | None,
        typer.Option(
            "--probe-timeout",
            help="Seconds auto waits for server/discover before legacy (default: --timeout).",
        ),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Run protocol checks against a server: pass / fail / warn / skipped, exit 6 when one fails."""
    from mcpx.cli.main import execute

    connection.probe_timeout = probe_timeout or 0.0
    protocol_era = connection.protocol_era

    def prepare() -> Coroutine[Any, Any, int]:
        o.check_format(fmt)
        connection.session()  # one sentence for a bad --protocol-era
        if list_checks:
            return _list(fmt)
        if recording is not None:
            if target or connection.server or connection.config:
                raise UsageError(
                    "--recording judges a recorded session: give no TARGET, --server or --config"
                )
            return _judge_recording(recording, fmt, verbose, junit)
        from mcpx.check.model import all_checks, select
        from mcpx.check.options import CheckOptions, check_session

        for flag, names in (("--only", only), ("--skip", skip)):
            for name in _split(names or []):
                if not select(all_checks(), [name]):
                    raise UsageError(f"{flag} {name!r} names no check (see mcpx check --list)")

        spec = connection.spec()
        if junit:
            _write(junit, "")  # a path that cannot be written fails now, before any server starts
        plan = RecordingPlan.from_flags(record, record_secrets, spec, protocol_era)
        recordings = Recordings(plan) if plan is not None else None
        options = CheckOptions(
            check_session(connection.session(), probe_timeout=probe_timeout),
            call_tools=call_tools or all_tools,
            all_tools=all_tools,
            tool_timeout=tool_timeout,
        )
        from mcpx.target import command_line

        rerun = (
            command_line("check", spec, target=target, server_args=server_args or [])
            if target
            else command_line("check", spec)
        )
        output = Output(fmt, verbose, junit, recordings, rerun)
        run = _run(spec, options, _split(only or []), _split(skip or []), output)
        return recordings.run(run) if recordings is not None else run

    execute(fmt, prepare)


async def _list(fmt: str) -> int:
    from mcpx.check.model import all_checks

    checks = all_checks()
    if fmt == "json":
        sys.stdout.write(json.dumps([c.to_json() for c in checks], ensure_ascii=False) + "\n")
        return 0
    for c in checks:
        extra = " (--call-tools)" if c.calls_tools else ""
        since = f" [{c.since}+]" if c.since else ""
        sys.stdout.write(f"{c.id:<36} {c.level:<6} {c.cost:<4} {c.title}{extra}{since} — {c.cite}\n")
    return 0


@dataclass(slots=True)
class Output:
    fmt: str
    verbose: bool
    junit: str | None
    recordings: Recordings | None
    #: the command that checks this server, as it can be run again (the report's header)
    rerun: str = ""


class Recordings:
    """`--record FILE`: one recording per connection the run opens. The main connection goes to FILE, each
    other one (the other era, fresh processes) beside it, named by the label findings use for it."""

    def __init__(self, plan: RecordingPlan) -> None:
        self.first = plan
        self.plans: dict[str, RecordingPlan] = {}

    def path_for(self, label: str) -> Path:
        path = self.first.path
        if not self.plans:
            return path
        name = path.name
        suffix = ".mcpx.jsonl" if name.endswith(".mcpx.jsonl") else path.suffix
        stem = name[: len(name) - len(suffix)] if suffix else name
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", label)
        return path.with_name(f"{stem}.{slug}{suffix}")

    def attach(self, label: str, log: TrafficLog) -> None:
        first = self.first
        plan = RecordingPlan(self.path_for(label), first.spec, first.era, first.secrets)
        plan.attach(log)
        self.plans[label] = plan

    def paths(self) -> dict[str, str]:
        return {label: str(plan.path) for label, plan in self.plans.items()}

    async def run(self, coroutine: Coroutine[Any, Any, int]) -> int:
        try:
            return await coroutine
        finally:
            for plan in self.plans.values():
                plan.close()


async def _run(spec: ServerSpec, options: Any, only: list[str], skip: list[str], output: Output) -> int:
    from mcpx.check.runner import run_checks
    from mcpx.wire.secret_policy import SecretPolicy

    recordings = output.recordings
    try:
        report = await run_checks(
            spec, options, only=only, skip=skip, on_log=recordings.attach if recordings else None
        )
    except (ConnectError, RequestTimeoutError) as exc:
        doctor = output.rerun.replace("mcpx check", "mcpx doctor", 1)
        exc.message += f"\n(run `{doctor}` to walk the connection step by step)"
        raise
    # the report quotes what the server said: what it was reached with is masked, as in every view
    secrets = SecretPolicy()
    spec.teach(secrets)
    if output.junit:
        _write(output.junit, secrets.text(report.junit()))
    if output.fmt == "json":
        body = secrets.value(report.to_json())
        if recordings is not None:
            body["recordings"] = recordings.paths()
        sys.stdout.write(json.dumps(body, ensure_ascii=False) + "\n")
    else:
        text = io.StringIO()
        render(report, text, verbose=output.verbose, colour=_colour(sys.stdout), command=output.rerun)
        sys.stdout.write(secrets.text(text.getvalue()))
        if recordings is not None:
            shown = ", ".join(f"{label}: {path}" for label, path in recordings.paths().items())
            sys.stdout.write(f"recorded: {shown}\n")
    sys.stdout.flush()
    return report.exit_code


async def _judge_recording(path: str, fmt: str, verbose: bool, junit: str | None) -> int:
    from mcpx.check.passive import judge_recording
    from mcpx.record.reader import read_recording

    recorded = read_recording(path)
    report = judge_recording(recorded.log, recorded.protocol_version, recorded.target)
    if junit:
        _write(junit, report.junit())
    if fmt == "json":
        body = report.to_json()
        body["recording"] = path
        sys.stdout.write(json.dumps(body, ensure_ascii=False) + "\n")
    else:
        import shlex

        render(
            report,
            sys.stdout,
            verbose=verbose,
            colour=_colour(sys.stdout),
            command=f"mcpx check --recording {shlex.quote(path)}",
        )
    sys.stdout.flush()
    return report.exit_code


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write the JUnit report to {path!r}: {exc.strerror or exc}") from None


def _split(names: list[str]) -> list[str]:
    return [n.strip() for name in names for n in name.split(",") if n.strip()]


def _colour(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def render(
    report: Any, out: TextIO, *, verbose: bool = False, colour: bool = False, command: str = ""
) -> None:
    """The readable report: a header (the command that runs it again, as it can be copied), one line per
    check grouped, the totals; with `verbose`, the rule and the exchange under each failure and warning."""

    def paint(text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if colour else text

    # server text (its name, details quoting its answers, frames) is escaped; mcpx's colours are added after
    esc = escape_controls

    server = report.server
    eras = ", ".join(f"{era} {version}" for era, version in report.eras.items() if version) or "?"
    out.write(esc(command or f"mcpx check {report.target}") + "\n")
    out.write(
        esc(f"server {server.get('name') or '?'} {server.get('version') or ''} · {eras} · ")
        + f"main connection: {report.main_era}\n"
    )
    width = max((len(r.id) for r in report.results), default=20)
    for title, results in report.by_group():
        out.write(f"\n{paint(title, '1')}\n")
        for result in results:
            word = paint(f"{_MARKS[result.status]} {_WORDS[result.status]:<7}", _COLOURS[result.status])
            where = (
                "  " + " ".join(f"[{ref.log}#{_seqs(ref.seqs)}]" for ref in result.exchanges[:2])
                if result.status in ("fail", "warn", "incomplete")
                else ""
            )
            out.write(f"  {word} {result.id:<{width}}  {esc(str(result.detail))}{where}\n")
            if result.status == "warn" and result.check.warns:
                out.write(f"      only a warning: {result.check.warns}\n")
            for note in result.notes:
                out.write(f"      note: {esc(str(note))}\n")
            if verbose and result.status in ("fail", "warn", "incomplete"):
                _details(report, result, out)
    summary = report.summary()
    out.write(
        f"\n{len(report.results)} checks: {summary['pass']} passed, {summary['fail']} failed, "
        f"{summary['warn']} warnings, {summary['skip']} skipped"
        + (f", {summary['incomplete']} incomplete (not judged)" if summary["incomplete"] else "")
        + "\n"
    )


def _details(report: Any, result: Any, out: TextIO) -> None:
    check = result.check
    out.write(f"      {check.title}\n")
    out.write(f"      rule ({check.level}): {check.rule}\n")
    out.write(f"      source: {check.cite} — {check.source}\n")
    for frame in report.frames(result):
        arrow = {"out": "→", "in": "←", "info": "•"}[frame["direction"]]
        raw = frame["raw"] if len(frame["raw"]) <= FRAME_WIDTH else frame["raw"][:FRAME_WIDTH] + "…"
        out.write(f"      {frame['log']}#{frame['seq']} {arrow} {escape_controls(raw)}\n")


def _seqs(seqs: tuple[int, ...]) -> str:
    if not seqs:
        return "-"
    if len(seqs) > 2 and list(seqs) == list(range(seqs[0], seqs[-1] + 1)):
        return f"{seqs[0]}-{seqs[-1]}"
    shown = ",".join(str(s) for s in seqs[:6])
    return shown + ("…" if len(seqs) > 6 else "")
