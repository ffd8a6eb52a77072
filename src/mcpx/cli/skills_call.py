"""`mcpx call --method skills/list | skills/get` (the Skills extension, SEP-2640).

Both print what the server answered. A skill's files are fetched only when asked: `--verify` loads each
listed skill (or the one `skills/get` names), reads its files — SKILL.md first — and checks every one
against its entry's size and digest and the SKILL.md frontmatter against the entry's; the report goes
under `verification`, and any failure makes the command exit 6 (as `mcpx check` does on a failure).
"""

from __future__ import annotations

from typing import Any

from mcpx.errors import McpxError, UsageError
from mcpx.protocol.client import Client
from mcpx.protocol.skills import LoadedSkill, parse_entry

SKILLS_METHODS = ("skills/list", "skills/get")


class SkillVerificationError(McpxError):
    """A skill's files did not match what its entry declares."""

    code = "skill_verification_failed"
    exit_code = 6


def check(method: str, uri: str | None, params: dict[str, Any] | None, verify: bool) -> None:
    if method == "skills/get" and uri is None and not (params or {}).get("uri"):
        raise UsageError("--method skills/get needs --uri (the skill's SKILL.md URI)")
    if verify and method not in SKILLS_METHODS:
        raise UsageError("--verify works with --method skills/list or skills/get")


async def send(
    client: Client,
    method: str,
    uri: str | None,
    params: dict[str, Any] | None,
    cursor: str | None,
    verify: bool,
) -> tuple[Any, list[str]]:
    """The result to print, and the verification problems (empty when all verified or not asked)."""
    if method == "skills/list":
        if cursor is not None or params:
            result = await client.request(
                method, {**(params or {}), **({"cursor": cursor} if cursor else {})}
            )
        else:
            result = await client.skills.list_raw()
        raws = result.get("skills") if isinstance(result, dict) else None
        entries = [parse_entry(raw) for raw in raws] if isinstance(raws, list) else []
    else:
        result = await client.request(method, {**(params or {}), **({"uri": uri} if uri else {})})
        entries = [parse_entry(result.get("skill") if isinstance(result, dict) else None)]
    if not verify:
        return result, []
    loaded = [await client.skills.load(entry) for entry in entries]
    report = [_report(skill) for skill in loaded]
    problems = [problem for skill in loaded for problem in skill.all_problems()]
    return {**(result if isinstance(result, dict) else {"result": result}), "verification": report}, problems


def _report(skill: LoadedSkill) -> dict[str, Any]:
    return {
        "uri": skill.entry.uri,
        "ok": skill.ok,
        "problems": [*skill.entry.problems, *skill.problems],
        "files": [
            {"uri": v.file.uri, "ok": v.ok, "bytes": len(v.content) if v.content is not None else None,
             "problems": v.problems}
            for v in skill.files
        ],
    }  # fmt: skip


def failed(problems: list[str]) -> SkillVerificationError:
    shown = "; ".join(problems[:3]) + (f" (+{len(problems) - 3} more)" if len(problems) > 3 else "")
    return SkillVerificationError(f"skill verification failed: {shown}", problems=problems)
