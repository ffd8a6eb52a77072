"""`mcpx call` prints its answer as soon as it is complete and stops the server after.

A reader of mcpx's stdout (a pipe: `mcpx call … | jq`) sees the answer and the end of the output while
the server is still being stopped; the exit code waits for that stop, and no server process is left.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from call_harness import MCPX, alive, read_pid, server, wait_dead


def test_the_answer_and_the_end_of_stdout_come_before_the_server_is_stopped(tmp_path: Path) -> None:
    pidfile = tmp_path / "server.pid"
    env = {**os.environ, "MCPX_TEST_PIDFILE": str(pidfile)}
    argv = [*MCPX, "call", server("slow_exit.py"), "3", "--method", "tools/list", "--format", "json"]
    # `with`: the pipes are closed however the test ends (an open one is an unraisable ResourceWarning)
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as proc:
        try:
            assert proc.stdout is not None
            out = proc.stdout.read()  # to the end of mcpx's stdout
            ended_at = time.monotonic()
            server_pid = read_pid(pidfile)
            # the output ended while the server (which lingers 3 s after stdin closes) was still there
            assert alive(server_pid) and proc.poll() is None
            assert [t["name"] for t in json.loads(out)["result"]["tools"]] == ["echo"]
            assert proc.wait(timeout=30) == 0
            assert time.monotonic() - ended_at > 1.0  # the exit waited for the stop
            assert wait_dead(server_pid, timeout=1.0), "the server outlived mcpx"
            assert proc.stderr is not None and proc.stderr.read() == b""
        finally:
            proc.kill()
            proc.wait()


def test_with_traffic_on_the_same_pipe_the_answer_comes_before_the_shutdown_lines() -> None:
    argv = [*MCPX, "call", server("slow_exit.py"), "0.2", "--method", "tools/list", "--traffic"]
    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60, check=False)
    assert run.returncode == 0
    text = run.stdout.decode()
    answer = text.index('"name": "echo"')
    assert text.index("tools/list") < answer < text.index("server exited with code 0")


def test_a_tool_error_still_prints_first_and_exits_5_after_the_stop(tmp_path: Path) -> None:
    pidfile = tmp_path / "server.pid"
    env = {**os.environ, "MCPX_TEST_PIDFILE": str(pidfile)}
    argv = [*MCPX, "call", server("slow_exit.py"), "0.5", "--method", "tools/call", "--tool-name", "nope"]
    run = subprocess.run(argv, capture_output=True, timeout=60, check=False, env=env)
    assert run.returncode == 5, run
    assert wait_dead(read_pid(pidfile), timeout=1.0)
    assert json.loads(run.stderr.decode().strip().splitlines()[-1])["error"]
