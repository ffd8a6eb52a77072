"""Saved calls per server: written atomically, read back, tolerant of a broken file."""

from __future__ import annotations

from pathlib import Path

from mcpx.workspace.saved_calls import SavedCalls, server_file


def test_save_reload_dedupe_and_forget(tmp_path: Path) -> None:
    saved = SavedCalls.load("weather/1", tmp_path)
    assert saved.calls == [] and saved.problem is None
    saved.add("get_forecast", {"city": "Oslo"})
    saved.add("echo", {"text": "hi"})
    saved.add("get_forecast", {"city": "Oslo"})  # the same call again: moved to the end, not doubled
    again = SavedCalls.load("weather/1", tmp_path)
    assert [(c.tool, c.arguments) for c in again.calls] == [
        ("echo", {"text": "hi"}),
        ("get_forecast", {"city": "Oslo"}),
    ]
    assert again.path == server_file("weather/1", tmp_path)
    assert "weather" not in again.path.name  # named by a hash: a server's name or URL may hold a secret
    again.remove(again.calls[0])
    assert [c.tool for c in SavedCalls.load("weather/1", tmp_path).calls] == ["get_forecast"]
    assert not list(again.path.parent.glob("*.tmp"))


def test_env_override_and_broken_files(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MCPX_DATA_DIR", str(tmp_path / "data"))
    SavedCalls.load("srv").add("t", {})
    path = server_file("srv")
    assert path.parent == tmp_path / "data" / "saved-calls" and path.exists()
    path.write_text("{not json")
    broken = SavedCalls.load("srv")
    assert broken.calls == [] and broken.problem is not None and "cannot read" in broken.problem
    path.write_text('{"calls": [{"tool": 5}, {"tool": "ok", "arguments": [1]}, "x"]}')
    odd = SavedCalls.load("srv")
    assert [(c.tool, c.arguments) for c in odd.calls] == [("ok", {})]


def test_a_file_named_after_the_server_is_read_and_moved_to_its_hashed_name(tmp_path: Path) -> None:
    old = tmp_path / "saved-calls" / "http_user_pw_host_mcp.json"
    old.parent.mkdir()
    old.write_text('{"server": "x", "calls": [{"tool": "echo", "arguments": {"a": 1}}]}')
    saved = SavedCalls.load("http://user:pw@host/mcp", tmp_path)
    assert [(c.tool, c.arguments) for c in saved.calls] == [("echo", {"a": 1})]
    saved.add("ping", {})
    assert not old.exists() and saved.path.exists()
    assert "pw@" not in saved.path.read_text()
    assert [c.tool for c in SavedCalls.load("http://user:pw@host/mcp", tmp_path).calls] == ["echo", "ping"]
