"""`mcpx doctor URL`: each remote fault stops the walk at its own step, with a hint."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator

import pytest
from http_servers import Server, faulty_server, free_port, running, sdk_server


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Server]]:
    started = {"stream": sdk_server(), "faulty": faulty_server()}
    with running(*started.values()):
        yield started


def doctor(url: str) -> tuple[int, dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "doctor", url, "--format", "json", "--timeout", "5"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def failed(report: dict) -> dict:
    steps = [step for step in report["steps"] if step["status"] == "fail"]
    assert len(steps) == 1, report
    assert report["steps"][-1] == steps[0], "the walk stops at the first failure"
    return steps[0]


def test_a_healthy_remote_server(servers: dict[str, Server]) -> None:
    code, report = doctor(servers["stream"].url())
    assert code == 0 and report["ok"]
    names = [step["name"] for step in report["steps"]]
    assert names == [
        "URL",
        "DNS",
        "TCP connect",
        "HTTP answer",
        "answers in time",
        "protocol version",
        "capabilities match behaviour",
    ]
    assert "over http" in report["steps"][4]["detail"]
    # the HTTP steps carry httpx's trace timings (--format json too)
    answer = report["steps"][3]
    assert answer["detail"].startswith("HTTP 200") and {"connect_ms", "first_byte_ms"} <= set(
        answer["timings"]
    )
    assert report["steps"][1]["timings"]["dns_ms"] >= 0


def test_nothing_listening() -> None:
    code, report = doctor(f"http://127.0.0.1:{free_port()}/mcp")
    assert code == 4
    step = failed(report)
    assert step["name"] == "TCP connect" and "refused" in step["got"]


def test_a_wrong_path(servers: dict[str, Server]) -> None:
    code, report = doctor(servers["stream"].url("/not-mcp"))
    assert code == 4
    step = failed(report)
    assert step["name"] == "answers in time" and "/mcp" in step["hint"]


def test_a_server_that_wants_a_token(servers: dict[str, Server]) -> None:
    url = servers["faulty"].url("/auth/mcp") + "?tenant=a&region=b"  # a URL a shell would split at &
    code, report = doctor(url)
    assert code == 3
    step = failed(report)
    assert step["name"] == "authorization"
    assert "--bearer" in step["hint"] and f"`mcpx auth login {shlex.quote(url)}`" in step["hint"]
    # authorization discovery walked PRM (the challenge's, then the well-known ones) and the AS metadata
    assert "resource_metadata=" in step["got"] and "/.well-known/oauth-protected-resource" in step["got"]
    assert "2025-03-26" in step["got"]
    assert report["verdict"].count("\n") == 0
