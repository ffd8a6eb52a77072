"""The core never loads the faces: checked in fresh interpreters, and by import-linter's contracts.

Each import runs in its own subprocess, because this test process has long since imported everything.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CORE_PACKAGES = [
    "mcpx",
    "mcpx.target",
    "mcpx.protocol.session",
    "mcpx.wire",
    "mcpx.transports",
    "mcpx.protocol",
    "mcpx.record",
    "mcpx.schema",
    "mcpx.auth",
    "mcpx.check",
    "mcpx.workspace",
    "mcpx.workspace.manager",
    "mcpx.workspace.summary",
    "mcpx.collection",
    "mcpx.collection.runner",
]
UI_LIBRARIES = ["textual", "rich"]


def modules_after_import(module: str) -> set[str]:
    """The names in sys.modules after `import <module>` in a fresh interpreter."""
    code = (
        "import importlib, json, sys\n"
        f"importlib.import_module({module!r})\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, f"import {module} failed:\n{proc.stderr}"
    return set(json.loads(proc.stdout))


def loaded(modules: set[str], package: str) -> list[str]:
    return sorted(m for m in modules if m == package or m.startswith(package + "."))


@pytest.mark.parametrize("package", CORE_PACKAGES)
def test_core_package_does_not_load_textual_or_rich(package: str) -> None:
    modules = modules_after_import(package)
    for library in UI_LIBRARIES:
        assert not loaded(modules, library), f"import {package} loads {library}: {loaded(modules, library)}"


def test_import_mcpx_stays_light() -> None:
    modules = modules_after_import("mcpx")
    for heavy in ["mcpx.cli", "mcpx.tui", "typer", "pydantic", *UI_LIBRARIES]:
        assert not loaded(modules, heavy), f"import mcpx loads {heavy}: {loaded(modules, heavy)}"


def test_import_linter_contracts_are_kept() -> None:
    """`lint-imports` with the contracts in pyproject.toml: no broken contract, none skipped."""
    exe = Path(sys.executable).with_name("lint-imports")
    command = [str(exe)] if exe.exists() else [shutil.which("lint-imports") or "lint-imports"]
    proc = subprocess.run(
        [*command, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert " 0 broken" in output, output
    assert "kept" in output and "KEPT" in output, output


def test_a_target_is_a_plain_value_just_above_the_wire() -> None:
    """`mcpx.target` loads nothing of mcpx but its errors and the wire (whose secret policy masks its URL):
    no transport, no protocol — every floor above the wire may hold one."""
    modules = modules_after_import("mcpx.target")
    above_the_wire = [m for m in loaded(modules, "mcpx") if not m.startswith("mcpx.wire")]
    assert above_the_wire == ["mcpx", "mcpx.__about__", "mcpx.errors", "mcpx.target"]


def test_the_features_floor_is_declared_independent() -> None:
    """The layers contract puts the features side by side with `|` (independent: siblings never import
    each other), and every exception is a named import with a comment above it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the same API; a declared dependency there, so the test runs on 3.10 too instead of skipping
        import tomli as tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    floors = next(c for c in contracts if c["type"] == "layers")
    features = next(layer for layer in floors["layers"] if "mcpx.record" in layer)
    assert "|" in features and ":" not in features, features
    assert {name.strip() for name in features.split("|")} >= {
        "mcpx.record", "mcpx.schema", "mcpx.auth", "mcpx.check", "mcpx.workspace", "mcpx.demo"
    }  # fmt: skip
    assert floors["layers"][-2:] == ["mcpx.target", "mcpx.wire"]
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for exception in floors.get("ignore_imports", []):
        before = text[: text.index(f'"{exception}"')].rstrip().splitlines()[-1].strip()
        assert before.startswith("#"), f"the exception {exception} has no comment saying why"


def test_the_protocol_package_has_no_import_circle() -> None:
    """No two modules of mcpx.protocol import each other, even through others of it (type-only imports
    count): the era mirror and the subscriptions are built from narrow callables, not the whole client."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("mcpx", cache_dir=None)
    modules = sorted(m for m in graph.modules if m.startswith("mcpx.protocol."))
    circles = []
    for index, a in enumerate(modules):
        for b in modules[index + 1 :]:
            there, back = graph.find_shortest_chain(a, b), graph.find_shortest_chain(b, a)
            if there and back and all(m.startswith("mcpx.protocol") for m in (*there, *back)):
                circles.append((there, back))
    assert circles == []
