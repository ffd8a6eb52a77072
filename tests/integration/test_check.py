"""`mcpx check` against tests/servers/check_server.py: a hand-written dual-era server that gets every rule
right, and one mode per rule that breaks that rule alone. The correct server passes every check (none is
skipped); each broken mode is caught by exactly the check for its rule and by no other.

All modes run once, side by side, in a fixture shared by the xdist workers (each run starts four small
processes: the modern connection, the legacy one, and two fresh processes for the checks that need a
server nobody spoke to).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mcpx.check.model import all_checks
from mcpx.check.options import CheckOptions, check_session
from mcpx.check.report import CheckReport
from mcpx.check.runner import run_checks
from mcpx.protocol.options import SessionOptions
from mcpx.transports.spec import resolve_target

SERVER = Path(__file__).parent.parent / "servers" / "check_server.py"


def _modes() -> list[tuple[str, str]]:
    """(mode, the check that must catch it) from the table in the server's docstring."""
    table = SERVER.read_text(encoding="utf-8").split('"""')[1]
    rows = re.findall(r"^(\S+)\s{2,}.+?\s{2,}(\S+)$", table, re.MULTILINE)
    return [(mode, check) for mode, check in rows if mode != "mode"]


MODES = _modes()
#: the matrix runs in the setup of the first test that asks for it (~45 s quiet; the other worker waits
#: for it on the lock): more than the suite's 120 s per test under a heavy load, and still a hang's bound
pytestmark = pytest.mark.timeout(360)
#: checks of the HTTP transport (tests/servers/check_http_server.py breaks their rules): skipped on stdio
HTTP_ONLY = {c.id for c in all_checks() if "stdio" not in c.transports}
LEGACY_CHECKS = {c.id for c in all_checks() if c.era == "legacy" and c.id not in HTTP_ONLY}
#: the Skills extension's checks: they skip on a server that does not declare the extension
SKILLS = {c.id for c in all_checks() if c.group == "skills"}
#: checks that do not apply, and say why: to a dual-era server, the one about modern-only servers; to a
#: modern-only server, the legacy era's; and a check that cannot judge once another rule is broken
SKIPS = {
    "modern-only": LEGACY_CHECKS | HTTP_ONLY | SKILLS,
    "mute-refusal": LEGACY_CHECKS | HTTP_ONLY | SKILLS,
    "bad-output-schema": {"modern.initialize-refusal", "behaviour.structured-content"} | HTTP_ONLY | SKILLS,
}
DUAL_ERA_SKIPS = {"modern.initialize-refusal"} | HTTP_ONLY | SKILLS


#: modes whose run waits longest (a mute server is waited for up to the timeout): started first, so the
#: matrix takes about as long as its slowest mode rather than that plus a queue (86 s → ~50 s)
SLOW_FIRST = ("mute-on-bad-cursor", "mute-after-garbage", "large-ids-as-doubles", "string-ids-as-numbers")


async def _run_all() -> dict[str, dict[str, Any]]:
    # each run is mostly waiting (quiet windows, timeouts): ~20 s of CPU for the whole matrix
    gate = asyncio.Semaphore(10)
    modes = sorted((mode for mode, _ in MODES), key=lambda mode: mode not in SLOW_FIRST)

    async def one(mode: str) -> tuple[str, dict[str, Any]]:
        async with gate:
            spec = resolve_target(str(SERVER), [mode])
            # a generous timeout: on a loaded machine a slow answer must not pass for silence (incomplete)
            report = await run_checks(spec, CheckOptions(check_session(timeout=30), call_tools=True))
            return mode, report.to_json(frames=True)

    return dict(await asyncio.gather(*(one(mode) for mode in modes)))


