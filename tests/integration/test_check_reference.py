"""`mcpx check` against servers built on the official SDKs, the reference: every check passes on them, or its
failure is a real deviation of that SDK, written down here with the rule and the exchange that shows it.

- tests/servers/sdk_everything.py on the Python SDK's `MCPServer` (v2, both eras), all tools called;
- `@modelcontextprotocol/server-everything@2026.8.31` (TypeScript SDK v1, legacy era only), read-only tools.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from mcpx.check.model import CheckResult, all_checks
from mcpx.check.options import CheckOptions, check_session
from mcpx.check.report import CheckReport
from mcpx.check.runner import run_checks
from mcpx.transports.spec import ServerSpec, resolve_target

ROOT = Path(__file__).resolve().parents[2]
SDK_SERVER = ROOT / "tests" / "servers" / "sdk_everything.py"
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"


def _run(spec: ServerSpec, options: CheckOptions) -> CheckReport:
    return asyncio.run(run_checks(spec, options))


def _by_id(report: CheckReport) -> dict[str, CheckResult]:
    return {r.id: r for r in report.results}


def _frames(report: CheckReport, result: CheckResult) -> list[str]:
    return [f["raw"] for f in report.frames(result)]


#: the HTTP transport's checks (test_check_http.py runs them): skipped on stdio
HTTP_ONLY = {c.id for c in all_checks() if "stdio" not in c.transports}
SKILLS = {c.id for c in all_checks() if c.group == "skills"}


@pytest.fixture(scope="module")
def sdk_report() -> CheckReport:
    spec = resolve_target(str(SDK_SERVER))
    # its tools carry no annotations (so none is read-only), and all of them are harmless: call them all
    return _run(
        spec, CheckOptions(check_session(timeout=20), call_tools=True, all_tools=True, tool_timeout=10)
    )


def test_the_python_sdk_passes_every_check_but_its_known_deviations(sdk_report: CheckReport) -> None:
    results = _by_id(sdk_report)
    assert sdk_report.main_era == "modern"
    assert sdk_report.eras == {"modern": "2026-07-28", "legacy": "2025-11-25"}
    deviations = {i: r.status for i, r in results.items() if r.status in ("fail", "warn")}
    assert deviations == {
        "jsonrpc.parse-error": "warn",
        "jsonrpc.unknown-tool": "warn",
        "catalogue.invalid-cursor": "warn",
        "catalogue.prompt-missing-argument": "warn",
    }
    skipped = {i: r.detail for i, r in results.items() if r.status == "skip"}
    assert skipped == {
        "catalogue.x-mcp-header": "no tool annotates a property with x-mcp-header",
        "modern.initialize-refusal": "the server answers initialize: it speaks the legacy era too",
        **{i: "applies to http servers only" for i in HTTP_ONLY},
        **{i: "the server does not declare the io.modelcontextprotocol/skills extension" for i in SKILLS},
    }


def test_python_sdk_deviation_no_answer_to_a_line_that_is_not_json(sdk_report: CheckReport) -> None:
    # JSON-RPC 2.0 §5.1 (MUST): "-32700 Parse error: Invalid JSON was received by the server", id null.
    # Exchange: mcpx writes a line that is not JSON, then server/discover; only the discover is answered.
    result = _by_id(sdk_report)["jsonrpc.parse-error"]
    assert result.detail == "no answer to a line that was not JSON (expected -32700 with id null)"
    frames = _frames(sdk_report, result)
    assert frames[0] == "mcpx check: this line is not JSON {"
    assert '"method":"server/discover"' in frames[1] and '"supportedVersions"' in frames[2]


def test_python_sdk_deviation_unknown_tool_is_a_tool_result(sdk_report: CheckReport) -> None:
    # MCP tools, Error Handling: unknown tools are protocol errors (JSON-RPC error, example -32602).
    # Exchange: tools/call mcpx-check-no-such-tool → result {"content": [… "Unknown tool: …"], "isError": true}.
    result = _by_id(sdk_report)["jsonrpc.unknown-tool"]
    request, answer = _frames(sdk_report, result)
    assert '"name":"mcpx-check-no-such-tool"' in request
    assert '"isError":true' in answer and "Unknown tool: mcpx-check-no-such-tool" in answer


def test_python_sdk_deviation_invalid_cursor_ignored(sdk_report: CheckReport) -> None:
    # MCP pagination (SHOULD): "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."
    # Exchange: tools/list with cursor "mcpx-check-invalid-cursor" → the first (only) page of tools.
    result = _by_id(sdk_report)["catalogue.invalid-cursor"]
    request, answer = _frames(sdk_report, result)
    assert '"cursor":"mcpx-check-invalid-cursor"' in request
    assert '"tools":[' in answer


def test_python_sdk_deviation_missing_prompt_argument_is_an_internal_error(sdk_report: CheckReport) -> None:
    # MCP prompts, Error Handling (SHOULD): "Missing required arguments: -32602 (Invalid params)".
    # Exchange: prompts/get review_code with no arguments → error -32603 "Internal server error".
    result = _by_id(sdk_report)["catalogue.prompt-missing-argument"]
    request, answer = _frames(sdk_report, result)
    assert '"name":"review_code"' in request
    assert '"code":-32603' in answer


def test_the_python_sdk_behaves_when_its_tools_are_called(sdk_report: CheckReport) -> None:
    results = _by_id(sdk_report)
    for check in ("tool-results", "structured-content", "progress", "cancellation", "resource-read"):
        assert results[f"behaviour.{check}"].status == "pass", results[f"behaviour.{check}"]
    assert "count_slowly" in results["behaviour.cancellation"].detail
    for check in ("initialize", "version-negotiation", "before-initialize", "ping"):
        assert results[f"legacy.{check}"].status == "pass"
    assert (
        results["legacy.version-negotiation"].detail == "offered 2099-12-31, the server answered 2025-11-25"
    )


@pytest.fixture(scope="module")
def everything_report() -> CheckReport:
    if not EVERYTHING.exists() or shutil.which("node") is None:
        pytest.skip("@modelcontextprotocol/server-everything is not installed (npm ci, see README)")
    spec = resolve_target(str(EVERYTHING))
    # read-only tools only (its default); trigger-long-running-operation takes 10 s (progress every 2 s):
    # the deadline cuts it after two progress notifications
    return _run(spec, CheckOptions(check_session(timeout=20), call_tools=True, tool_timeout=5))


@pytest.mark.npm
def test_server_everything_passes_every_check_but_its_known_deviations(
    everything_report: CheckReport,
) -> None:
    results = _by_id(everything_report)
    assert everything_report.main_era == "legacy"
    assert everything_report.eras == {"modern": None, "legacy": "2025-11-25"}
    deviations = {i: r.status for i, r in results.items() if r.status in ("fail", "warn")}
    assert deviations == {
        "jsonrpc.parse-error": "warn",
        "jsonrpc.id-echo-large": "warn",
        "jsonrpc.unknown-tool": "warn",
        "catalogue.invalid-cursor": "warn",
    }
    skipped = {i for i, r in results.items() if r.status == "skip"}
    # legacy only (TypeScript SDK v1): no server/discover, so the modern era's checks do not apply
    assert skipped == {
        "modern.discover",
        "modern.version-negotiation",
        "modern.envelope-required",
        "modern.result-type",
        "modern.cache-hints",
        "modern.server-info",
        "modern.initialize-refusal",
        # rules of 2026-07-28: the server speaks 2025-11-25
        "catalogue.x-mcp-header",
        "catalogue.stable-order",
        *HTTP_ONLY,
        *SKILLS,
    }
    assert results["catalogue.stable-order"].detail == (
        "a rule of 2026-07-28 and later; this connection speaks 2025-11-25"
    )
    assert "server/discover answered error -32601" in results["modern.discover"].detail


@pytest.mark.npm
def test_server_everything_deviation_no_answer_to_a_line_that_is_not_json(
    everything_report: CheckReport,
) -> None:
    # JSON-RPC 2.0 §5.1 (MUST): -32700 with id null. Exchange: the line, then ping → {} only.
    result = _by_id(everything_report)["jsonrpc.parse-error"]
    frames = _frames(everything_report, result)
    assert frames[0] == "mcpx check: this line is not JSON {"
    assert '"method":"ping"' in frames[1] and '"result":{}' in frames[2]


@pytest.mark.npm
def test_server_everything_deviation_ids_beyond_2_53_get_no_answer(everything_report: CheckReport) -> None:
    # JSON-RPC 2.0 §5 (MUST): the response id "MUST be the same as the value of the id member in the Request
    # Object"; MCP's RequestId is any string or integer. Exchange: ping with ids 2^53 + 1, 2^63 − 1 and
    # −(2^53 + 1) — the TypeScript SDK rejects the messages (its integer ids must be safe) and answers none.
    result = _by_id(everything_report)["jsonrpc.id-echo-large"]
    assert result.detail.startswith(
        "no answer carried id 9007199254740993, 9223372036854775807, -9007199254740993"
    )
    frames = _frames(everything_report, result)
    assert frames == [
        '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
        '{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}',
        '{"jsonrpc":"2.0","id":-9007199254740993,"method":"ping"}',
    ]


@pytest.mark.npm
def test_server_everything_deviation_unknown_tool_is_a_tool_result(everything_report: CheckReport) -> None:
    # MCP tools, Error Handling: unknown tools are protocol errors. Exchange: tools/call of an unknown tool →
    # {"content": [{"type": "text", "text": "MCP error -32602: Tool … not found"}], "isError": true}.
    result = _by_id(everything_report)["jsonrpc.unknown-tool"]
    _, answer = _frames(everything_report, result)
    assert '"isError":true' in answer and "MCP error -32602" in answer


@pytest.mark.npm
def test_server_everything_deviation_invalid_cursor_ignored(everything_report: CheckReport) -> None:
    # MCP pagination (SHOULD): invalid cursors → -32602. Exchange: tools/list with an unknown cursor → page 1.
    result = _by_id(everything_report)["catalogue.invalid-cursor"]
    request, answer = _frames(everything_report, result)
    assert '"cursor":"mcpx-check-invalid-cursor"' in request and '"tools":[' in answer


@pytest.mark.npm
def test_server_everything_behaves_when_its_read_only_tools_are_called(
    everything_report: CheckReport,
) -> None:
    results = _by_id(everything_report)
    for check in ("tool-results", "structured-content", "progress", "cancellation", "resource-read"):
        assert results[f"behaviour.{check}"].status == "pass", results[f"behaviour.{check}"]
    assert "get-structured-content" in results["behaviour.structured-content"].detail
    assert "trigger-long-running-operation" in results["behaviour.cancellation"].detail
