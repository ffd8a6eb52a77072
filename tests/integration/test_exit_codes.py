"""Exit codes and the JSON error line for what #18 found wrong: a server answering HTML (its failure: 4),
`ls --config` with a missing or broken file (usage: 1), `ls` and `doctor` failing (4), NaN in JSON
arguments (refused: 1). Every failure ends with one JSON error object as the last line on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from call_harness import call, mcpx, server, text_of
from http_servers import Server, faulty_server, free_port, running


@pytest.fixture(scope="module")
def faulty() -> Iterator[Server]:
    with running(faulty_server()) as (started,):
        yield started


@pytest.mark.parametrize("scenario", ["html", "page"])
def test_an_html_answer_is_the_server_failing_exit_4(faulty: Server, scenario: str) -> None:
    run = call(faulty.url(f"/{scenario}/mcp"), "--method", "tools/call", "--tool-name", "echo",
               "--protocol-era", "legacy")  # fmt: skip
    error = run.failure(4, "server_failed")
    assert "text/html" in error["message"]


def test_ls_with_a_missing_or_broken_config_is_a_usage_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    cases = ((tmp_path / "missing.json", "does not exist", "text"), (broken, "not valid JSON", "json"))
    for path, words, fmt in cases:
        run = mcpx("ls", "--config", str(path), "--format", fmt)
        assert words in run.failure(1, "usage")["message"]
        assert run.stdout == ""


def test_ls_with_a_failing_server_ends_with_the_json_error_line(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"dies": {"command": sys.executable,
                                                          "args": [server("dies.py"), "start"]}}}))  # fmt: skip
    run = mcpx("ls", "--config", str(config), "--protocol-era", "legacy")
    error = run.failure(4, "unreachable")
    assert error["failed"] == ["dies"] and "dies" in run.stdout


def test_a_failing_doctor_ends_with_the_json_error_line() -> None:
    for fmt in ("text", "json"):
        run = mcpx("doctor", f"http://127.0.0.1:{free_port()}/mcp", "--format", fmt)
        error = run.failure(4, "doctor_failed")
        assert "TCP connect" in error["verdict"]


@pytest.mark.parametrize("flag", ["--tool-args-json", "--params"])
@pytest.mark.parametrize("value", ['{"a": NaN}', '{"a": [Infinity]}', '{"a": -Infinity}'])
def test_nan_and_infinity_are_refused_not_sent_as_null(flag: str, value: str) -> None:
    extra = ["--tool-name", "echo"] if flag == "--tool-args-json" else []
    run = call(
        "--method", "tools/call", *extra, flag, value, "--", sys.executable, server("stray_response.py")
    )
    assert "JSON has no NaN or Infinity" in run.failure(1, "usage")["message"]


def test_a_tool_arg_spelled_nan_is_the_string() -> None:
    run = call(server("stray_response.py"), "--method", "tools/call", "--tool-name", "echo",
               "--tool-arg", "text=NaN", "--format", "json")  # fmt: skip
    assert text_of(run.result()) == "NaN"
