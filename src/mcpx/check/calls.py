"""Calling tools for the behaviour checks: which tools may be called, and one call of each, shared.

Only tools annotated `readOnlyHint: true` are called, unless the user gave `--all-tools`: calling a tool
can change things. Arguments come from the tool's own `inputSchema` (`mcpx.check.arguments`). Each call
carries a string progress token (its request id) and has a deadline, so one slow tool cannot hold the run;
calls run a few at a time.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpx.check.arguments import CannotGenerate, generate
from mcpx.check.session import Reply

if TYPE_CHECKING:
    from mcpx.check.context import CheckContext

PARALLEL = 4


@dataclass(slots=True)
class ToolRun:
    tool: dict[str, Any]
    arguments: dict[str, Any] | None = None
    reply: Reply | None = None
    took: float = 0.0
    #: why the tool was not called (not read-only, arguments could not be made)
    not_called: str | None = None
    #: (progress, total) of each progress notification, in order of arrival
    progress: list[tuple[Any, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.tool.get("name"))

    @property
    def completed(self) -> bool:
        """A final result came back (not an error, not input_required, not cancelled)."""
        reply = self.reply
        if reply is None or not reply.ok or not isinstance(reply.result, dict):
            return False
        return bool(reply.result.get("resultType", "complete") == "complete")

    @property
    def asked_for_input(self) -> bool:
        reply = self.reply
        return bool(
            reply
            and reply.ok
            and isinstance(reply.result, dict)
            and reply.result.get("resultType") == "input_required"
        )


def read_only(tool: dict[str, Any]) -> bool:
    annotations = tool.get("annotations")
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


def eligible(ctx: CheckContext, tool: dict[str, Any]) -> str | None:
    """Why this tool may not be called (None when it may)."""
    if ctx.options.all_tools or read_only(tool):
        return None
    return "not annotated readOnlyHint: true (use --all-tools to call it anyway)"


async def call_tools(ctx: CheckContext, tools: list[dict[str, Any]]) -> list[ToolRun]:
    session = await ctx.main_session()
    runs = [ToolRun(tool) for tool in tools]
    gate = asyncio.Semaphore(PARALLEL)

    allowed = {id(run) for run in [r for r in runs if eligible(ctx, r.tool) is None][: ctx.options.max_calls]}

    async def call(index: int, run: ToolRun) -> None:
        reason = eligible(ctx, run.tool)
        if reason is None and id(run) not in allowed:
            reason = f"mcpx check calls at most {ctx.options.max_calls} tools"
        if reason is None:
            try:
                run.arguments = generate(run.tool.get("inputSchema"))
            except CannotGenerate as exc:
                reason = f"no arguments could be made from its inputSchema ({exc})"
        if reason is not None:
            run.not_called = reason
            return
        async with gate:
            started = time.monotonic()
            run.reply = await session.ask(
                "tools/call",
                {"name": run.name, "arguments": run.arguments},
                request_id=f"mcpx-check-call-{index}",
                on_progress=lambda progress, total, message: run.progress.append((progress, total)),
                deadline=ctx.options.tool_timeout or ctx.options.timeout,
            )
            run.took = time.monotonic() - started

    await asyncio.gather(*(call(i, run) for i, run in enumerate(runs, 1)))
    return runs


def called(runs: list[ToolRun]) -> list[ToolRun]:
    return [run for run in runs if run.reply is not None]


def why_none_called(runs: list[ToolRun]) -> str:
    reasons = sorted({run.not_called for run in runs if run.not_called})
    return "no tool was called: " + "; ".join(reasons) if reasons else "no tool was called"
