"""`python -m mcpx.demo --misbehave MODE` through `mcpx call`: each fault gets the exit code and the
message mcpx promises (0 ok, 4 unreachable/died/timed out) and nothing hangs or leaks a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(120)
DEMO = f"{sys.executable} -m mcpx.demo"


def mcpx_call(mode: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`mcpx call` on the misbehaving demo server (TARGET given as one word: `-m` is not mcpx's flag)."""
    return subprocess.run(
        [sys.executable, "-m", "mcpx", "call", f"{DEMO} --misbehave {mode}", "--format", "json", *args],
        capture_output=True,
        text=True,
        timeout=100,
        env={**os.environ, **(env or {})},
    )


def error_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The JSON error line mcpx ends with; mcpx itself never shows a traceback of its own."""
    assert not re.search(r'File "[^"]*/mcpx/', proc.stderr)  # (the crash mode's own fake one has no path)
    return json.loads(proc.stderr.strip().splitlines()[-1])["error"]


ECHO = ("--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi")


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_garbage_on_stdout_is_shown_and_the_session_goes_on(era: str) -> None:
    proc = mcpx_call("garbage", *ECHO, "--protocol-era", era, "--traffic")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert "← mcpx demo server starting... (a print() that went to stdout)" in proc.stderr
    assert "← DEBUG answering request 2" in proc.stderr


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_crash_mid_call_is_exit_4_with_the_exit_code_and_stderr_tail(era: str) -> None:
    proc = mcpx_call("crash", *ECHO, "--protocol-era", era)
    assert proc.returncode == 4
    error = error_of(proc)
    assert error["code"] == "server_exited" and error["returncode"] == 1
    assert error["message"].startswith("the server exited with code 1 while waiting for tools/call")
    assert (
        "RuntimeError: the demo server crashed while running 'echo' (--misbehave crash)"
        in error["stderr_tail"]
    )


def test_a_crash_mid_call_after_progress() -> None:
    proc = mcpx_call(
        "crash",
        *ECHO,
        "--protocol-era",
        "legacy",
        "--traffic",
        "--params",
        '{"_meta": {"progressToken": "p"}}',
    )
    assert proc.returncode == 4
    assert '"method":"notifications/progress"' in proc.stderr and "server exited with code 1" in proc.stderr


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_hang_is_a_timeout_and_the_call_is_cancelled(era: str) -> None:
    proc = mcpx_call("hang", "--method", "tools/list", "--protocol-era", era, "--timeout", "4", "--traffic")
    assert proc.returncode == 4
    error = error_of(proc)
    assert error == {
        "code": "timeout", "message": "tools/list got no answer within 4 s; mcpx cancelled it",
        "method": "tools/list", "timeout": 4.0,
    }  # fmt: skip
    assert '"method":"notifications/cancelled"' in proc.stderr
    assert "misbehaving: ignoring tools/list" in proc.stderr


def test_a_slow_start_times_out_the_handshake_or_waits_when_allowed() -> None:
    slow = {"MCPX_DEMO_SLOW_START": "3"}
    impatient = mcpx_call("slow-start", *ECHO, "--protocol-era", "legacy", "--timeout", "1", env=slow)
    assert impatient.returncode == 4
    error = error_of(impatient)
    assert error["code"] == "timeout" and error["method"] == "initialize"
    assert "mcpx doctor" in error["message"]
    patient = mcpx_call("slow-start", *ECHO, "--protocol-era", "legacy", "--timeout", "10", env=slow)
    assert patient.returncode == 0 and json.loads(patient.stdout)["result"]["content"][0]["text"] == "hi"


def test_a_slow_start_makes_auto_fall_back_to_the_handshake_and_says_why() -> None:
    proc = mcpx_call(
        "slow-start", *ECHO, "--protocol-era", "auto", "--probe-timeout", "1", "--traffic",
        env={"MCPX_DEMO_SLOW_START": "2"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "era: legacy — no answer to server/discover within 1 s" in proc.stderr
    # the server answers the probe at last, after mcpx gave up on it: shown, not fatal
    fallback = proc.stderr.index("era: legacy")
    assert proc.stderr.index('← {"jsonrpc":"2.0","id":1,"result":{"supportedVersions"') > fallback


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_unknown_ids_are_flagged_and_a_misaddressed_answer_times_out(era: str) -> None:
    listed = mcpx_call("unknown-ids", "--method", "tools/list", "--protocol-era", era, "--traffic")
    assert listed.returncode == 0 and len(json.loads(listed.stdout)["result"]["tools"]) == 20
    assert "! response to id 900001, which has no request in flight" in listed.stderr
    called = mcpx_call("unknown-ids", *ECHO, "--protocol-era", era, "--timeout", "4", "--traffic")
    assert called.returncode == 4 and error_of(called)["code"] == "timeout"
    assert "! response to id 'not-2', which has no request in flight" in called.stderr


def test_a_huge_result_arrives_whole() -> None:
    proc = mcpx_call("huge", *ECHO, "--protocol-era", "legacy", env={"MCPX_DEMO_HUGE_MB": "20"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = json.loads(proc.stdout)["result"]["content"][0]["text"]
    assert len(text) >= 20 * 1024 * 1024 - 100
    assert text.startswith("00000000 the demo server was asked") and text.endswith("line after line.\n")


def test_a_bad_mode_is_refused_in_one_sentence() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx.demo", "--misbehave", "nope"], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "invalid choice: 'nope'" in proc.stderr
    cli = subprocess.run(
        [sys.executable, "-m", "mcpx", "demo", "--misbehave", "nope"], capture_output=True, text=True
    )
    assert cli.returncode == 1
    assert json.loads(cli.stderr.strip().splitlines()[-1])["error"] == {
        "code": "usage",
        "message": "--misbehave must be one of garbage, crash, hang, slow-start, unknown-ids, huge, not 'nope'",
    }
