"""`mcpx check` calibrated on a panel of real servers from npm and PyPI (pinned in package.json and the dev
extras; none needs the network to start), read-only tools called. Each server's verdicts here are the ones
reviewed in docs/check.md's calibration table: no official server fails, and each warning is a known
deviation of its SDK (the rule, the exchange and why it only warns are written down there).

The servers are checked side by side, once per module (a few at a time: the machine has two cores).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpx.check.model import all_checks
from mcpx.check.options import CheckOptions, check_session
from mcpx.check.report import CheckReport
from mcpx.check.runner import run_checks
from mcpx.transports.spec import resolve_target

ROOT = Path(__file__).resolve().parents[2]
NPM = ROOT / "node_modules" / ".bin"
PYPI = Path(sys.executable).parent
HTTP_ONLY = {c.id for c in all_checks() if "stdio" not in c.transports}
TS_SDK = {  # the TypeScript SDK v1's deviations, on every server built on it
    "jsonrpc.parse-error": "warn",
    "jsonrpc.id-echo-large": "warn",
    "jsonrpc.unknown-tool": "warn",
    "catalogue.invalid-cursor": "warn",
}
PY_SDK = {"jsonrpc.parse-error": "warn", "catalogue.invalid-cursor": "warn"}  # the Python SDK v2's
#: server → (its command, its expected warnings and failures, its era and revision)
PANEL: dict[str, tuple[list[str], dict[str, str], dict[str, str | None]]] = {
    "server-filesystem": (
        [str(NPM / "mcp-server-filesystem"), "{files}"],
        TS_SDK,
        {"modern": None, "legacy": "2025-11-25"},
    ),
    "server-memory": ([str(NPM / "mcp-server-memory")], TS_SDK, {"modern": None, "legacy": "2025-11-25"}),
    "server-sequential-thinking": (
        [str(NPM / "mcp-server-sequential-thinking")],
        TS_SDK,
        {"modern": None, "legacy": "2025-11-25"},
    ),
    "mcp-server-time": (
        [str(PYPI / "mcp-server-time"), "--local-timezone", "UTC"],
        PY_SDK,
        {"modern": "2026-07-28", "legacy": "2025-11-25"},
    ),
    "mcp-server-git": (
        [str(PYPI / "mcp-server-git"), "--repository", "{repo}"],
        PY_SDK,
        {"modern": "2026-07-28", "legacy": "2025-11-25"},
    ),
}


def _installed(command: list[str]) -> bool:
    return Path(command[0]).exists() and (
        not command[0].startswith(str(NPM)) or shutil.which("node") is not None
    )


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CheckReport]:
    missing = [name for name, (command, _, _) in PANEL.items() if not _installed(command)]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (npm ci; pip install -e '.[dev]')")
    base = tmp_path_factory.mktemp("panel")
    files, repo = base / "files", base / "repo"
    files.mkdir()
    (files / "notes.txt").write_text("hello\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
         "-m", "first"],
        check=True,
    )  # fmt: skip
    env = {"MEMORY_FILE_PATH": str(base / "memory.jsonl")}

    async def run_all() -> dict[str, CheckReport]:
        gate = asyncio.Semaphore(3)

        async def one(name: str, command: list[str]) -> tuple[str, CheckReport]:
            words = [w.format(files=files, repo=repo) for w in command]
            spec = resolve_target(words[0], words[1:], env=env)
            async with gate:
                return name, await run_checks(spec, CheckOptions(check_session(timeout=20), call_tools=True))

        return dict(await asyncio.gather(*(one(name, command) for name, (command, _, _) in PANEL.items())))

    return asyncio.run(run_all())


@pytest.mark.npm
def test_each_panel_server_gets_its_reviewed_verdicts(panel: dict[str, CheckReport]) -> None:
    """One test over the whole panel (a module fixture would run once per xdist worker otherwise)."""
    flagged = {
        name: {r.id: r.status for r in report.results if r.status in ("fail", "warn", "incomplete")}
        for name, report in panel.items()
    }
    assert flagged == {name: expected for name, (_, expected, _) in PANEL.items()}, {
        name: {r.id: r.detail for r in report.results if r.id in flagged[name]}
        for name, report in panel.items()
    }
    assert {name: report.exit_code for name, report in panel.items()} == dict.fromkeys(PANEL, 0)
    assert {name: report.eras for name, report in panel.items()} == {
        name: eras for name, (_, _, eras) in PANEL.items()
    }
    for report in panel.values():
        # every warning that comes from a broken MUST says why it only warns
        assert all(r.check.warns for r in report.results if r.status == "warn" and r.check.level == "MUST")
        # skips say why; the HTTP checks skip on stdio for that reason alone
        skipped: dict[str, Any] = {r.id: r.detail for r in report.results if r.status == "skip"}
        assert all(skipped.values())
        assert {i for i in HTTP_ONLY if skipped.get(i) != "applies to http servers only"} == set()
        if report.main_era == "legacy":
            assert skipped["catalogue.stable-order"] == (
                "a rule of 2026-07-28 and later; this connection speaks 2025-11-25"
            )
