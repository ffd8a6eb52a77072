"""SIGTERM, SIGHUP and SIGINT to the TUI under a real pty: the terminal is given back (alternate screen off,
mouse reporting off, cursor shown), the server is stopped, and the exit code is 128 + the signal."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from call_harness import MCPX, alive, read_pid, server, wait_dead

RECORDING = Path(__file__).resolve().parents[1] / "tui" / "recordings" / "record_server.mcpx.jsonl"
ALT_ON, ALT_OFF = b"\x1b[?1049h", b"\x1b[?1049l"
MOUSE_OFF, CURSOR_SHOWN = b"\x1b[?1000l", b"\x1b[?25h"


def read_until(fd: int, seen: bytearray, wanted: bytes, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:  # EIO: every process holding the terminal has gone
                return wanted in seen
            if not chunk:
                break
            seen += chunk
    return wanted in seen


def run_and_signal(args: list[str], sig: signal.Signals, env: dict[str, str]) -> tuple[int, bytes]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(
        [*MCPX, *args], stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    seen = bytearray()
    try:
        assert read_until(master, seen, ALT_ON, 30), f"the TUI never started: {bytes(seen)[-2000:]!r}"
        time.sleep(0.8)  # past on_mount: the app is running (and drawing)
        read_until(master, seen, b"\x00never", 0.2)
        os.kill(proc.pid, sig)
        read_until(master, seen, b"\x00never", 15)  # to EOF
        code = proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, bytes(seen)


def assert_terminal_restored(output: bytes) -> None:
    after = output[output.rfind(ALT_ON) :]
    for sequence in (ALT_OFF, MOUSE_OFF, CURSOR_SHOWN):
        assert sequence in after, (
            f"{sequence!r} never written after the TUI started; the tail: {after[-400:]!r}"
        )


@pytest.mark.parametrize(("sig", "how"), [(signal.SIGTERM, "inspect"), (signal.SIGHUP, "inspect"),
                                          (signal.SIGINT, "workspace"), (signal.SIGTERM, "replay")])  # fmt: skip
def test_a_signal_restores_the_terminal_stops_the_server_and_exits_128_plus_n(
    sig: signal.Signals, how: str, tmp_path: Path
) -> None:
    pidfile = tmp_path / "server.pid"
    env = {**os.environ, "TERM": "xterm-256color", "MCPX_TEST_PIDFILE": str(pidfile)}
    target = [sys.executable, server("slow_progress.py")]
    if how == "inspect":
        args = ["inspect", "--", *target]
    elif how == "replay":  # no server: the recording in the TUI
        args = ["replay", str(RECORDING)]
    else:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"slow": {"command": target[0], "args": target[1:]}}}))
        args = ["inspect", "--config", str(config)]
    code, output = run_and_signal(args, sig, env)
    assert code == 128 + int(sig), output[-600:]
    assert_terminal_restored(output)
    if how == "replay":
        return
    pid = read_pid(pidfile, timeout=1)
    try:
        assert wait_dead(pid, 5), "the server outlived the TUI"
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
