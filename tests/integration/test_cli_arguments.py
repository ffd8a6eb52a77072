"""`--help` as a user reads it, options after TARGET that belong to the server, and the commands mcpx
prints for the user to run — each run exactly as printed (through a shell)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from call_harness import MCPX, ROOT, call, mcpx, server

pytestmark = pytest.mark.timeout(120)
EVERYTHING = server("sdk_everything.py")
# every command's `-h` is read in tests/unit/test_cli_help.py (in-process, found by walking the CLI);
# here the installed entry point prints the top-level and `call` help


def test_top_level_help_keeps_each_summary_whole() -> None:
    text = mcpx("--help").stdout
    assert "..." not in text.replace("COMMAND [ARGS]...", "")
    assert "Connect, send one request, print its result, exit with a code" in text


def test_call_help_marks_method_required_and_shows_examples_and_exit_codes() -> None:
    text = mcpx("call", "--help").stdout
    assert re.search(r"--method METHOD\s+The MCP method to call\.\s+\[required\]", text)
    assert "--tool-arg KEY=VALUE" in text and "--timeout SECONDS" in text and "-e, --env KEY=VALUE" in text
    assert "Examples:" in text and "mcpx call npx -y @modelcontextprotocol/server-everything" in text
    assert "Exit codes: 0 ok" in text and "5 tool error" in text


def test_options_mcpx_does_not_know_after_target_go_to_the_server(tmp_path: Path) -> None:
    """`where` answers with the server's argv: dashed words reach it without --, as with the official
    inspector's --cli; mcpx's own flags around them are still mcpx's."""
    proc = call(
        EVERYTHING, "plain", "--dashed", "-x", "--kubeconfig", "FILE", "--method", "tools/call",
        "--tool-name", "where", "--cwd", str(tmp_path), "--format", "json",
    )  # fmt: skip
    where = proc.result()["structuredContent"]
    assert where["argv"] == ["plain", "--dashed", "-x", "--kubeconfig", "FILE"]
    assert Path(where["cwd"]).resolve() == tmp_path.resolve()


def test_an_npx_style_command_with_its_own_flags() -> None:
    """`mcpx call npx -y @scope/server …`'s shape: a launcher with a flag before the server's name
    (node --no-warnings SCRIPT), nothing after --."""
    script = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
    node = shutil.which("node")
    assert node and script.exists(), "needs the npm peers (scripts/test installs them)"
    echoed = call(node, "--no-warnings", str(script), "--method", "tools/call", "--tool-name", "echo",
                  "--tool-arg", "message=dashed")  # fmt: skip
    assert echoed.text() == "Echo: dashed"


def test_an_unknown_option_before_target_says_where_server_options_go() -> None:
    error = call("--kubeconfig", "FILE", "--method", "tools/list").failure(1, "usage")
    assert "--kubeconfig" in error["message"] and "after --" in error["message"]


def _printed_command(stderr: str) -> str:
    found = re.search(r"run `(mcpx [^`]+)`", stderr)
    assert found, stderr
    return found.group(1)


def test_the_doctor_hint_runs_as_printed_for_a_path_with_spaces_and_dashed_args(tmp_path: Path) -> None:
    folder = tmp_path / "my servers"
    folder.mkdir()
    script = folder / "dies at start.py"
    shutil.copy(server("dies.py"), script)
    shutil.copy(server("bare.py"), folder / "bare.py")  # what dies.py builds on
    failed = call(str(script), "start", "3", "--method", "tools/list")
    assert failed.returncode == 4, str(failed)
    printed = _printed_command(failed.stderr)
    assert "'" in printed, f"the path with spaces must be quoted: {printed}"
    ran = subprocess.run(printed, shell=True, capture_output=True, text=True, timeout=90,
                         env={**__import__("os").environ, "PATH": f"{Path(MCPX[0]).parent}:{__import__('os').environ['PATH']}"})  # fmt: skip
    assert ran.returncode == 4, (
        ran.stdout + ran.stderr
    )  # the doctor's verdict on that server, not a usage error
    assert "exited with code 3" in ran.stdout + ran.stderr
    assert '"usage"' not in ran.stderr


def test_the_doctor_hint_for_the_demo_names_the_demo_and_its_flags() -> None:
    failed = call("demo", "--timeout", "1", "--method", "tools/list", "--", "--misbehave", "slow-start")
    assert failed.returncode == 4, str(failed)
    printed = _printed_command(failed.stderr)
    assert printed == "mcpx doctor demo -- --misbehave slow-start"
    assert sys.executable not in printed
    ran = subprocess.run(
        [*MCPX, "doctor", "--format", "json", *printed.split()[2:]],
        capture_output=True,
        text=True,
        timeout=90,
    )
    report = json.loads(ran.stdout)
    assert ran.returncode in (0, 4), ran.stderr  # a verdict on the demo server, not a usage error
    assert report["steps"][0]["name"] == "command found" and report["steps"][0]["status"] == "ok"
