"""`mcpx doctor` names the step that fails, with a useful hint, for each start-up fault."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FAULTS = str(Path(__file__).parent.parent / "servers" / "doctor_faults.py")


def doctor(*args: str) -> tuple[int, dict]:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcpx",
            "doctor",
            *args,
            "--format",
            "json",
            "--timeout",
            "2",
            "--probe-timeout",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize(
    ("mode", "step", "code", "clue", "hint"),
    [
        ("banner", "stdout carries only JSON-RPC", 1, "Weather server v1.2", "stderr"),
        ("exit-at-start", "stays alive", 4, "DATABASE_URL is not set", "environment variable"),
        ("mute", "answers in time", 4, "no answer", "flushes stdout"),
    ],
)
def test_each_fault_stops_the_walk_at_its_step(mode: str, step: str, code: int, clue: str, hint: str) -> None:
    returncode, report = doctor(FAULTS, mode)
    assert returncode == code
    assert not report["ok"]
    failed = [s for s in report["steps"] if s["status"] == "fail"]
    assert len(failed) == 1
    assert report["steps"][-1] is not None and report["steps"][-1]["name"] == step
    assert clue in failed[0]["got"]
    assert hint in failed[0]["hint"]


def test_a_missing_command() -> None:
    returncode, report = doctor("mcpx-no-such-server-anywhere")
    assert returncode == 4
    assert report["steps"][0]["name"] == "command found"
    assert report["steps"][0]["got"] == "not found"


def test_a_healthy_server_passes_every_step() -> None:
    returncode, report = doctor(FAULTS, "fine")
    assert returncode == 0
    assert report["ok"]
    names = [s["name"] for s in report["steps"]]
    assert names == [
        "command found",
        "spawned",
        "answers in time",
        "stdout carries only JSON-RPC",
        "protocol version",
        "capabilities match behaviour",
    ]
    assert all(s["status"] == "ok" for s in report["steps"])
    assert "1 tools" in report["steps"][-1]["detail"]


def test_call_points_at_the_doctor_when_it_cannot_connect() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "call", FAULTS, "exit-at-start", "--method", "tools/list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 4
    error = json.loads(proc.stderr.strip().splitlines()[-1])["error"]
    assert "DATABASE_URL is not set" in error["message"]
    assert "mcpx doctor" in error["message"]
