"""Bad user input gets one sentence and exit 1 — never a traceback, and never a server started for nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from call_harness import call, mcpx, server

SERVER = server("noisy_stdout.py")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        # after TARGET an option mcpx does not know is the server's (test_cli_arguments.py); before it,
        # nothing can take it
        pytest.param(
            ["--no-such-flag", SERVER, "--method", "tools/list"], ["--no-such-flag"], id="unknown-flag"
        ),
        pytest.param(
            ["./no/such/server.py", "--method", "tools/list"], ["no/such/server.py"], id="missing-server-file"
        ),
        pytest.param(
            [SERVER, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "novalue"],
            ["--tool-arg", "novalue"],
            id="tool-arg-without-equals",
        ),
        pytest.param(
            [SERVER, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "=value"],
            ["--tool-arg"],
            id="tool-arg-without-key",
        ),
        pytest.param(
            [SERVER, "--method", "tools/list", "--params", "{not json"], ["--params"], id="params-not-json"
        ),
        pytest.param(
            [SERVER, "--method", "tools/list", "--params", "[1, 2]"], ["--params"], id="params-not-object"
        ),
        pytest.param(
            [SERVER, "--method", "tools/call", "--tool-name", "echo", "--tool-args-json", "{'a': 1}"],
            ["--tool-args-json"],
            id="tool-args-json-not-json",
        ),
        pytest.param(
            [SERVER, "--method", "prompts/get", "--prompt-name", "p", "--prompt-args", "oops"],
            ["--prompt-args"],
            id="prompt-args-without-equals",
        ),
        pytest.param([SERVER, "-e", "NOEQUALS", "--method", "tools/list"], ["-e"], id="env-without-equals"),
        pytest.param([SERVER, "--method", "tools/call"], ["--tool-name"], id="tools-call-without-tool-name"),
        pytest.param([SERVER, "--method", "resources/read"], ["--uri"], id="read-without-uri"),
        pytest.param([SERVER], ["--method"], id="no-method"),
        pytest.param(["--method", "tools/list"], ["TARGET"], id="no-target"),
        pytest.param(
            [SERVER, "--method", "tools/list", "--format", "yaml"], ["--format"], id="unknown-format"
        ),
        pytest.param(
            [SERVER, "--method", "tools/list", "--timeout", "soon"], ["--timeout"], id="timeout-not-a-number"
        ),
        pytest.param(
            [SERVER, "--method", "tools/list", "--log-level", "loud"], ["--log-level"], id="unknown-log-level"
        ),
        pytest.param(
            [SERVER, "--method", "tools/list", "--server", "x"], ["--config"], id="server-without-config"
        ),
    ],
)
def test_bad_input_is_one_sentence_and_exit_1(args: list[str], words: list[str], tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    proc = call(*args, env={"MCPX_TEST_PIDFILE": str(pidfile)}, timeout=20)
    error = proc.failure(1, "usage")
    for word in words:
        assert word in error["message"], str(proc)
    assert "\n" not in error["message"].strip(), str(proc)
    # the human sentence above the JSON line is short too: no usage dump, no stack
    assert len(proc.stderr.strip().splitlines()) <= 3, str(proc)
    assert proc.stdout == "", str(proc)
    assert not pidfile.exists(), "a server was started for a command line that cannot work"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_error_line_is_last_in_both_formats(fmt: str) -> None:
    proc = call("./no/such/server.py", "--method", "tools/list", "--format", fmt)
    proc.failure(1, "usage")
    if fmt == "json":
        # --format json: the JSON line and nothing else
        assert len(proc.stderr.strip().splitlines()) == 1, str(proc)


def test_unknown_command_is_a_usage_error() -> None:
    mcpx("frobnicate").failure(1, "usage")


def test_server_directory_that_does_not_exist(tmp_path: Path) -> None:
    proc = call(SERVER, "--cwd", str(tmp_path / "nope"), "--method", "tools/list")
    assert proc.returncode in (1, 4), str(proc)
    error = proc.error()
    assert str(tmp_path / "nope") in error["message"], str(proc)
