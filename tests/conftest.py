"""Shared test settings: every test gets its own mcpx cache, config and data directories."""

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
    # sign-ins go to a 0600 file in a per-test data dir, never to the developer's keyring
    monkeypatch.setenv("MCPX_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("MCPX_TOKEN_STORE", "file")
    return base
