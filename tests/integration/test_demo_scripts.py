"""The bundled demo server from scripts: the reserved TARGET `demo` (`mcpx call demo …`), `mcpx demo
--stdio` (the server alone on stdio, for mcpx itself and for any client), and `mcpx demo`'s inspector
flags (`--protocol-era`, `--record`) reaching the inspector."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from call_harness import MCPX, call, mcpx

from mcpx.record.reader import read_recording

pytestmark = pytest.mark.timeout(120)


def test_call_demo_is_the_bundled_server() -> None:
    added = call(
        "demo", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=3"
    )
    assert added.text() == '2 + 3 = 5\nstructured result:\n{\n  "sum": 5\n}'
    listed = call("demo", "--method", "tools/list", "--format", "json").result()
    assert [t["name"] for t in listed["tools"]][:3] == ["echo", "add", "weather"]


def test_call_demo_takes_the_servers_own_flags_after_a_double_dash() -> None:
    """Words after `demo` go to the demo server, so its own faults are reachable from a script too."""
    broken = call("demo", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=x", "--",
                  "--misbehave", "crash")  # fmt: skip
    # (no failure(): the server's own stderr tail, quoted in the error, holds its made-up traceback)
    assert broken.returncode == 4, str(broken)
    error = json.loads(broken.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "server_exited" and "misbehaving: crash" in error["message"]


def test_demo_stdio_is_a_server_mcpx_itself_can_start() -> None:
    echoed = call(MCPX[0], "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi", "--",
                  *MCPX[1:], "demo", "--stdio")  # fmt: skip
    assert echoed.text() == "hi"


def test_demo_stdio_speaks_json_rpc_on_its_stdin_and_stdout() -> None:
    """Any client: one initialize line in, one answer line out, then end of input ends the server."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    proc = subprocess.run(
        [*MCPX, "demo", "--stdio"],
        input=json.dumps(initialize) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    (answer,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "mcpx-demo"
    assert "ready on stdio" in proc.stderr  # its log goes to stderr, never into the protocol stream


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--stdio", "--record", "x.jsonl"], "--stdio serves the demo server alone"),
        (["--stdio", "--protocol-era", "modern"], "--stdio serves the demo server alone"),
        (["--protocol-era", "medieval"], "--protocol-era must be legacy, auto or modern"),
        (["--record", "/no/such/folder/x.jsonl"], "does not exist"),
        (["--misbehave", "politely"], "--misbehave must be one of"),
    ],
)
def test_demo_refuses_what_cannot_work_in_one_sentence(args: list[str], sentence: str) -> None:
    error = mcpx("demo", *args).failure(1, "usage")
    assert sentence in error["message"]


def test_demo_protocol_era_and_record_reach_the_inspector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mcpx demo --protocol-era legacy --record FILE`: the inspector opens in the legacy era on the demo
    server (its header says so) and the session lands in FILE. The TUI runs headless (Pilot) in place of
    the terminal app; everything up to it is the real command."""
    from typer.testing import CliRunner

    from mcpx.cli import demo
    from mcpx.cli.main import app
    from mcpx.tui import make_app

    seen: dict[str, Any] = {}

    def headless(spec: Any, *, settings: Any, recording: Any, **_: Any) -> int:
        async def drive() -> None:
            inspector = make_app(spec, settings=settings)
            recording.attach(inspector.traffic)
            async with inspector.run_test(size=(160, 40)) as pilot:
                # wait on the session's state (cheap), then read the screen once: rendering a whole
                # screenshot every tenth of a second starved the app's own loop on a loaded machine
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and inspector.session.state != "connected":
                    await pilot.pause(0.1)
                for _ in range(50):  # the header repaints after the state: a bounded wait for it
                    await pilot.pause(0.1)
                    text = inspector.export_screenshot()
                    if "connected" in text and "2025-11-25" in text:
                        seen["screen"] = text
                        break
                seen["state"] = inspector.session.state
                await pilot.press("q")
            recording.close()

        asyncio.run(drive())
        return 0

    monkeypatch.setattr(demo, "_inspector", lambda: headless)
    path = tmp_path / "demo.mcpx.jsonl"
    result = CliRunner().invoke(app, ["demo", "--protocol-era", "legacy", "--record", str(path)])
    assert result.exit_code == 0, result.output
    assert seen.get("state") == "connected", f"the demo never connected (state {seen.get('state')!r})"
    assert "legacy" in seen.get("screen", ""), "the header never showed the legacy era"
    recording = read_recording(path)
    assert recording.header["era"] == "legacy"
    assert recording.header["target"]["command"][:3] == [sys.executable, "-m", "mcpx.demo"]
    sent = [e.method for e in recording.log if e.direction == "out"]
    assert sent[0] == "initialize" and "server/discover" not in sent, "legacy: the handshake, no probe"
