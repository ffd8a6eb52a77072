"""No descendant left: a server's child that leaves its process group with setsid() (MCPX_TEST_SETSID in
tests/servers/bare.py) is stopped too — after a normal exit, when the server dies, and when mcpx itself is
SIGKILLed (the sentinel). Linux only: elsewhere mcpx promises the process group alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from call_harness import MCPX, call, kill_quietly, read_pid, server, wait_dead, wait_recorded

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc (Linux)")


def env_for(tmp_path: Path) -> tuple[dict[str, str], Path]:
    escapee = tmp_path / "setsid.pid"
    return {"MCPX_TEST_SETSID": str(escapee), "MCPX_TEST_RECORD": str(tmp_path / "record")}, escapee


def assert_stopped(pidfile: Path) -> None:
    pid = read_pid(pidfile)
    try:
        assert wait_dead(pid, 5), f"the setsid() descendant (pid {pid}) outlived mcpx"
    finally:
        kill_quietly(pid)


def test_normal_exit_stops_a_setsid_descendant(tmp_path: Path) -> None:
    env, escapee = env_for(tmp_path)
    run = call(server("paginated.py"), "--method", "tools/list", env=env)
    assert run.returncode == 0, str(run)
    assert_stopped(escapee)


def test_server_death_stops_a_setsid_descendant(tmp_path: Path) -> None:
    env, escapee = env_for(tmp_path)
    run = call(server("dies.py"), "call", "--method", "tools/call", "--tool-name", "crash", env=env)
    run.failure(4, "server_exited")
    assert_stopped(escapee)


def test_sigkill_of_mcpx_stops_a_setsid_descendant(tmp_path: Path) -> None:
    env, escapee = env_for(tmp_path)
    proc = subprocess.Popen(
        [*MCPX, "call", server("never_answers.py"), "--method", "tools/call", "--tool-name", "wait",
         "--timeout", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
    )  # fmt: skip
    try:
        wait_recorded(tmp_path / "record", "tools/call")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert_stopped(escapee)
