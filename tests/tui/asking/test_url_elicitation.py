"""What the URL elicitation screen tells the user before a page is opened, and when mcpx will not start a
browser (pure functions, no screen); `mcpx inspect --root` reaches the TUI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mcpx.tui.asking.url_elicitation_screen import browser_refusal, url_warnings


def test_a_page_on_the_servers_own_host_over_https_needs_no_warning() -> None:
    assert url_warnings("https://api.example.com/authorize?x=1", "api.example.com") == []
    assert url_warnings("https://elsewhere.example/", None) == []  # a local server has no host to compare


def test_warnings_name_another_host_punycode_http_odd_schemes_and_credentials() -> None:
    (other,) = url_warnings("https://evil.example/login", "api.example.com")
    assert "evil.example" in other and "api.example.com" in other
    punycode = url_warnings("https://xn--pple-43d.com/", None)
    assert len(punycode) == 1 and "аpple.com" in punycode[0]  # a Cyrillic "а"
    assert "not encrypted" in url_warnings("http://example.com/", None)[0]
    assert url_warnings("http://localhost:8080/cb", None) == []
    assert "not a web address" in url_warnings("javascript:alert(1)", None)[0]
    assert any("user name or password" in w for w in url_warnings("https://u:p@example.com/", None))


def test_no_browser_over_ssh_or_without_a_display() -> None:
    assert "SSH" in (browser_refusal({"SSH_CONNECTION": "1 2 3 4", "DISPLAY": ":0"}, "linux") or "")
    assert "display" in (browser_refusal({}, "linux") or "")
    assert browser_refusal({"DISPLAY": ":0"}, "linux") is None
    assert browser_refusal({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert browser_refusal({}, "darwin") is None


def test_inspect_passes_its_roots_to_the_tui(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import mcpx.tui as tui_app
    from mcpx.cli.main import app as cli

    seen: list[Any] = []
    monkeypatch.setattr(tui_app, "run_inspect", lambda spec, **kw: seen.append(kw["roots"]) or 0)
    server = Path(__file__).parents[2] / "servers" / "sdk_asking.py"
    args = ["inspect", str(server), "--root", str(tmp_path), "--root", "https://example.com/repo"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert seen[-1] == [
        {"uri": tmp_path.resolve().as_uri(), "name": tmp_path.name},
        {"uri": "https://example.com/repo", "name": "repo"},
    ]
