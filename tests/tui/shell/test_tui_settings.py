"""`InspectSettings.load()`: defaults ← config file ← MCPX_* environment ← flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpx.errors import UsageError
from mcpx.tui.settings import InspectSettings


def test_defaults(tmp_path: Path) -> None:
    settings = InspectSettings.load(environ={}, config_dir=tmp_path)
    assert settings == InspectSettings()
    assert settings.protocol_era == "auto" and settings.follow


def test_file_then_environment_then_flags(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        '[inspect]\ntheme = "nord"\ntimeout = 5\nkeymap = { reconnect = "ctrl+r" }\nfollow = false\n'
    )
    settings = InspectSettings.load(
        environ={"MCPX_TIMEOUT": "9", "MCPX_LOG_LEVEL": "debug"}, config_dir=tmp_path
    )
    assert settings.theme == "nord"
    assert settings.timeout == 9.0
    assert settings.keymap == {"reconnect": "ctrl+r"}
    assert settings.follow is False
    assert settings.log_level == "debug"
    flagged = InspectSettings.load(
        environ={"MCPX_TIMEOUT": "9"}, config_dir=tmp_path, timeout=None, theme="gruvbox"
    )
    assert flagged.timeout is None and flagged.theme == "gruvbox"


def test_config_file_from_environment(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text("[inspect]\nstderr_tail = 3\n")
    assert InspectSettings.load(environ={"MCPX_CONFIG_FILE": str(path)}).stderr_tail == 3
    (tmp_path / "config.toml").write_text("[inspect]\nprobe_timeout = 0.5\n")
    assert InspectSettings.load(environ={"MCPX_CONFIG_DIR": str(tmp_path)}).probe_timeout == 0.5


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"MCPX_LOG_LEVEL": "loud"}, "log_level"),
        ({"MCPX_TIMEOUT": "soon"}, "timeout"),
    ],
)
def test_bad_values_are_one_clear_sentence(tmp_path: Path, environ: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        InspectSettings.load(environ=environ, config_dir=tmp_path)


def test_unreadable_or_unknown(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[inspect\n")
    with pytest.raises(UsageError, match="cannot read"):
        InspectSettings.load(environ={}, config_dir=tmp_path)
    (tmp_path / "config.toml").write_text("[inspect]\ncolour = 'red'\n")
    with pytest.raises(UsageError, match="colour"):
        InspectSettings.load(environ={}, config_dir=tmp_path)
