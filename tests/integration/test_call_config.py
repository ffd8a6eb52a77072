"""`mcpx call --config FILE [--server NAME]` with the config files people already have:
Claude Desktop's `{"mcpServers": {...}}` and VS Code's `{"servers": {...}}`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from call_harness import call, server

STRAY = server("stray_response.py")
PAGINATED = server("paginated.py")


def write(path: Path, data: dict) -> str:
    path.write_text(json.dumps(data, indent=2))
    return str(path)


def claude(**servers: dict) -> dict:
    return {"mcpServers": servers}


def vscode(**servers: dict) -> dict:
    return {"servers": {name: {"type": "stdio", **entry} for name, entry in servers.items()}, "inputs": []}


def entry(script: str, *args: str, **env: str) -> dict:
    return {"command": sys.executable, "args": [script, *args], "env": env}


@pytest.mark.parametrize("shape", [claude, vscode], ids=["claude-desktop", "vscode"])
def test_one_server_is_used_without_server_flag(shape, tmp_path: Path) -> None:
    config = write(tmp_path / "mcp.json", shape(stray=entry(STRAY)))
    printed = call(
        "--config", config, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=via config"
    ).text()
    assert printed == "via config"


@pytest.mark.parametrize("shape", [claude, vscode], ids=["claude-desktop", "vscode"])
def test_server_flag_picks_one_of_several(shape, tmp_path: Path) -> None:
    config = write(tmp_path / "mcp.json", shape(stray=entry(STRAY), paged=entry(PAGINATED, "5", "2")))
    result = call(
        "--config", config, "--server", "paged", "--method", "prompts/list", "--format", "json"
    ).result()
    assert [p["name"] for p in result["prompts"]] == [f"prompt-{i}" for i in range(5)]


@pytest.mark.parametrize("shape", [claude, vscode], ids=["claude-desktop", "vscode"])
def test_several_servers_without_server_flag_lists_the_names(shape, tmp_path: Path) -> None:
    config = write(
        tmp_path / "mcp.json", shape(alpha=entry(STRAY), beta=entry(PAGINATED), gamma=entry(STRAY))
    )
    error = call("--config", config, "--method", "tools/list").failure(1, "usage")
    for name in ("alpha", "beta", "gamma", "--server"):
        assert name in error["message"]


def test_unknown_server_name_lists_the_names(tmp_path: Path) -> None:
    config = write(tmp_path / "mcp.json", claude(alpha=entry(STRAY), beta=entry(PAGINATED)))
    error = call("--config", config, "--server", "delta", "--method", "tools/list").failure(1, "usage")
    assert "delta" in error["message"] and "alpha" in error["message"] and "beta" in error["message"]


def test_env_from_the_config_and_from_e_reach_the_server(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    config = write(tmp_path / "mcp.json", claude(only=entry(STRAY, MCPX_TEST_PIDFILE="${MCPX_TEST_DIR}/pid")))
    extra = tmp_path / "record.jsonl"
    proc = call(
        "--config", config, "-e", f"MCPX_TEST_RECORD={extra}", "--method", "tools/list",
        env={"MCPX_TEST_DIR": str(tmp_path)},
    )  # fmt: skip
    proc.result()
    assert pidfile.exists(), "the config's env (with ${VAR} expanded) did not reach the server"
    assert extra.exists(), "-e did not reach a server from --config"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        pytest.param("{not json", ["not valid JSON"], id="not-json"),
        pytest.param('{"something": {}}', ["mcpServers", "servers"], id="no-servers"),
        pytest.param('{"mcpServers": {"x": {"args": []}}}', ["x"], id="no-command"),
    ],
)
def test_broken_config_is_one_sentence(content: str, words: list[str], tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(content)
    error = call("--config", str(path), "--method", "tools/list").failure(1, "usage")
    for word in words:
        assert word in error["message"]


def test_missing_config_file(tmp_path: Path) -> None:
    error = call("--config", str(tmp_path / "absent.json"), "--method", "tools/list").failure(1, "usage")
    assert "absent.json" in error["message"]
