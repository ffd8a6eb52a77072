"""`mcpx call URL …` end to end: the real console entry point against real HTTP servers on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from http_servers import Server, faulty_server, free_port, running, sdk_server


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Server]]:
    started = {"stream": sdk_server(), "sse": sdk_server("--sse"), "faulty": faulty_server()}
    with running(*started.values()):
        yield started


def mcpx_call(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpx", "call", *args], capture_output=True, text=True, timeout=60
    )


def result(proc: subprocess.CompletedProcess[str]) -> Any:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["result"]


def error(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert "Traceback" not in proc.stderr, proc.stderr
    return dict(json.loads(proc.stderr.strip().splitlines()[-1])["error"])


def test_tools_list_over_streamable_http(servers: dict[str, Server]) -> None:
    proc = mcpx_call(
        servers["stream"].url(), "--method", "tools/list", "--transport", "http", "--format", "json"
    )
    assert "add" in [tool["name"] for tool in result(proc)["tools"]]


def test_tool_call_over_legacy_sse_and_auto(servers: dict[str, Server]) -> None:
    url = servers["sse"].url("/sse")
    for transport in ("sse", "auto"):
        proc = mcpx_call(
            url, "--transport", transport, "--method", "tools/call", "--tool-name", "echo",
            "--tool-arg", "text=over sse", "--format", "json",
        )  # fmt: skip
        assert result(proc)["content"][0]["text"] == "over sse"


def test_header_flag_reaches_the_server_and_the_traffic_masks_it(servers: dict[str, Server]) -> None:
    url = servers["faulty"].url("/auth/mcp")
    proc = mcpx_call(
        url, "--method", "tools/list", "--transport", "http", "--header", "Authorization: Bearer good-token-1234",
        "--traffic", "--format", "json",
    )  # fmt: skip
    assert result(proc)["tools"][0]["name"] == "echo"
    assert "good-token" not in proc.stderr


def test_401_exits_3_with_the_challenge(servers: dict[str, Server]) -> None:
    proc = mcpx_call(servers["faulty"].url("/auth/mcp"), "--method", "tools/list")
    assert proc.returncode == 3
    failure = error(proc)
    # mcpx tries to sign in (this server publishes no OAuth metadata), then says what the server asked
    assert failure["code"] in ("auth_required", "auth_failed")
    assert 'Bearer realm="mcpx-test"' in failure["message"]


def test_unreachable_exits_4() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    proc = mcpx_call(url, "--method", "tools/list")
    assert proc.returncode == 4
    assert "connection refused" in error(proc)["message"]


def test_bearer_and_server_url_flags(servers: dict[str, Server], monkeypatch: pytest.MonkeyPatch) -> None:
    url = servers["faulty"].url("/auth/mcp")
    proc = mcpx_call(
        "--server-url", url, "--bearer", "good-token-1234", "--method", "tools/list", "--transport", "http",
        "--traffic", "--format", "json",
    )  # fmt: skip
    assert result(proc)["tools"][0]["name"] == "echo"
    assert "good-token" not in proc.stderr
    monkeypatch.setenv("MCPX_BEARER", "good-token-1234")
    proc = mcpx_call(url, "--method", "tools/list", "--transport", "http", "--format", "json")
    assert result(proc)["tools"][0]["name"] == "echo"
    both = mcpx_call(url, "--server-url", url, "--method", "tools/list")
    assert both.returncode == 1
    assert "not both" in error(both)["message"]
