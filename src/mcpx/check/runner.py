"""Run the registered checks against one server and gather a `CheckReport`.

Checks run one at a time, in report order, sweeps last. A check whose rule may leave its connection broken
runs on a connection of its own. A check that kills the server, or after which the server stops answering,
is followed by a restart before the next one (noted once, on its result), so one broken rule shows up as
one finding. A check that meets mcpx's own error (its timeout, an HTTP failure) is `incomplete`, not a
failure: its rule could not be judged.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from mcpx.check.context import CheckContext
from mcpx.check.model import (
    Check,
    CheckResult,
    Incomplete,
    Outcome,
    Skip,
    all_checks,
    select,
    skipped,
    status_of,
    unjudged,
)
from mcpx.check.options import CheckOptions, LogListener, older
from mcpx.check.report import CheckReport
from mcpx.errors import McpxError
from mcpx.protocol.client import Client
from mcpx.transports.spec import ServerSpec


async def run_checks(
    spec: ServerSpec,
    options: CheckOptions | None = None,
    *,
    only: Iterable[str] = (),
    skip: Iterable[str] = (),
    checks: list[Check] | None = None,
    client: Client | None = None,
    on_log: LogListener | None = None,
) -> CheckReport:
    """Open the server, run the selected checks, close everything. Raises the connection's error when the
    server cannot be reached at all (the doctor explains those).

    With `client`, the checks run on that already-open connection (a TUI's) and leave it open; its era is
    the main one, and the connections the checks need besides it are started from `spec`. `on_log` is told
    about each connection's traffic log as it opens (a recorder subscribes to it).
    """
    ctx = CheckContext(spec, options, on_log=on_log)
    report = CheckReport(spec.label)
    chosen = select(checks if checks is not None else all_checks(), only, skip)
    try:
        main = await ctx.open(chosen, client=client)
        report.main_era = main.era
        if main.client is not None and main.client.opened is not None:
            info = main.client.opened.server_info
            report.server = {"name": info.name, "version": info.version}
        ordered = [c for c in chosen if not c.final] + [c for c in chosen if c.final]
        results = {check.id: await run_one(ctx, check) for check in ordered}
        report.results = [results[c.id] for c in chosen]
        report.eras = {
            era: (session.version if session is not None else None)
            for era in ("modern", "legacy")
            for session in [next((s for s in ctx.sessions.values() if s.era == era), None)]
        }
        report.notes = ctx.notes
    finally:
        await ctx.close()
        report.logs = ctx.logs()
    return report


async def run_one(ctx: CheckContext, check: Check) -> CheckResult:
    transport = "http" if ctx.spec.url else "stdio"
    if transport not in check.transports:
        return CheckResult(check, "skip", f"applies to {', '.join(sorted(check.transports))} servers only")
    if check.calls_tools and not ctx.options.call_tools:
        return CheckResult(
            check, "skip", "calls tools: run with --call-tools (read-only tools) or --all-tools"
        )
    main = ctx.main
    if check.since and check.era == "any" and main is not None and older(main.version, check.since):
        # the rule came after the revision the connection speaks (checks of one era are gated when they
        # ask for that era's connection)
        return CheckResult(
            check, "skip", f"a rule of {check.since} and later; this connection speaks {main.version}"
        )
    ctx.current = check
    ctx.revision = ""
    started = time.monotonic()
    marks = {label: len(s.local_failures) for label, s in ctx.sessions.items()}
    try:
        outcome = await check.run(ctx)
    except Skip as exc:
        outcome = skipped(exc.reason)
    except Incomplete as exc:
        outcome = unjudged(exc.reason, *exc.exchanges)
    except McpxError as exc:
        outcome = unjudged(f"mcpx could not finish the check: {exc.message.splitlines()[0]}")
    except Exception as exc:
        if os.environ.get("MCPX_DEBUG"):
            raise
        outcome = skipped(
            f"mcpx could not run this check ({type(exc).__name__}: {exc}); this is a bug in mcpx"
        )
    finally:
        ctx.current = None
    if check.isolated:
        ctx.after_isolated(outcome.held)
    elif outcome.held is False:
        outcome = _judgeable(ctx, marks, outcome)
    await ctx.close_fresh()
    era = check.era if check.era != "any" else (ctx.main.era if ctx.main else "")
    result = CheckResult(check, status_of(check, outcome), outcome.detail, outcome.exchanges, era)
    result.took = time.monotonic() - started
    if outcome.held is not None or outcome.unjudged:
        # a sweep over traffic the others made asked for no connection: it judged the main one's revision
        main_revision = ctx.main.version if ctx.main is not None and check.era == "any" else ""
        result.revision = ctx.revision or main_revision
    for session in ctx.dead_sessions():
        code = session.client.session.describe().get("returncode") if session.client else None
        if session.extra.get("silent"):
            silent = session.extra["silent"]
            what = f"the {session.label} connection stopped answering during this check ({silent})"
        else:
            what = f"the server of the {session.label} connection ended during this check" + (
                f" (exit code {code})" if code is not None else ""
            )
        result.notes.append(what + "; mcpx starts it again for the next checks")
        session.extra["noticed"] = check.id
    if outcome.held is None and not outcome.unjudged:
        result.era = ""
    return result


def _judgeable(ctx: CheckContext, marks: dict[str, int], outcome: Outcome) -> Outcome:
    """A broken rule found while mcpx's own requests went unanswered (its timeout, an HTTP failure) was
    not judged: the check is incomplete. (Checks that judge silence itself run isolated: their verdict
    stands.)"""
    # only the shared connections (the era ones): a process of the check's own is the check's to judge
    for label, session in ctx.sessions.items():
        if session not in ctx.era_sessions():
            continue
        failures = session.local_failures[marks.get(label, 0) :]
        if failures:
            first = failures[0]
            return unjudged(f"not judged: {first.describe()}", first.ref, *outcome.exchanges)
    return outcome


__all__ = ["CheckOptions", "run_checks"]