@pytest.fixture(scope="session")
def reports(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> dict[str, dict[str, Any]]:
    """Every mode's report (as `--format json` writes it), made once even when xdist runs the tests of this
    module on several workers: the first worker runs the matrix under a lock, the others read its file."""
    if worker_id == "master":  # no xdist
        return asyncio.run(_run_all())
    shared = tmp_path_factory.getbasetemp().parent  # this run's, shared by its workers
    path = shared / "check-matrix.json"
    with open(shared / "check-matrix.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            path.write_text(json.dumps(asyncio.run(_run_all())), encoding="utf-8")
        return json.loads(path.read_text(encoding="utf-8"))


def _results(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in report["checks"]}


def test_the_table_names_every_check_once() -> None:
    caught = [check for _, check in MODES if check != "—"]
    ids = {c.id for c in all_checks()}
    assert set(caught) <= ids
    # every check registered for stdio servers has a server that breaks its rule (the Skills extension's
    # are broken by tests/servers/skills_server.py, in test_skills.py)
    assert ids - set(caught) == HTTP_ONLY | SKILLS


def test_a_server_that_keeps_every_rule_passes_every_check(reports: dict[str, dict[str, Any]]) -> None:
    report = reports["none"]
    assert {i: (r["status"], r["detail"]) for i, r in _results(report).items() if r["status"] != "pass"} == {
        "modern.initialize-refusal": ("skip", "the server answers initialize: it speaks the legacy era too"),
        **{i: ("skip", "applies to http servers only") for i in HTTP_ONLY},
        **{
            i: ("skip", "the server does not declare the io.modelcontextprotocol/skills extension")
            for i in SKILLS
        },
    }
    assert report["exit_code"] == 0
    assert report["main_era"] == "modern"
    assert report["eras"] == {"modern": "2026-07-28", "legacy": "2025-11-25"}
    assert len(report["checks"]) == len(all_checks())


def test_a_modern_only_server_skips_the_legacy_checks_saying_why(reports: dict[str, dict[str, Any]]) -> None:
    report = reports["modern-only"]
    results = _results(report)
    assert {i for i, r in results.items() if r["status"] != "pass"} == LEGACY_CHECKS | HTTP_ONLY | SKILLS
    assert all("does not speak the legacy era" in results[i]["detail"] for i in LEGACY_CHECKS)
    refusal = results["modern.initialize-refusal"]
    assert refusal["detail"] == "initialize refused with error -32602, supported ['2026-07-28']"
    assert report["eras"] == {"modern": "2026-07-28", "legacy": None}


@pytest.mark.parametrize(("mode", "expected"), [m for m in MODES if m[1] != "—"])
def test_each_broken_rule_is_caught_by_exactly_its_check(
    reports: dict[str, dict[str, Any]], mode: str, expected: str
) -> None:
    report = reports[mode]
    results = _results(report)
    flagged = {i: r["status"] for i, r in results.items() if r["status"] in ("fail", "warn")}
    cost = next(c.cost for c in all_checks() if c.id == expected)
    assert flagged == {expected: cost}
    assert report["exit_code"] == (6 if cost == "fail" else 0)
    skipped = {i for i, r in results.items() if r["status"] == "skip"}
    assert skipped == SKIPS.get(mode, DUAL_ERA_SKIPS)
    # the finding points at the exchange that shows it, in the traffic log
    finding = results[expected]
    assert finding["exchange"], finding
    assert finding["frames"] and all(f["raw"] for f in finding["frames"])


def test_findings_point_at_the_frames_that_show_them(reports: dict[str, dict[str, Any]]) -> None:
    garbage = _results(reports["silent-on-garbage"])["jsonrpc.parse-error"]
    assert garbage["frames"][0]["raw"].startswith("mcpx check: this line is not JSON")

    large = _results(reports["large-ids-as-doubles"])["jsonrpc.id-echo-large"]
    assert "9007199254740993" in large["detail"] and "9007199254740992" in large["detail"]

    wrong = _results(reports["echo-unknown-version"])["legacy.version-negotiation"]
    assert wrong["exchange"][0]["log"] == "legacy.version-negotiation"  # its own fresh process
    assert "2099-12-31" in wrong["detail"]


def test_a_check_that_may_kill_the_server_runs_on_a_connection_of_its_own(
    reports: dict[str, dict[str, Any]],
) -> None:
    results = _results(reports["dies-on-garbage"])
    parse = results["jsonrpc.parse-error"]
    assert parse["detail"] == "the server exited after a line that was not JSON"
    assert parse["status"] == "warn" and parse["warns"].startswith("JSON-RPC strictness")
    assert {e["log"] for e in parse["exchange"]} == {"isolated"}
    # the main connection never saw the line: every other check passed on it, no restart was needed
    assert {i for i, r in results.items() if r["status"] == "fail"} == set()
    assert {i for i, r in results.items() if r["status"] == "skip"} == DUAL_ERA_SKIPS
    assert not any(r["notes"] for r in results.values())


def test_checks_that_call_tools_skip_without_the_flag() -> None:
    async def run() -> CheckReport:
        spec = resolve_target(str(SERVER), ["none"])
        return await run_checks(
            spec, CheckOptions(check_session(timeout=15)), only=["behaviour", "jsonrpc.tool-error"]
        )

    report = asyncio.run(run())
    calling = {r.id: r for r in report.results if r.check.calls_tools}
    assert set(calling) == {
        "jsonrpc.tool-error",
        "behaviour.tool-results",
        "behaviour.structured-content",
        "behaviour.progress",
        "behaviour.cancellation",
    }
    assert all(r.status == "skip" and "--call-tools" in r.detail for r in calling.values())
    assert next(r for r in report.results if r.id == "behaviour.resource-read").status == "pass"


def test_a_pinned_era_skips_the_other_eras_checks() -> None:
    async def run() -> CheckReport:
        spec = resolve_target(str(SERVER), ["none"])
        return await run_checks(
            spec,
            CheckOptions(check_session(SessionOptions(era="legacy"), timeout=15)),
            only=["legacy", "modern"],
        )

    report = asyncio.run(run())
    assert report.main_era == "legacy"
    statuses = {r.id: (r.status, r.detail) for r in report.results}
    assert all(status == "pass" for i, (status, _) in statuses.items() if i.startswith("legacy."))
    assert all(
        status == "skip" and "--protocol-era legacy" in detail
        for i, (status, detail) in statuses.items()
        if i.startswith("modern.")
    )


def test_checks_run_on_a_connection_someone_else_opened() -> None:
    """The seam for the TUI's Check view: run on the open client, leave it open, point into its own log."""
    import mcpx

    async def run() -> tuple[CheckReport, int, list[str]]:
        async with mcpx.connect(str(SERVER), ["none"], protocol_era="legacy") as client:
            spec = resolve_target(str(SERVER), ["none"])
            report = await run_checks(
                spec, CheckOptions(check_session(timeout=15)), client=client, only=["jsonrpc", "modern"]
            )
            tools = await client.list_tools(refresh=True)  # still usable
            return report, len(client.traffic), [t.name for t in tools]

    report, logged, tools = asyncio.run(run())
    assert tools == ["echo", "add", "slow", "picture", "forget"]
    assert report.main_era == "legacy"
    statuses = {r.id: r.status for r in report.results}
    assert statuses.pop("jsonrpc.tool-error") == "skip"  # no --call-tools
    assert statuses.pop("modern.initialize-refusal") == "skip"  # it speaks legacy too
    assert set(statuses.values()) == {"pass"}, statuses
    # the jsonrpc findings point into the client's own log, but a check that may break its connection
    # (a line that is not JSON) ran on one of its own, never on the borrowed client
    parse = next(r for r in report.results if r.id == "jsonrpc.parse-error")
    assert parse.exchanges[0].log == "isolated"
    unknown = next(r for r in report.results if r.id == "jsonrpc.unknown-tool")
    assert unknown.exchanges[0].log == "legacy" and max(unknown.exchanges[0].seqs) < logged
    assert next(r for r in report.results if r.id == "modern.discover").exchanges[0].log == "modern"


def test_a_server_silent_after_garbage_costs_one_warning_not_a_cascade(
    reports: dict[str, dict[str, Any]],
) -> None:
    """A server that stops answering (alive) after a line that is not JSON: the line went to a connection
    of its own, so one finding says so and every other check ran on a connection that was never broken."""
    report = reports["mute-after-garbage"]
    results = _results(report)
    parse = results["jsonrpc.parse-error"]
    assert parse["status"] == "warn"
    assert "the server stopped answering" in parse["detail"]
    assert {i: r["status"] for i, r in results.items() if r["status"] not in ("pass", "skip")} == {
        "jsonrpc.parse-error": "warn"
    }
    assert report["summary"]["incomplete"] == 0 and report["exit_code"] == 0


def test_a_string_id_that_comes_back_a_number_is_caught(reports: dict[str, dict[str, Any]]) -> None:
    echo = _results(reports["string-ids-as-numbers"])["jsonrpc.id-echo"]
    assert echo["status"] == "fail"
    assert '"42" came back as 42' in echo["detail"] and '"-7" came back as -7' in echo["detail"]


def test_rules_newer_than_the_negotiated_revision_are_not_applied(reports: dict[str, dict[str, Any]]) -> None:
    """A legacy server at 2025-06-18 answers invalid tool arguments with -32602, as 2025-06-18 says: the
    2025-11-25 isError rule (and every other rule newer than 2025-06-18) is skipped, saying why."""
    report = reports["only-2025-06-18"]
    results = _results(report)
    assert report["eras"] == {"modern": None, "legacy": "2025-06-18"}
    newer = {"jsonrpc.tool-error", "catalogue.tool-names", "catalogue.stable-order", "catalogue.x-mcp-header"}
    for check_id in newer:
        since = next(c.since for c in all_checks() if c.id == check_id)
        assert results[check_id]["status"] == "skip", check_id
        assert (
            results[check_id]["detail"] == f"a rule of {since} and later; this connection speaks 2025-06-18"
        )
    assert not {i for i, r in results.items() if r["status"] in ("fail", "warn", "incomplete")}
    assert results["behaviour.tool-results"]["revision"] == "2025-06-18"
    assert report["exit_code"] == 0


def test_a_connection_that_stops_answering_is_diagnosed_once() -> None:
    """The main connection goes silent during one check (an unknown cursor mutes the server): that check is
    incomplete — never a failure —, a note says the connection stopped answering, the server is started
    again, and the checks after it are judged on the new process."""

    async def run() -> CheckReport:
        spec = resolve_target(str(SERVER), ["mute-on-bad-cursor"])
        return await run_checks(
            spec, CheckOptions(check_session(timeout=3)), only=["catalogue", "legacy.ping"]
        )

    report = asyncio.run(run())
    results = {r.id: r for r in report.results}
    cursor = results["catalogue.invalid-cursor"]
    assert cursor.status == "incomplete"
    assert cursor.detail == "not judged: tools/list got no answer within 3 s; mcpx cancelled it"
    assert [n for r in report.results for n in r.notes] == [
        "the modern connection stopped answering during this check (tools/list got no answer, nor did "
        "server/discover after it); mcpx starts it again for the next checks"
    ]
    after = ["catalogue.tool-names", "catalogue.input-schema", "catalogue.prompt-missing-argument"]
    assert all(results[i].status == "pass" for i in after), {i: results[i].detail for i in after}
    assert {r.status for r in report.results} <= {"pass", "skip", "incomplete"}
    assert report.exit_code == 4 and report.to_json()["complete"] is False


def test_an_answer_already_on_its_way_when_the_cancel_came_is_no_fault() -> None:
    """blocking_tool.py answers its slow call before it reads the cancel: the answer arrives after the
    cancel was sent (the spec's race). It comes before the answer to a ping sent after the cancel, so the
    check does not blame the server (ignores-cancel, which answers after reading it, is still caught)."""
    server = Path(__file__).parent.parent / "servers" / "blocking_tool.py"

    async def run() -> CheckReport:
        spec = resolve_target(str(server), [])
        options = CheckOptions(check_session(SessionOptions(era="legacy"), timeout=15), call_tools=True)
        return await run_checks(spec, options, only=["behaviour.cancellation"])

    result = next(r for r in asyncio.run(run()).results if r.id == "behaviour.cancellation")
    assert result.status == "skip", result.detail
    assert "answered before it could be cancelled" in result.detail
