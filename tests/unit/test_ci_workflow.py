"""The CI workflow agrees with the tree: the tests it names exist, and it tests the Pythons the package claims.

The workflow cannot run here (no GitHub), so what can drift unseen is checked by reading it: a test file
moved into a feature folder left the macOS job pointing at a path pytest refuses (exit 4, the whole job
red), and the matrix, `requires-python`, the classifiers and the ruff/mypy targets must name the same
Pythons or one of them lies.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def _workflow() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def _project() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_test_path_the_workflow_names_exists() -> None:
    matrix = _workflow()["jobs"]["test"]["strategy"]["matrix"]
    named = [word for entry in matrix.get("include", []) for word in str(entry.get("subset", "")).split()]
    assert named, "the macOS job names its subset of tests"
    missing = [
        word for word in named if not word.startswith("-") and not (ROOT / word.split("::")[0]).exists()
    ]
    assert not missing, f"the workflow names test paths that do not exist: {missing}"


def test_the_matrix_tests_the_pythons_the_package_claims() -> None:
    project = _project()
    matrix = _workflow()["jobs"]["test"]["strategy"]["matrix"]
    tested = sorted({str(v) for v in matrix["python"]}, key=lambda v: tuple(map(int, v.split("."))))
    classified = sorted(
        (
            m.group(1)
            for c in project["project"]["classifiers"]
            if (m := re.fullmatch(r".*:: Python :: (3\.\d+)", c))
        ),
        key=lambda v: tuple(map(int, v.split("."))),
    )
    assert tested == classified
    lowest = tested[0]
    assert project["project"]["requires-python"] == f">={lowest}"
    assert project["tool"]["ruff"]["target-version"] == "py" + lowest.replace(".", "")
    assert project["tool"]["mypy"]["python_version"] == lowest
