"""The package as a user gets it: build the sdist and the wheel (the wheel from the sdist, so the sdist is
proven complete), install the wheel into a fresh venv with no checkout on `sys.path`, and run `mcpx
--help`, `mcpx call demo …` and the TUI's first screen (Pilot) from there.

The venv is made with `python -m venv` and filled by `uv pip install` (a dev tool pinned in
constraints/dev.txt): the same wheel, metadata and dependency resolution as pip, in about a second with a
warm cache instead of 20 s of CPU — this test runs in every suite run.
"""

from __future__ import annotations

import email
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PILOT = Path(__file__).with_name("packaging_pilot.py")

pytestmark = pytest.mark.timeout(300)


def _uv() -> str:
    uv = pytest.importorskip("uv")
    return str(uv.find_uv_bin())


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment a user's shell would give: no checkout on PYTHONPATH, no venv of ours."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return {**env, **extra}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    # --no-isolation: hatchling is a pinned dev tool already here, so no throwaway build venv is made
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=240,
    )
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def venv(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv with only the wheel (and what its metadata asks for) installed: its bin directory."""
    home = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True, timeout=120)
    python = home / "bin" / "python"
    subprocess.run(
        [_uv(), "pip", "install", "--quiet", "--python", str(python), str(dist["wheel"])],
        check=True,
        timeout=240,
        env=_clean_env(),
    )
    yield home / "bin"


def _run(bin_dir: Path, *args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = _clean_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_the_wheel_carries_types_license_styles_and_honest_metadata(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        names = wheel.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(wheel.read(metadata_name))
    assert "mcpx/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    styles = {str(p.relative_to(ROOT / "src")) for p in (ROOT / "src" / "mcpx").rglob("*.tcss")}
    assert styles and styles <= set(names), f"the TUI's styles must ship in the wheel: {styles - set(names)}"
    assert not [n for n in names if n.startswith(("tests/", "mcpx/tests"))]
    assert metadata["License-Expression"] == "MIT"
    requires = metadata.get_all("Requires-Dist") or []
    assert any(re.fullmatch(r"tomli.*; python_version < ['\"]3\.11['\"]", r) for r in requires), requires
    assert not any(r.startswith(("mcp ", "mcp>", "mcp=", "pytest")) and "extra" not in r for r in requires)
    classifiers = metadata.get_all("Classifier") or []
    for version in ("3.10", "3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {version}" in classifiers
    assert "Typing :: Typed" in classifiers
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    assert urls["Source"].startswith("https://")


def test_the_sdist_holds_what_a_packager_needs_and_no_litter(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as sdist:
        names = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    for needed in ("LICENSE", "README.md", "pyproject.toml", "src/mcpx/py.typed", "tests/conftest.py"):
        assert needed in names
    assert not [n for n in names if n.startswith((".hypothesis", ".venv", "node_modules", "dist/"))]


def test_readme_links_work_on_the_package_index_page() -> None:
    """The package index renders README.md without the repository around it: links must be absolute."""
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert targets, "the README links to its screenshots"
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#", "mailto:"))]
    assert relative == []
    for line in (
        "pipx install mcpx-inspector",
        "uv tool install mcpx-inspector",
        "pip install mcpx-inspector",
    ):
        assert line in readme


def test_help_and_call_demo_run_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    where = _run(venv, "python", "-c", "import mcpx, sys; print(mcpx.__file__, sys.prefix)", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert str(venv.parent) in where.stdout, f"mcpx must come from the fresh venv: {where.stdout}"

    shown = _run(venv, "mcpx", "--help", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    for command in ("call", "inspect", "demo"):
        assert re.search(rf"^\s+{command}\s", shown.stdout, re.M), shown.stdout

    called = _run(
        venv, "mcpx", "call", "demo", "--method", "tools/call", "--tool-name", "add",
        "--tool-arg", "a=2", "--tool-arg", "b=3", "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)["result"]
    assert result["structuredContent"] == {"sum": 5}


def test_the_tui_first_screen_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    shown = _run(venv, "python", str(PILOT), cwd=tmp_path, timeout=180)
    assert shown.returncode == 0, shown.stderr[-3000:]
    screen = shown.stdout
    assert "mcpx-demo" in screen and "connected" in screen, screen
    assert re.search(r"Tools \d+", screen) and "echo" in screen, screen
    assert f"mcpx imported from {venv.parent}" in screen
