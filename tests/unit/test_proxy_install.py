"""`mcpx proxy install` / `uninstall` on each host's config shape: the proxied entries keep env, cwd and
headers, the backup is the original, and uninstall gives the original back byte for byte (or, when the
file changed meanwhile, puts back the entries and keeps the rest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpx.errors import UsageError
from mcpx.proxy.install import config_path, install, plan_install, uninstall
from mcpx.workspace.discovery import Places

PY = "/opt/py/bin/python"
STDIO = {"command": "npx", "args": ["-y", "@scope/server", "--name", "x"], "env": {"API_KEY": "k-123456789"}}
SHAPES: dict[str, dict[str, Any]] = {
    "claude-desktop": {"mcpServers": {"files": {**STDIO, "cwd": "/srv"}}, "globalShortcut": "Ctrl+Space"},
    "claude-code": {
        "numStartups": 3,
        "mcpServers": {"files": STDIO},
        "projects": {
            "/work/app": {
                "allowedTools": [],
                "mcpServers": {
                    "remote": {"type": "http", "url": "https://mcp.example.com/mcp",
                               "headers": {"Authorization": "Bearer t-0123456789"}},
                },
            }
        },
    },
    "cursor": {"mcpServers": {"files": STDIO, "remote": {"url": "https://x.example/sse", "headers": {"X-Key": "v"}}}},
    "vscode": {
        "inputs": [{"type": "promptString", "id": "key", "password": True}],
        "servers": {
            "files": {"type": "stdio", **STDIO, "envFile": "${workspaceFolder}/.env"},
            "remote": {"type": "sse", "url": "https://x.example/sse", "headers": {"X-Key": "${input:key}"}},
        },
    },
}  # fmt: skip


def places(tmp_path: Path) -> Places:
    return Places(home=tmp_path / "home", cwd=tmp_path / "project", platform="linux", environ={})


def write(host: str, where: Places, indent: int | str = 2) -> tuple[Path, bytes]:
    path = config_path(host, where)  # type: ignore[arg-type]
    path.parent.mkdir(parents=True, exist_ok=True)
    original = (json.dumps(SHAPES[host], indent=indent) + "\n").encode()
    path.write_bytes(original)
    path.chmod(0o640)
    return path, original


@pytest.mark.parametrize("host", list(SHAPES))
def test_install_then_uninstall_round_trips_exactly(host: str, tmp_path: Path) -> None:
    where = places(tmp_path)
    path, original = write(host, where, indent=4 if host == "cursor" else 2)
    plan = plan_install(host, where, None, python=PY)  # type: ignore[arg-type]
    backup = install(plan)
    assert backup is not None and backup.read_bytes() == original
    assert oct(backup.stat().st_mode & 0o777) == "0o600" and oct(path.stat().st_mode & 0o777) == "0o640"
    data = json.loads(path.read_bytes())
    table = data["servers"] if host == "vscode" else data["mcpServers"]
    files = table["files"]
    assert files["command"] == PY
    assert files["args"] == [
        "-m",
        "mcpx",
        "proxy",
        "--name",
        "files",
        "--",
        "npx",
        "-y",
        "@scope/server",
        "--name",
        "x",
    ]
    assert files["env"] == STDIO["env"]  # env (and every other key) passes through unchanged
    if host == "claude-desktop":
        assert files["cwd"] == "/srv" and data["globalShortcut"] == "Ctrl+Space"
    if host == "vscode":
        assert files["envFile"] == "${workspaceFolder}/.env" and data["inputs"] == SHAPES["vscode"]["inputs"]
        remote = table["remote"]
        assert remote["type"] == "stdio" and "url" not in remote and "headers" not in remote
        assert remote["args"][3:] == ["--name", "remote", "--transport", "sse", "--header", "X-Key: ${input:key}",
                                      "--", "https://x.example/sse"]  # fmt: skip
    if host == "claude-code":
        remote = data["projects"]["/work/app"]["mcpServers"]["remote"]
        assert remote["type"] == "stdio" and data["numStartups"] == 3
        assert "Authorization: Bearer t-0123456789" in remote["args"]
    if host == "cursor":
        assert path.read_text().startswith('{\n    "mcpServers"')  # the file's own indentation
    # installing again changes nothing: the entries already go through the proxy
    again = plan_install(host, where, None, python=PY)  # type: ignore[arg-type]
    assert not again.applied and all(c.skipped == "already goes through mcpx proxy" for c in again.changes)

    restored, exact, names = uninstall(host, where)  # type: ignore[arg-type]
    assert restored == path and exact and "files" in names
    assert path.read_bytes() == original and not backup.exists()
    with pytest.raises(UsageError, match="nothing to undo"):
        uninstall(host, where)  # type: ignore[arg-type]


def test_uninstall_after_the_file_changed_restores_the_entries_and_keeps_the_rest(tmp_path: Path) -> None:
    where = places(tmp_path)
    path, _ = write("cursor", where)
    install(plan_install("cursor", where, ["files"], python=PY))
    data = json.loads(path.read_bytes())
    assert data["mcpServers"]["remote"] == SHAPES["cursor"]["mcpServers"]["remote"]  # not chosen: untouched
    data["mcpServers"]["added"] = {"command": "later"}  # the user edits the file meanwhile
    path.write_text(json.dumps(data, indent=2) + "\n")
    _, exact, names = uninstall("cursor", where)
    assert not exact and names == ["files"]
    assert json.loads(path.read_bytes())["mcpServers"] == {
        **SHAPES["cursor"]["mcpServers"],
        "added": {"command": "later"},
    }


def test_install_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    where = places(tmp_path)
    with pytest.raises(UsageError, match="does not exist"):
        plan_install("cursor", where, None)
    path, _ = write("cursor", where)
    with pytest.raises(UsageError, match="no server named 'nope'"):
        plan_install("cursor", where, ["nope"])
    path.write_text("{not json")
    with pytest.raises(UsageError, match="is not valid JSON"):
        plan_install("cursor", where, None)
