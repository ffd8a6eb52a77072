"""mcpx's own stdio servers (`mcpx mock`, the demo server) answer whatever stdout is: a regular file,
/dev/null or a terminal — not only the pipe an MCP client gives them (uvloop's pipe transport aborts on the
others). Requests come from a file, as in `mcpx mock REC < requests.jsonl > answers.txt`."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from call_harness import MCPX, mcpx

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


@pytest.fixture(scope="module")
def requests(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stdio-out") / "requests.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in (INIT, LIST)))
    return path


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stdio-rec") / "demo.mcpx.jsonl"
    made = mcpx("call", "--protocol-era", "legacy", "--method", "tools/list", "--record", str(path),
                "--", sys.executable, "-m", "mcpx.demo")  # fmt: skip
    assert made.returncode == 0, str(made)
    return path


def server_command(which: str, recording: Path) -> list[str]:
    if which == "mock":
        return [*MCPX, "mock", str(recording)]
    return [sys.executable, "-m", "mcpx.demo"]


def answers(text: str) -> dict[int, dict]:
    found = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            message = json.loads(line)
            found[message.get("id")] = message
    return found


def answered(seen: bytes) -> bool:
    at = seen.find(b'"id":2')
    return at >= 0 and b"\n" in seen[at:]


@pytest.mark.parametrize("which", ["mock", "demo"])
def test_answers_into_a_regular_file(which: str, requests: Path, recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "answers.txt"
    with requests.open("rb") as stdin, out.open("wb") as stdout:
        proc = subprocess.run(
            server_command(which, recording), stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, timeout=30
        )
    assert proc.returncode == 0, proc.stderr.decode()
    got = answers(out.read_text())
    assert got[1]["result"]["serverInfo"]["name"] and got[2]["result"]["tools"]


@pytest.mark.parametrize("which", ["mock", "demo"])
def test_answers_into_dev_null(which: str, requests: Path, recording: Path) -> None:
    with requests.open("rb") as stdin:
        proc = subprocess.run(
            server_command(which, recording),
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=30,
        )
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Fatal" not in err, err
    if which == "demo":
        assert "initialize: t 1" in err  # it read and answered the request


@pytest.mark.parametrize("which", ["mock", "demo"])
def test_answers_into_a_terminal(which: str, requests: Path, recording: Path) -> None:
    master, slave = pty.openpty()
    try:
        with requests.open("rb") as stdin:
            proc = subprocess.Popen(
                server_command(which, recording), stdin=stdin, stdout=slave, stderr=subprocess.PIPE
            )
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not answered(seen):
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(master, 1 << 16)
                except OSError:  # the server closed the terminal
                    break
        _, err_bytes = proc.communicate(timeout=30)
        code, err = proc.returncode, err_bytes.decode()
    finally:
        os.close(master)
    assert code == 0, err
    assert "Fatal" not in err and "Traceback" not in err, err
    assert answers(seen.decode())[2]["result"]["tools"]
