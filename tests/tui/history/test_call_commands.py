"""A call copied as a command runs as is: `mcpx call …` against the hard catalogue (an SDK server), with
quotes, spaces and dashed server arguments; the inspector's `--cli` line and JSON-RPC have the right shape."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from mcpx.target import ServerSpec
from mcpx.tui.history.call_commands import as_inspector_cli, as_json_rpc, as_mcpx_call, call_as

ROOT = Path(__file__).resolve().parents[3]
HARD = ROOT / "tests" / "servers" / "hard_catalogue.py"
ARGUMENTS = {"code": 'it\'s "quoted" and spaced', "count": 2, "verbose": True}


def test_mcpx_call_runs_as_printed() -> None:
    # dashed server arguments with a space: they must follow `--` (the server ignores them)
    spec = ServerSpec(command=[sys.executable, str(HARD), "--port", "8 0"])
    line = as_mcpx_call(spec, "everything", ARGUMENTS)
    words = shlex.split(line)
    assert words[:2] == ["mcpx", "call"] and words[-4:] == ["--", str(HARD), "--port", "8 0"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "mcpx", *words[1:]]  # `mcpx` as this interpreter's module
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ARGUMENTS  # the server got them exactly


def test_inspector_cli_and_json_rpc() -> None:
    spec = ServerSpec(command=["node", "build/index.js", "--root", "/a b"])
    line = as_inspector_cli(spec, "echo", {"text": "hi there", "n": 3, "opts": {"x": [1]}})
    assert shlex.split(line) == [
        "npx", "@modelcontextprotocol/inspector", "--cli", "node", "build/index.js", "--root", "/a b",
        "--method", "tools/call", "--tool-name", "echo",
        "--tool-arg", "text=hi there", "--tool-arg", "n=3", "--tool-arg", 'opts={"x":[1]}',
    ]  # fmt: skip
    remote = ServerSpec(url="https://user:pw@h.example/mcp", transport="http")
    assert "pw" not in as_inspector_cli(remote, "echo", {}) and "--transport http" in as_inspector_cli(
        remote, "echo", {}
    )
    assert json.loads(as_json_rpc("echo", {"text": "hi"})) == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}},
    }
    assert call_as("mcpx", None, "echo", {}) is None  # a recording: no server to run it against


async def test_history_and_palette_copy_a_call_and_the_palette_jumps_to_an_item() -> None:
    from scripted import scripted_app, settle, wait_for
    from textual.widgets import Input

    from mcpx.tui.catalogue.prompt_panel import PromptPanel
    from mcpx.tui.history.call_history import CallHistory
    from mcpx.tui.shell.commands import InspectCommands

    session = scripted_app(spec=ServerSpec(command=["python", "weather_server.py", "--units", "si"]))
    app = session.app
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        app.view.request_tool_call("echo", {"text": "a b"}, run=True)
        history = app.query_one(CallHistory)
        await wait_for(pilot, lambda: len(history.calls) == 1)
        app.query_one("#side").active = "history-tab"  # type: ignore[attr-defined]
        history.query_one("#history-list").focus()
        await pilot.press("c")
        assert app.clipboard == (
            'mcpx call python --method tools/call --tool-name echo --tool-args-json \'{"text":"a b"}\''
            " -- weather_server.py --units si"
        )
        await pilot.press("x")
        assert app.clipboard.startswith("npx @modelcontextprotocol/inspector --cli python weather_server.py")
        await pilot.press("j")
        assert json.loads(app.clipboard)["params"] == {"name": "echo", "arguments": {"text": "a b"}}

        provider = InspectCommands(app.screen)
        names = [str(name) for name, _, _ in provider.commands()]
        assert "Copy call as JSON-RPC" in names
        hits = [hit async for hit in provider.search("plan_tr")]
        jump = next(hit for hit in hits if "Go to prompt" in str(hit.text))
        jump.command()  # type: ignore[misc]
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        assert any(isinstance(a, PromptPanel) for a in app.focused.ancestors)  # type: ignore[union-attr]
