"""The suite's SDK zygote (tests/servers/sdk_zygote.py) keeps a server's process contract: the process
that was started answers on its pipes, ends when its stdin ends with the server's status, and takes the
forked server down with it when it is killed, SIGKILL included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SERVER = Path(__file__).parent.parent / "servers" / "sdk_everything.py"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the forked server through /proc")


def _children_of(pid: int) -> set[int]:
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(name))
    return found


def _start() -> tuple[subprocess.Popen[bytes], set[int]]:
    zygote = int(os.environ.get("MCPX_TEST_SDK_ZYGOTE_PID", "0"))
    assert zygote and os.environ.get("MCPX_TEST_SDK_ZYGOTE"), "the suite runs with a zygote"
    before = _children_of(zygote)
    stub = subprocess.Popen(
        [sys.executable, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert stub.stdin is not None and stub.stdout is not None
    stub.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    stub.stdin.flush()
    answer = json.loads(stub.stdout.readline())
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"]
    forked = _children_of(zygote) - before
    assert len(forked) == 1 and stub.pid not in forked  # the server runs in the zygote's child
    return stub, forked


def _gone(pids: set[int], within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(os.path.exists(f"/proc/{pid}") and "Z" not in _state(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def test_end_of_stdin_ends_the_server_and_the_stub_with_its_status() -> None:
    stub, forked = _start()
    _, err = stub.communicate(timeout=20)  # closes stdin
    assert stub.returncode == 0, err
    assert _gone(forked)


def test_a_killed_stub_takes_the_forked_server_with_it() -> None:
    stub, forked = _start()
    stub.send_signal(signal.SIGKILL)
    stub.wait(timeout=10)
    assert _gone(forked)  # its stdin is still open here: the zygote ended it
    stub.communicate(timeout=10)


def test_sigterm_reaches_the_server_and_the_stub_dies_of_it() -> None:
    stub, forked = _start()
    stub.send_signal(signal.SIGTERM)
    assert stub.wait(timeout=10) == -signal.SIGTERM
    assert _gone(forked)
    stub.communicate(timeout=10)
