"""Pilot tests of the workspace (`mcpx inspect` with no target) against real stdio servers: rows reach
their states, the agent's view flags names, list_changed refreshes, Enter opens the inspector on the
live connection, w comes back with every connection open, r reconnects, and quitting leaves no process.
Snapshots of the workspace and agent's-view screens come from a fixed workspace (scripted_workspace)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from scripted import quiet, wait_for
from scripted_workspace import workspace_app
from textual.pilot import Pilot
from textual.widgets import TextArea
from textual.worker import Worker

from mcpx.tui.asking.asking import root_for
from mcpx.tui.asking.elicitation_screen import ElicitationScreen
from mcpx.tui.asking.sampling_screen import SamplingScreen
from mcpx.tui.settings import InspectSettings
from mcpx.tui.workspace.workspace_app import WorkspaceApp, make_workspace_app
from mcpx.tui.workspace.workspace_screen import WorkspaceScreen
from mcpx.tui.workspace.workspace_tables import AgentTable, ServerTable
from mcpx.workspace.discovery import from_file
from mcpx.workspace.manager import Workspace

SERVERS = Path(__file__).resolve().parents[2] / "servers"
SIZE = (120, 40)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie only waits to be reaped
        return stat.read().split(")")[-1].split()[0] != "Z"


@pytest.fixture
def config(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    pids = {name: tmp_path / f"{name}.pid" for name in ("odd", "dies", "hangs")}

    def py(script: str, *args: str, pid: str) -> dict[str, Any]:
        return {"command": sys.executable, "args": [str(SERVERS / script), *args],
                "env": {"MCPX_TEST_PIDFILE": str(pids[pid])}}  # fmt: skip

    path = tmp_path / "mcp.json"
    servers = {
        "odd.names": py("odd_names.py", pid="odd"),
        "dies": py("dies.py", "start", pid="dies"),
        "hangs": py("never_answers.py", "initialize", pid="hangs"),
        "typo": {"type": "stdoi", "command": "x"},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    return path, pids


def live_app(path: Path) -> WorkspaceApp:
    workspace = Workspace(from_file(path), connect_timeout=60, protocol_era="legacy")
    return make_workspace_app(workspace, settings=InspectSettings(protocol_era="legacy"))


async def test_workspace_rows_agent_view_and_opening_a_server(config: tuple[Path, dict[str, Path]]) -> None:
    path, pids = config
    app = live_app(path)
    async with app.run_test(size=SIZE) as pilot:
        workspace = app.workspace
        odd, dies, hangs, typo = workspace.entries
        await wait_for(pilot, lambda: odd.settled and dies.settled and typo.settled, timeout=60)
        assert isinstance(app.screen, WorkspaceScreen)
        assert (odd.state, dies.state, hangs.state, typo.state) == (
            "connected",
            "failed",
            "connecting",
            "failed",
        )
        table = app.screen.query_one(ServerTable)
        await wait_for(pilot, lambda: str(table.get_row_at(1)[3]) == "failed")
        assert [str(table.get_row_at(i)[0]) for i in range(4)] == ["odd.names", "dies", "hangs", "typo"]
        assert str(table.get_row_at(0)[5]) == "7"
        await pilot.press("down")
        # the detail follows the highlighted row a refresh later
        await wait_for(pilot, lambda: str(app.screen.query_one("#server-detail").render()).startswith("dies"))
        detail = str(app.screen.query_one("#server-detail").render())
        assert "exited with code 3" in detail and "FATAL: the disk is on fire" in detail

        # the agent's view: every tool under its agent name, flagged
        await pilot.press("a")
        agent = app.screen.query_one(AgentTable)
        assert agent.has_focus and agent.row_count == 7
        names = [str(agent.get_row_at(i)[0]) for i in range(agent.row_count)]
        assert "mcp__odd.names__read.file" in names
        assert "duplicate" in str(agent.get_row_at(1)[2])
        # list_changed from the server: the row is dirty, and is fetched again while the view is shown
        assert odd.client is not None
        await odd.client.call_tool("grow", {})
        await wait_for(pilot, lambda: agent.row_count == 8, timeout=20)
        assert not odd.dirty and odd.counts["tools"] == 8

        # Enter opens the inspector over the live connection; w comes back and nothing was closed
        await pilot.press("s", "up", "enter")
        await wait_for(
            pilot, lambda: not isinstance(app.screen, WorkspaceScreen) and app.session.state == "connected"
        )
        client = odd.client
        assert app.client is client and app.session.target == "odd.names"
        await wait_for(pilot, lambda: len(app.catalog.items("tools") or ()) == 8)
        assert app.session.connect_seconds == odd.connect_seconds
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkspaceScreen))
        assert odd.client is client and odd.state == "connected" and not client.peer.closed.is_set()
        odd_pid = int(pids["odd"].read_text())

        # a failed server opens on its failure; r (in the inspector) connects it again through the workspace
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.current is dies and app.session.is_dead)
        assert app.session.returncode == 3
        await pilot.press("r")
        await wait_for(pilot, lambda: dies.attempt == 2 and dies.settled, timeout=30)
        await pilot.press("w")

        # r on a row reconnects that server: a new process
        await pilot.press("up", "r")
        await wait_for(pilot, lambda: odd.attempt == 2 and odd.state == "connected", timeout=30)
        assert not alive(odd_pid)
        await quiet(pilot)
        await pilot.press("q")
    for name in ("odd", "dies", "hangs"):
        pid = int(pids[name].read_text())
        assert not alive(pid), f"{name} (pid {pid}) outlived the app"


def test_workspace_screen(snap_compare: Any) -> None:
    app = workspace_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        # the workspace screen is the app's first: wait until it has composed its tables
        screen = pilot.app.screen
        await wait_for(pilot, lambda: isinstance(screen, WorkspaceScreen) and bool(screen.query(ServerTable)))
        table = screen.query_one(ServerTable)
        await wait_for(pilot, lambda: table.row_count == 8 and table.has_focus)
        await pilot.press(*["down"] * 5)
        await wait_for(pilot, lambda: table.cursor_row == 5)
        await quiet(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_agent_view_screen(snap_compare: Any) -> None:
    app = workspace_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        # the workspace screen is the app's first: wait until it has composed its tables
        screen = pilot.app.screen
        await wait_for(pilot, lambda: isinstance(screen, WorkspaceScreen) and bool(screen.query(AgentTable)))
        table = screen.query_one(AgentTable)
        await wait_for(pilot, lambda: table.row_count == 15)
        await pilot.press("a")
        await wait_for(pilot, lambda: table.has_focus)
        await pilot.press(*["down"] * 10)
        await wait_for(pilot, lambda: table.cursor_row == 10)
        await quiet(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_a_workspace_server_asks_through_the_apps_queue(tmp_path: Path) -> None:
    """Questions from a workspace server reach the app's screens, tagged with its name — over the inspector
    view and over the workspace screen — and the Roots tab's roots are what it is told."""
    path = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": [str(SERVERS / "sdk_asking.py")]}
    path.write_text(json.dumps({"mcpServers": {"asker": server}}))
    workspace = Workspace(from_file(path), connect_timeout=60, protocol_era="legacy")
    settings = InspectSettings(protocol_era="legacy")
    app = make_workspace_app(workspace, settings=settings, roots=[root_for("/tmp", "scratch")])
    async with app.run_test(size=SIZE) as pilot:
        (entry,) = workspace.entries
        await wait_for(pilot, lambda: entry.settled, timeout=60)
        assert entry.state == "connected"

        def call(name: str) -> Worker[Any]:
            assert entry.client is not None
            worker: Worker[Any] = app.run_worker(
                entry.client.call_tool(name, {}), group="requests", exit_on_error=False
            )
            return worker

        async def text(worker: Worker[Any]) -> str:
            await wait_for(pilot, lambda: worker.is_finished, timeout=30)
            assert worker.error is None and worker.result is not None, worker.error
            return "\n".join(block.get("text", "") for block in worker.result.content)

        # opened from the workspace: an elicitation shows in the inspector, and its answer reaches the server
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.current is entry and app.session.state == "connected", timeout=30)
        booking = call("book")
        await wait_for(pilot, lambda: isinstance(app.screen, ElicitationScreen), timeout=30)
        screen = app.screen
        assert isinstance(screen, ElicitationScreen) and screen.ask.server == "asker (asking-server)"
        await pilot.pause(0.2)
        await pilot.press(*"Ann")  # the name field has the focus
        await wait_for(pilot, lambda: screen.form.summary() == "", timeout=10)
        await pilot.press("ctrl+s")
        assert "booked 2 seats for Ann" in await text(booking)

        # the roots: the ones given, then the Roots tab's change (told to the server)
        assert "file:///tmp" in await text(call("roots"))
        app.asking.set_roots([root_for(tmp_path, "work")])
        assert tmp_path.as_uri() in await text(call("roots"))

        # back on the workspace screen, a question shows over it
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WorkspaceScreen))
        sampling = call("capital")
        await wait_for(pilot, lambda: isinstance(app.screen, SamplingScreen), timeout=30)
        await pilot.pause(0.2)
        app.screen.query_one("#sampling-text", TextArea).text = "Paris"
        await pilot.press("ctrl+s")
        assert "said: Paris" in await text(sampling)
        await wait_for(pilot, lambda: isinstance(app.screen, WorkspaceScreen))
        await pilot.press("q")
