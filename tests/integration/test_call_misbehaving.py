"""`mcpx call` against hand-written servers that each break one rule (tests/servers/*.py on `bare`).

Nothing a server sends may crash mcpx: each case ends in the result or in one clear error line, in
seconds, with no traceback and no process left behind.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from call_harness import call, read_pid, recorded, server, text_of, wait_dead


def echo(name: str, *extra: str, **kwargs):
    return call(
        server(name),
        *extra,
        "--method",
        "tools/call",
        "--tool-name",
        "echo",
        "--tool-arg",
        "text=hi",
        **kwargs,
    )


# -- stdout that is not a protocol message ---------------------------------------------------------------
def test_non_json_lines_are_skipped_and_flagged() -> None:
    proc = echo("noisy_stdout.py", "--traffic", "--format", "json")
    assert text_of(proc.result()) == "hi"
    traffic = proc.traffic()
    # every line the server wrote is shown, as it came
    for noise in (
        "Server starting... (this banner belongs on stderr)",
        "DEBUG: got a call",
        "{not json at all",
    ):
        index = next((i for i, line in enumerate(traffic) if line.endswith(f"← {noise}")), None)
        assert index is not None, f"{noise!r} missing from --traffic\n{proc}"
        # … and flagged as a problem right under it, as stray responses are
        assert " ! " in traffic[index + 1] and "JSON" in traffic[index + 1], (
            f"the non-JSON line {noise!r} is not flagged in --traffic\n{proc}"
        )


def test_invalid_utf8_line_is_flagged_and_the_session_goes_on() -> None:
    proc = echo("bad_utf8.py", "--traffic", "--format", "json")
    assert text_of(proc.result()) == "hi"
    flags = [line for line in proc.traffic() if " ! " in line]
    assert any("UTF-8" in line for line in flags), str(proc)


def test_invalid_utf8_inside_a_result_is_replaced_not_fatal() -> None:
    proc = call(server("bad_utf8.py"), "--method", "tools/call", "--tool-name", "latin1", "--format", "json")
    assert text_of(proc.result()) == "caf\ufffd"


# -- responses that answer nothing ------------------------------------------------------------------------
def test_response_to_an_id_never_sent_is_flagged_and_ignored() -> None:
    proc = echo("stray_response.py", "--traffic", "--format", "json")
    assert text_of(proc.result()) == "hi"
    flags = [line for line in proc.traffic() if " ! " in line]
    assert any("987654" in line for line in flags), str(proc)
    assert any("no-such-request" in line for line in flags), str(proc)


def test_duplicate_response_keeps_the_first_and_flags_the_second() -> None:
    proc = echo("duplicate_response.py", "--traffic", "--format", "json")
    assert text_of(proc.result()) == "hi"
    traffic = proc.traffic()
    second = next(i for i, line in enumerate(traffic) if "a second answer to the same request" in line)
    assert " ! " in traffic[second + 1], f"the duplicate response is not flagged\n{proc}"


# -- what the server asks the client ---------------------------------------------------------------------
def test_unknown_server_request_gets_method_not_found_and_ping_is_answered() -> None:
    answers = json.loads(
        call(server("asks_client.py"), "--method", "tools/call", "--tool-name", "ask").text()
    )
    assert answers["unknown"]["id"] == "srv-1"
    assert answers["unknown"]["error"]["code"] == -32601
    assert "result" not in answers["unknown"]
    assert answers["ping"] == {"jsonrpc": "2.0", "id": "srv-2", "result": {}}


# -- servers that die ------------------------------------------------------------------------------------
@pytest.mark.parametrize("when", ["start", "initialize", "call"])
def test_server_that_exits_reports_its_code_and_stderr(when: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    proc = call(
        server("dies.py"), when, "7", "--method", "tools/call", "--tool-name", "crash",
        env={"MCPX_TEST_PIDFILE": str(pidfile)},
    )  # fmt: skip
    error = proc.failure(4, "server_exited")
    assert "exited with code 7" in error["message"], str(proc)
    assert "FATAL: the disk is on fire" in error["message"], str(proc)
    assert proc.elapsed < 10, str(proc)
    if when == "call":
        assert "tools/call" in error["message"], str(proc)
    assert wait_dead(read_pid(pidfile))


def test_command_that_does_not_exist_is_unreachable() -> None:
    proc = call("mcpx-test-no-such-command-4711", "--method", "tools/list")
    error = proc.failure(4, "unreachable")
    assert "mcpx-test-no-such-command-4711" in error["message"]


# -- servers that never answer ---------------------------------------------------------------------------
def test_timeout_cancels_the_call_and_exits_4(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    pidfile = tmp_path / "pid"
    started = time.monotonic()
    proc = call(
        server("never_answers.py"), "--method", "tools/call", "--tool-name", "wait", "--timeout", "1",
        env={"MCPX_TEST_RECORD": str(record), "MCPX_TEST_PIDFILE": str(pidfile)},
    )  # fmt: skip
    elapsed = time.monotonic() - started
    error = proc.failure(4, "timeout")
    assert "tools/call" in error["message"] and "1 s" in error["message"], str(proc)
    assert elapsed < 8, f"took {elapsed:.1f}s\n{proc}"
    assert wait_dead(read_pid(pidfile))

    messages = recorded(record)
    call_id = next(m["id"] for m in messages if m.get("method") == "tools/call")
    cancels = [m for m in messages if m.get("method") == "notifications/cancelled"]
    assert [c["params"]["requestId"] for c in cancels] == [call_id], messages


def test_timeout_during_initialize_is_reported_without_cancelling_initialize(tmp_path: Path) -> None:
    """The spec: the client MUST NOT cancel `initialize`."""
    record = tmp_path / "record.jsonl"
    proc = call(
        server("never_answers.py"), "initialize", "--method", "tools/list", "--timeout", "1",
        env={"MCPX_TEST_RECORD": str(record)},
    )  # fmt: skip
    error = proc.failure(4, "timeout")
    assert "initialize" in error["message"], str(proc)
    assert proc.elapsed < 10, str(proc)
    messages = recorded(record)
    init_id = next(m["id"] for m in messages if m.get("method") == "initialize")
    cancelled = [m["params"]["requestId"] for m in messages if m.get("method") == "notifications/cancelled"]
    assert init_id not in cancelled, f"mcpx sent notifications/cancelled for initialize: {messages}"


def test_server_ignoring_stdin_close_and_sigterm_is_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    proc = call(
        server("never_answers.py"), "stubborn", "--method", "tools/call", "--tool-name", "wait",
        "--timeout", "1", env={"MCPX_TEST_PIDFILE": str(pidfile)},
    )  # fmt: skip
    proc.failure(4, "timeout")
    assert proc.elapsed < 12, str(proc)
    assert wait_dead(read_pid(pidfile), timeout=2), "the stubborn server outlived mcpx"


def test_progress_resets_the_timeout() -> None:
    """6 steps of 0.4 s with --timeout 1: each progress notification restarts the clock (`--help`)."""
    proc = call(
        server("slow_progress.py"), "6", "0.4", "--method", "tools/call", "--tool-name", "slow",
        "--timeout", "1", "--traffic",
    )  # fmt: skip
    assert proc.text() == "done after 6 steps"
    assert sum("notifications/progress" in line for line in proc.traffic()) == 6, str(proc)


def test_no_progress_means_the_timeout_holds() -> None:
    proc = call(
        server("slow_progress.py"),
        "3",
        "1",
        "--method",
        "tools/call",
        "--tool-name",
        "slow",
        "--timeout",
        "0.5",
    )
    proc.failure(4, "timeout")


# -- big, deep and loud -----------------------------------------------------------------------------------
def test_five_megabyte_result_is_printed_whole() -> None:
    proc = call(
        server("big_result.py"), "5", "--method", "tools/call", "--tool-name", "big", "--format", "json"
    )
    text = text_of(proc.result())
    assert len(text) == 5 * 1024 * 1024
    assert text.startswith("0123456789abcdef") and text.endswith("/END")
    assert proc.elapsed < 15, str(proc)


def test_fifty_megabyte_single_line_result_is_printed_whole() -> None:
    proc = call(server("big_result.py"), "50", "--method", "tools/call", "--tool-name", "big", timeout=90)
    text = proc.text()
    assert len(text) == 50 * 1024 * 1024 and text.endswith("/END")
    assert proc.elapsed < 30, f"took {proc.elapsed:.1f}s"


def test_result_nested_100000_deep_does_not_crash_mcpx(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    proc = call(
        server("deep_nesting.py"), "--method", "tools/call", "--tool-name", "deep", "--format", "json",
        env={"MCPX_TEST_PIDFILE": str(pidfile)},
    )  # fmt: skip
    assert proc.elapsed < 15, str(proc)
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr, str(proc)
    if proc.returncode == 0:
        # printed whole: one line, the nesting intact (too deep for json.loads to check)
        assert proc.stdout.count("[") == 100_000 and proc.stdout.count("]") == 100_000, str(proc)[:500]
    else:
        error = proc.failure(1, "protocol")
        assert "deep" in error["message"] or "nest" in error["message"], str(proc)
    assert wait_dead(read_pid(pidfile))


def test_twenty_megabytes_of_stderr_during_initialize_do_not_deadlock() -> None:
    proc = call(server("stderr_flood.py"), "--method", "tools/list", "--format", "json", timeout=60)
    assert [t["name"] for t in proc.result()["tools"]] == ["echo"]
    assert proc.elapsed < 20, f"took {proc.elapsed:.1f}s"
    # mcpx keeps the server's stderr to itself unless asked (--traffic)
    assert len(proc.stderr) < 10_000, f"{len(proc.stderr)} bytes of stderr leaked through"


def test_stderr_lines_appear_in_traffic() -> None:
    proc = call(server("stderr_flood.py"), "0.001", "--method", "tools/list", "--traffic")
    proc.result()
    assert any(line.split(" ", 1)[1] == "stderr| flood done" for line in proc.traffic()), str(proc)
    assert any(" • spawned " in line for line in proc.traffic())
    assert any(" → " in line and '"method":"initialize"' in line for line in proc.traffic())


# -- protocol versions ----------------------------------------------------------------------------------
def test_unknown_protocol_version_is_refused_naming_both_versions() -> None:
    proc = call(server("wrong_version.py"), "--method", "tools/list")
    error = proc.failure(1, "unsupported_protocol_version")
    assert "1999-01-01" in error["message"] and "2025-11-25" in error["message"], str(proc)


# -- pagination ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("method", "key", "names"),
    [
        ("tools/list", "tools", [f"tool-{i}" for i in range(7)]),
        ("resources/list", "resources", [f"item-{i}" for i in range(7)]),
        ("resources/templates/list", "resourceTemplates", [f"tpl-{i}" for i in range(7)]),
        ("prompts/list", "prompts", [f"prompt-{i}" for i in range(7)]),
    ],
)
def test_lists_follow_next_cursor_and_merge_every_page(method: str, key: str, names: list[str]) -> None:
    result = call(server("paginated.py"), "7", "3", "--method", method, "--format", "json").result()
    assert [item["name"] for item in result[key]] == names
    assert "nextCursor" not in result


def test_cursor_fetches_one_page(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    result = call(
        server("paginated.py"), "7", "3", "--method", "tools/list", "--cursor", "page-1",
        env={"MCPX_TEST_RECORD": str(record)},
    ).result()  # fmt: skip
    assert [t["name"] for t in result["tools"]] == ["tool-3", "tool-4", "tool-5"]
    assert result["nextCursor"] == "page-2"
    lists = [m for m in recorded(record) if m.get("method") == "tools/list"]
    assert [m["params"] for m in lists] == [{"cursor": "page-1"}]


def test_bad_cursor_is_a_json_rpc_error() -> None:
    error = call(server("paginated.py"), "--method", "tools/list", "--cursor", "bogus").failure(
        1, "rpc_error"
    )
    assert "bogus" in error["message"]


def test_tool_call_answered_with_a_json_rpc_error_exits_5() -> None:
    """A bare server answers an unknown tool with JSON-RPC -32602 instead of an isError result."""
    proc = call(
        server("stray_response.py"), "--method", "tools/call", "--tool-name", "missing", "--format", "json"
    )
    error = proc.failure(5, "tool_error")
    assert "missing" in error["message"], str(proc)
    assert proc.stdout == "", "a JSON-RPC error has no result to print"
