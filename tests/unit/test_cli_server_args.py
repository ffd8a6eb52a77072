"""Every command that takes TARGET [server args…] hands options it does not know to the server, as the
official inspector's --cli does (`mcpx watch npx -y @scope/server`, `mcpx proxy ./k8s-server --kubeconfig
FILE`): parsed in-process for each such command; tests/integration/test_cli_arguments.py runs one."""

from __future__ import annotations

import pytest
import typer

from mcpx.cli.main import COMMANDS, build_app

TAKES_TARGET = sorted(name for name, (_, takes_server) in COMMANDS.items() if takes_server)
ROOT = typer.main.get_command(build_app())


def test_the_new_commands_are_among_them() -> None:
    assert {"call", "inspect", "doctor", "check", "watch", "proxy"} <= set(TAKES_TARGET)


@pytest.mark.parametrize("name", TAKES_TARGET)
def test_dashed_words_after_target_reach_the_server(name: str) -> None:
    command = ROOT.commands[name]  # type: ignore[attr-defined]
    first = "session.jsonl" if name == "replay" else "npx"  # replay's first word is its recording
    words = [first, "-y", "@scope/server", "--kubeconfig", "FILE", "--cwd", "/tmp", "-x"]
    ctx = command.make_context(name, words)
    params = ctx.params
    assert params["server_args"] == ["-y", "@scope/server", "--kubeconfig", "FILE", "-x"], params
    assert params["cwd"] == "/tmp"  # mcpx's own flag among them is still mcpx's
