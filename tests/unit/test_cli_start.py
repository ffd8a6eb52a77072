"""What `mcpx call` loads to start, and the plain conversion of its parameters under typer
(cli/light_params.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcpx.cli import light_params

ECHO = str(Path(__file__).resolve().parents[2] / "benchmarks" / "echo_server.py")


HEAVY = (
    "pydantic",
    "typer",
    "httpx",
    "textual",
    "rich",
    "uvloop",
    "hashlib",
    "pathlib",
    "urllib",
    "ipaddress",
)


def test_mcpx_call_runs_without_importing_pydantic_typer_or_the_other_commands() -> None:
    probe = (
        "import sys, atexit\n"
        f"atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}"
        " or m.startswith('mcpx.cli.')), file=sys.stderr))\n"
        "from mcpx.cli.main import run\n"
        f"sys.argv = ['mcpx', 'call', {ECHO!r}, '--method', 'tools/list', '--timeout', '9.5', '-e', 'A=1']\n"
        "run()\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    assert run.returncode == 0, run.stderr
    assert '"name": "echo"' in run.stdout
    loaded = eval(run.stderr.strip().splitlines()[-1])  # the list printed at exit
    # pydantic: light_params.py; typer: call_argv.py (a plain `mcpx call` is read without it); httpx: a
    # stdio target needs no HTTP; textual, rich: the TUI's; uvloop: one request gains less than it costs;
    # hashlib: OpenSSL's digests set up for the era cache's one SHA-256 (auto.py's _sha256_hex);
    # pathlib, urllib.parse (→ ipaddress): ~15 ms of CPU for a run that saves one file (secret_policy.py)
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]
    # no other command's module: each run imports only the command it runs
    others = {
        f"mcpx.cli.{name}"
        for name in ("auth", "check", "demo", "diff", "doctor", "inspect", "ls", "mock", "replay")
    }
    assert not others & set(loaded)
    assert {"mcpx.cli.main", "mcpx.cli.calling"} <= set(loaded)
    assert "mcpx.cli.recording" not in loaded  # nothing to record: no recorder


def test_the_recording_directory_variable_is_the_recorders() -> None:
    from mcpx.cli import calling
    from mcpx.record.format import RECORD_DIR_ENV

    assert calling.RECORD_DIR_ENV == RECORD_DIR_ENV


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        (str, "x", "x"),
        (float | None, "2.5", 2.5),
        (int | None, "8080", 8080),
        (bool, "yes", True),
        (list[str] | None, ("a=1", "b=2"), ["a=1", "b=2"]),
    ],
)
def test_plain_values_convert_as_typer_would(annotation: object, value: object, expected: object) -> None:
    light_params.install()
    from typer import core
    from typer._coercion import resolve_type_descriptor
    from typer.models import OptionInfo

    runtime = core.build_runtime_param(resolve_type_descriptor(annotation, OptionInfo()))  # type: ignore[attr-defined]
    assert type(runtime).__name__ == "PlainRuntimeParam"
    assert runtime._coerce_value(value, param=None, ctx=None) == expected


def test_a_wrong_value_is_a_usage_error_in_one_sentence() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mcpx", "call", ECHO, "--method", "tools/list", "--timeout", "soon"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 1
    assert "Invalid value for '--timeout': 'soon' is not a valid number." in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    "env",
    [{}, {"XDG_CACHE_HOME": "/tmp/xdg-cache"}, {"XDG_CACHE_HOME": ""}, {"XDG_CACHE_HOME": "rel/dir"},
     {"HOME": "/tmp/home/"}, {"XDG_CACHE_HOME": "  "}],
)  # fmt: skip
def test_the_era_cache_is_where_platformdirs_puts_it(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs

    from mcpx.protocol.auto import user_cache_dir

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert user_cache_dir() == platformdirs.user_cache_dir("mcpx")
