"""Shared test settings: every test gets its own mcpx cache, config and data directories."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# mcpx's own pytest plugin (installed with the package) collects *.mcpx.yaml files as tests: a collection
# kept here as a test's input is data, never a test of this suite (tests write theirs to tmp_path anyway)
collect_ignore_glob = ["*.mcpx.yaml"]


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
    # no test opens a real browser: where there is a display (a desktop, or a macOS CI runner, where
    # DISPLAY means nothing) Python's webbrowser would, and a sign-in would then wait on it. A command that
    # fails sends mcpx down its no-browser path on every platform.
    monkeypatch.setenv("BROWSER", "false")
    return base


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under xdist (`--dist loadgroup`, set in pyproject.toml) the tests that share one of this suite's
    module- or session-scoped fixtures run on one worker, so its server (or build) is made once, not once
    per worker; every other test is still handed out one at a time. A module whose shared fixture is
    cheap sets `SPREAD_OVER_WORKERS = True` to keep its tests spread."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or getattr(getattr(item, "module", None), "SPREAD_OVER_WORKERS", False):
            continue
        for name in info.names_closure:
            defs = info.name2fixturedefs.get(name) or ()
            # baseid "" is a plugin's fixture (pytest's own, syrupy's, …): only the suite's own count
            if not defs or not defs[-1].baseid or defs[-1].scope not in ("module", "session"):
                continue
            group = item.nodeid.split("::", 1)[0] if defs[-1].scope == "module" else f"session:{name}"
            item.add_marker(pytest.mark.xdist_group(group))
            break


_zygote: subprocess.Popen[bytes] | None = None


def pytest_sessionstart(session: pytest.Session) -> None:
    """Each pytest process that runs tests gets a zygote that has imported the SDK once, and the SDK
    servers under tests/servers fork from it (tests/servers/sdk_zygote.py says why and how)."""
    global _zygote
    config = session.config
    if config.getoption("dist", "no") != "no" and not hasattr(config, "workerinput"):
        return  # the xdist controller runs no test
    path = os.path.join(tempfile.mkdtemp(prefix="mcpx-zy"), "s")
    script = Path(__file__).parent / "servers" / "sdk_zygote.py"
    _zygote = subprocess.Popen(
        [sys.executable, str(script), path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE
    )
    assert _zygote.stdout is not None
    if _zygote.stdout.readline().strip() == b"ready":
        os.environ["MCPX_TEST_SDK_ZYGOTE"] = path
        os.environ["MCPX_TEST_SDK_ZYGOTE_PID"] = str(_zygote.pid)
    else:  # the servers import the SDK themselves, as without a zygote
        _zygote.kill()
        _zygote = None


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _zygote is not None:
        _zygote.kill()
        _zygote.wait()
