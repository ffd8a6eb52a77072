"""Shared test settings: every test gets its own mcpx cache and config directories."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_mcpx_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Era verdicts and settings never leak between tests or from the developer's machine.

    Subprocesses inherit the environment, so `mcpx` runs started by a test see the same directories.
    """
    base = tmp_path_factory.mktemp("mcpx-home")
    monkeypatch.setenv("MCPX_CACHE_DIR", str(base / "cache"))
    monkeypatch.setenv("MCPX_CONFIG_DIR", str(base / "config"))
    return base
