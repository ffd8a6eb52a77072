"""`mcpx call --record` against real servers: what lands in the file, secrets, MCPX_RECORD_DIR, and a
recording mcpx killed with SIGKILL mid-session."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpx.record.reader import read_recording

SERVERS = Path(__file__).parent.parent / "servers"
RECORD_SERVER = str(SERVERS / "record_server.py")
FLOOD = str(SERVERS / "stderr_flood.py")


def mcpx(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpx", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_call_records_the_whole_session(era: str, tmp_path: Path) -> None:
    path = tmp_path / "call.mcpx.jsonl"
    proc = mcpx(
        "call", RECORD_SERVER, "--protocol-era", era, "--method", "tools/call", "--tool-name", "echo",
        "--tool-arg", "text=hello", "--record", str(path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    recording = read_recording(path)
    assert recording.problems == []
    assert recording.header["era"] == era and recording.header["transport"] == "stdio"
    assert recording.header["target"]["command"][-1] == RECORD_SERVER
    assert recording.era == era
    kinds = [(e.direction, e.channel, e.method) for e in recording.log]
    assert kinds[0][:2] == ("info", "process")  # spawned
    assert ("in", "stderr", None) in kinds  # the server's own words
    assert ("out", "stdio", "tools/call") in kinds and ("in", "stdio", "tools/call") in kinds
    assert recording.log[len(recording.log) - 1].facts.get("event") == "exited"
    response = next(e for e in recording.log if e.direction == "in" and e.method == "tools/call")
    assert response.latency is not None and response.latency > 0
    assert "hello" in response.raw


def test_env_secrets_are_masked_in_the_header_and_wherever_they_show(tmp_path: Path) -> None:
    path = tmp_path / "masked.jsonl"
    proc = mcpx(
        "call", RECORD_SERVER, "--method", "tools/list", "-e", "SERVICE_TOKEN=tok-0123456789abcdef",
        "-e", "RECORD_SERVER_LEAK=SERVICE_TOKEN", "--record", str(path), "--protocol-era", "legacy",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = path.read_text()
    assert "tok-0123456789abcdef" not in text
    recording = read_recording(path)
    assert recording.header["target"]["env"]["SERVICE_TOKEN"] == "••••cdef"
    leak = next(e for e in recording.log if e.channel == "stderr" and "my token is" in e.raw)
    assert leak.raw == "my token is ••••cdef" and leak.seq in recording.redacted


def test_record_secrets_is_loud_and_private(tmp_path: Path) -> None:
    path = tmp_path / "secret.jsonl"
    proc = mcpx(
        "call", RECORD_SERVER, "--method", "tools/list", "-e", "SERVICE_TOKEN=tok-0123456789abcdef",
        "--record", str(path), "--record-secrets", "--protocol-era", "legacy",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "--record-secrets" in proc.stderr and "IN CLEAR" in proc.stderr
    assert "tok-0123456789abcdef" in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_mcpx_record_dir_records_every_session(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    for _ in range(2):
        proc = mcpx(
            "call", RECORD_SERVER, "--method", "tools/list", "--protocol-era", "legacy",
            env={"MCPX_RECORD_DIR": str(folder)},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    files = sorted(folder.glob("*.mcpx.jsonl"))
    assert len(files) == 2
    assert all("record_server.py" in f.name for f in files)
    assert all(read_recording(f).summary()["requests"]["tools/list"] == 1 for f in files)


def test_a_failed_session_is_recorded_too(tmp_path: Path) -> None:
    path = tmp_path / "fail.jsonl"
    proc = mcpx(
        "call", RECORD_SERVER, "--method", "tools/call", "--tool-name", "nope", "--record", str(path),
        "--protocol-era", "legacy",
    )  # fmt: skip
    assert proc.returncode == 5
    recording = read_recording(path)
    assert any(e.method == "tools/call" and e.direction == "in" for e in recording.log)


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--record", "/no/such/folder/x.jsonl"], "does not exist"),
        (["--record", "."], "is a directory"),
        (["--record-secrets"], "--record-secrets needs --record FILE"),
    ],
)
def test_bad_record_flags_fail_before_any_server_starts(args: list[str], sentence: str) -> None:
    proc = mcpx("call", RECORD_SERVER, "--method", "tools/list", *args)
    assert proc.returncode == 1
    error = json.loads(proc.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "usage" and sentence in error["message"]
    assert "Traceback" not in proc.stderr


def wait_for(predicate, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def test_sigkill_mid_flood_leaves_a_readable_file(tmp_path: Path) -> None:
    """The server floods stderr (every line an event); mcpx is killed while writing them."""
    path = tmp_path / "killed.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpx", "call", FLOOD, "200", "--method", "tools/list", "--record", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: path.exists() and path.stat().st_size > 2_000_000)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    recording = read_recording(path)
    assert len(recording.log) > 10_000
    # at most the last line can be incomplete; every other line is an event
    assert len(recording.problems) <= 1
    assert all(p.message.startswith("cut off") for p in recording.problems)
    assert [e.seq for e in recording.log] == list(range(len(recording.log)))
    stderr_lines = [e for e in recording.log if e.channel == "stderr"]
    assert stderr_lines and stderr_lines[0].raw == "x" * 99


def test_sigkill_with_a_call_in_flight_keeps_the_request(tmp_path: Path) -> None:
    path = tmp_path / "inflight.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcpx",
            "call",
            RECORD_SERVER,
            "--method",
            "tools/call",
            "--tool-name",
            "slow",
            "--tool-arg",
            "steps=1000",
            "--protocol-era",
            "legacy",
            "--record",
            str(path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: path.exists() and b'"method\\":\\"tools/call' in path.read_bytes())
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    recording = read_recording(path)
    assert recording.problems == []
    request = next(e for e in recording.log if e.direction == "out" and e.method == "tools/call")
    assert request.response_seq is None  # killed before the answer: the request is still on record
    assert recording.era == "legacy"


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_http_session_records_its_exchanges_with_credentials_masked(tmp_path: Path) -> None:
    import socket

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, RECORD_SERVER, "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def listening() -> bool:
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", port)) == 0

        wait_for(listening)
        url = f"http://127.0.0.1:{port}/mcp"
        path = tmp_path / "http.jsonl"
        token = "Authorization: Bearer secret-token-12345678"
        proc = mcpx("call", url, "--method", "tools/list", "--header", token, "--record", str(path))
        assert proc.returncode == 0, proc.stderr
        assert "secret-token" not in path.read_text()
        recording = read_recording(path)
        assert recording.header["target"] == {
            "label": url,
            "url": url,
            "headers": {"Authorization": "Bearer ••••5678"},
        }
        posts = [e for e in recording.log if e.channel == "http" and e.facts.get("event") == "http-request"]
        assert posts and all(e.facts["headers"]["authorization"] == "Bearer ••••5678" for e in posts)
        assert any(e.facts.get("status") == 200 for e in recording.log if e.channel == "http")
        assert recording.summary()["requests"]["tools/list"] == 1
        replay = mcpx("replay", str(path), "--against", url, "--header", token, "--format", "json")
        assert replay.returncode == 0, replay.stdout + replay.stderr
        assert json.loads(replay.stdout)["summary"]["same"] == 2
    finally:
        server.terminate()
        server.wait(timeout=10)
