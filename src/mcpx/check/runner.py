"""Run the registered checks against one server and gather a `CheckReport`.

Checks run one at a time, in report order, sweeps last. A check that kills the server is followed by a
restart before the next one (noted on its result), so one broken rule shows up as one failure.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from mcpx.check.context import CheckContext, CheckOptions, LogListener
from mcpx.check.model import Check, CheckResult, Outcome, Skip, all_checks, select, skipped, status_of
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
    ctx.current = check
    started = time.monotonic()
    try:
        outcome = await check.run(ctx)
    except Skip as exc:
        outcome = skipped(exc.reason)
    except McpxError as exc:
        outcome = Outcome(False, f"the check could not finish: {exc.message.splitlines()[0]}")
    except Exception as exc:
        if os.environ.get("MCPX_DEBUG"):
            raise
        outcome = skipped(
            f"mcpx could not run this check ({type(exc).__name__}: {exc}); this is a bug in mcpx"
        )
    finally:
        ctx.current = None
        await ctx.close_fresh()
    era = check.era if check.era != "any" else (ctx.main.era if ctx.main else "")
    result = CheckResult(check, status_of(check, outcome), outcome.detail, outcome.exchanges, era)
    result.took = time.monotonic() - started
    for session in ctx.dead_sessions():
        code = getattr(session.client.transport if session.client else None, "returncode", None)
        result.notes.append(
            f"the server of the {session.label} connection ended during this check"
            + (f" (exit code {code})" if code is not None else "")
            + "; mcpx starts it again for the next checks"
        )
        session.extra["noticed"] = check.id
    if outcome.held is None:
        result.era = ""
    return result


__all__ = ["CheckOptions", "run_checks"]
