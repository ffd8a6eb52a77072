"""Config files in the shapes hosts write, with ${VAR} expansion; unusable entries kept with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpx.errors import UsageError
from mcpx.workspace.config import ConfigProblem, expand, load_servers, pick_server


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(data))
    return path


def test_claude_desktop_shape(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_TOKEN", "s3cret")
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "files": {
                    "command": "npx",
                    "args": ["-y", "server", "${HOME_DIR:-/tmp}"],
                    "env": {"T": "${MY_TOKEN}"},
                },
                "remote": {
                    "type": "http",
                    "url": "https://example.test/mcp",
                    "headers": {"A": "${env:MY_TOKEN}"},
                },
                "broken": {"args": ["x"]},
            }
        },
    )
    servers = load_servers(path)
    assert servers["files"].command == ["npx", "-y", "server", "/tmp"]  # type: ignore[union-attr]
    assert servers["files"].env == {"T": "s3cret"}  # type: ignore[union-attr]
    assert servers["remote"].url == "https://example.test/mcp"  # type: ignore[union-attr]
    assert servers["remote"].transport == "http"  # type: ignore[union-attr]
    assert servers["remote"].headers == {"A": "s3cret"}  # type: ignore[union-attr]
    assert isinstance(servers["broken"], ConfigProblem)


def test_vscode_shape_and_single_server_default(tmp_path: Path) -> None:
    path = write(tmp_path, {"servers": {"only": {"type": "stdio", "command": "python", "args": ["s.py"]}}})
    spec = pick_server(path, None)
    assert spec.name == "only"
    assert spec.command == ["python", "s.py"]


def test_several_servers_without_a_name_lists_them(tmp_path: Path) -> None:
    path = write(tmp_path, {"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}})
    with pytest.raises(UsageError, match="a, b"):
        pick_server(path, None)
    with pytest.raises(UsageError, match="no server 'c'"):
        pick_server(path, "c")


def test_unreadable_configs_are_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        load_servers(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(UsageError, match="not valid JSON"):
        load_servers(bad)


def test_expand_leaves_text_without_references_alone() -> None:
    assert expand("plain $HOME {x}", {}) == "plain $HOME {x}"
    assert expand("${A}-${env:B}", {"A": "1", "B": "2"}) == "1-2"


def test_oauth_settings_in_claude_code_and_vscode_shapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcpx.cli.options import OAuthFlags

    monkeypatch.setenv("SECRET_FROM_ENV", "s3cret")
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "claude": {
                        "type": "http",
                        "url": "https://a/mcp",
                        "oauth": {"clientId": "c1", "callbackPort": 8765},
                    },
                    "snake": {
                        "url": "https://b/mcp",
                        "oauth": {
                            "client_id": "c2",
                            "client_secret": "${SECRET_FROM_ENV}",
                            "scopes": ["r", "w"],
                        },
                    },
                    "bad": {"url": "https://c/mcp", "oauth": {"callbackPort": "x"}},
                }
            }
        )
    )
    servers = load_servers(path)
    claude, snake, bad = servers["claude"], servers["snake"], servers["bad"]
    assert not isinstance(claude, ConfigProblem) and not isinstance(snake, ConfigProblem)
    assert claude.oauth == {"client_id": "c1", "callback_port": 8765}
    assert snake.oauth == {"client_id": "c2", "client_secret": "s3cret", "scope": "r w"}
    assert isinstance(bad, ConfigProblem)
    # flags win over the file's entry
    settings = OAuthFlags(client_id="flag", non_interactive=True).settings(claude.oauth)
    assert (settings.client_id, settings.callback_port, settings.mode) == ("flag", 8765, "non-interactive")
