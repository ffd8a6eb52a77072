"""No orphans: whatever way `mcpx call` ends, the server it started (and the server's children) end too.

The servers write their pid (MCPX_TEST_PIDFILE) and their child's pid (MCPX_TEST_GRANDCHILD); the
never-answering server records what it receives (MCPX_TEST_RECORD), so a test knows the call is in
flight before it interrupts mcpx.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from call_harness import (
    MCPX,
    Run,
    alive,
    call,
    kill_quietly,
    read_pid,
    server,
    wait_dead,
    wait_recorded,
)


def start_waiting_call(
    tmp_path: Path, *server_args: str, timeout: str = "0"
) -> tuple[subprocess.Popen, dict[str, Path]]:
    """Start `mcpx call never_answers.py --method tools/call` and return once the call reached the server."""
    files = {name: tmp_path / name for name in ("pid", "grandchild", "record")}
    env = {
        **os.environ,
        "MCPX_TEST_PIDFILE": str(files["pid"]),
        "MCPX_TEST_GRANDCHILD": str(files["grandchild"]),
        "MCPX_TEST_RECORD": str(files["record"]),
    }
    proc = subprocess.Popen(
        [*MCPX, "call", server("never_answers.py"), *server_args, "--method", "tools/call", "--tool-name", "wait",
         "--timeout", timeout],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        wait_recorded(files["record"], "tools/call")
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    return proc, files


def finish(proc: subprocess.Popen, timeout: float = 10) -> Run:
    started = time.monotonic()
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        raise AssertionError(f"mcpx did not exit within {timeout}s of the signal\n{stderr[-3000:]}") from None
    return Run(proc.args, proc.returncode, stdout, stderr, time.monotonic() - started)


def assert_all_dead(files: dict[str, Path], timeout: float = 5) -> None:
    pids = {name: read_pid(files[name]) for name in ("pid", "grandchild")}
    try:
        for name, pid in pids.items():
            assert wait_dead(pid, timeout), (
                f"the {'server' if name == 'pid' else 'grandchild'} (pid {pid}) outlived mcpx"
            )
    finally:
        for pid in pids.values():
            kill_quietly(pid)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_mid_call_stops_server_and_grandchild(signum: signal.Signals, tmp_path: Path) -> None:
    proc, files = start_waiting_call(tmp_path)
    server_pid = read_pid(files["pid"])
    grandchild_pid = read_pid(files["grandchild"])
    assert alive(server_pid) and alive(grandchild_pid)

    proc.send_signal(signum)
    run = finish(proc)
    assert run.returncode != 0, str(run)
    assert run.elapsed < 10, f"mcpx took {run.elapsed:.1f}s to stop after {signum.name}\n{run}"
    run.error()  # one JSON line, no traceback
    assert_all_dead(files)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_mid_call_tells_the_server_the_call_was_cancelled(
    signum: signal.Signals, tmp_path: Path
) -> None:
    proc, files = start_waiting_call(tmp_path)
    proc.send_signal(signum)
    finish(proc)
    cancelled = wait_recorded(files["record"], "notifications/cancelled", timeout=2)
    call_id = wait_recorded(files["record"], "tools/call")["id"]
    assert cancelled["params"]["requestId"] == call_id
    assert_all_dead(files)


def test_sigkill_of_mcpx_takes_the_server_down(tmp_path: Path) -> None:
    """mcpx cannot clean up after SIGKILL; the server must still not outlive it (the sentinel; PDEATHSIG too on Linux)."""
    proc, files = start_waiting_call(tmp_path)
    server_pid = read_pid(files["pid"])
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    try:
        assert wait_dead(server_pid, 5), "the server outlived a SIGKILLed mcpx"
    finally:
        kill_quietly(server_pid)


def test_sigkill_of_mcpx_takes_the_grandchild_down_too(tmp_path: Path) -> None:
    """DESIGN: crashes of mcpx itself take the server's whole process group down (npx → node)."""
    proc, files = start_waiting_call(tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    assert_all_dead(files)


def test_timeout_stops_server_and_grandchild(tmp_path: Path) -> None:
    proc, files = start_waiting_call(tmp_path, timeout="1")
    run = finish(proc)
    run.failure(4, "timeout")
    assert_all_dead(files)


def test_normal_exit_stops_server_and_grandchild(tmp_path: Path) -> None:
    files = {name: tmp_path / name for name in ("pid", "grandchild")}
    env = {"MCPX_TEST_PIDFILE": str(files["pid"]), "MCPX_TEST_GRANDCHILD": str(files["grandchild"])}

    proc = call(
        server("noisy_stdout.py"),
        "--method",
        "tools/call",
        "--tool-name",
        "echo",
        "--tool-arg",
        "text=x",
        env=env,
    )
    assert proc.text() == "x"
    # the grandchild holds the server's stdout and stderr open: mcpx must not wait for them to close
    assert proc.elapsed < 10, f"mcpx took {proc.elapsed:.1f}s to finish\n{proc}"
    assert_all_dead(files)


def test_server_death_mid_call_stops_the_grandchild(tmp_path: Path) -> None:
    """The grandchild holds the server's stdout open after the server died: mcpx must notice the death
    itself (not wait for an end of file that never comes), report it, and take the grandchild down."""
    files = {name: tmp_path / name for name in ("pid", "grandchild")}
    env = {"MCPX_TEST_PIDFILE": str(files["pid"]), "MCPX_TEST_GRANDCHILD": str(files["grandchild"])}
    try:
        proc = call(
            server("dies.py"),
            "call",
            "9",
            "--method",
            "tools/call",
            "--tool-name",
            "crash",
            env=env,
            timeout=20,
        )
        error = proc.failure(4, "server_exited")
        assert "exited with code 9" in error["message"]
        assert proc.elapsed < 10, f"mcpx took {proc.elapsed:.1f}s to report the death\n{proc}"
    finally:
        assert_all_dead(files)
