"""The workspace against real servers, configured in each host's own file shape: Claude Desktop, Claude
Code (user, local and project scopes), Cursor (user and project), VS Code. SDK servers over stdio and
HTTP, server-everything over stdio and HTTP, a server that exits at start-up, one that never answers
`initialize`, one with names hosts reject; then `mcpx ls` over the same kind of files."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from call_harness import MCPX, alive, read_pid, wait_dead
from http_servers import EVERYTHING, everything_available, everything_server, running, sdk_server

from mcpx.workspace.discovery import Places, discover
from mcpx.workspace.manager import Entry, Workspace

SERVERS = Path(__file__).resolve().parents[1] / "servers"
PY = sys.executable
needs_everything = pytest.mark.skipif(not everything_available(), reason="server-everything not installed")


def put(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def py(script: str, *args: str, pidfile: Path | None = None) -> dict[str, object]:
    entry: dict[str, object] = {"command": PY, "args": [str(SERVERS / script), *args]}
    if pidfile is not None:
        entry["env"] = {"MCPX_TEST_PIDFILE": str(pidfile)}
    return entry


def stdio_windows(entry: Entry) -> tuple[float, float] | None:
    """(spawned, connected-or-ended) of a stdio server's start, from its own log."""
    spawned = next((e.mono for e in entry.traffic if e.facts.get("event") == "spawned"), None)
    if spawned is None:
        return None
    ends = [
        e.mono for e in entry.traffic if e.facts.get("event") in ("opened", "exited") and e.mono >= spawned
    ]
    return spawned, min(ends) if ends else float("inf")


async def until(condition: object, timeout: float, what: object = "") -> None:
    """Wait (polling) until `condition()` holds; fail after `timeout` seconds with `what`."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what() if callable(what) else what
        await asyncio.sleep(0.05)


def most_at_once(windows: list[tuple[float, float]]) -> int:
    edges = sorted([(a, 1) for a, _ in windows] + [(b, -1) for _, b in windows], key=lambda e: (e[0], e[1]))
    peak = now = 0
    for _, step in edges:
        now += step
        peak = max(peak, now)
    return peak


@pytest.mark.npm
@needs_everything
async def test_every_host_shape_every_state(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    pids = {name: tmp_path / f"{name}.pid" for name in ("sdk", "dies", "hangs", "odd")}
    with running(sdk_server(), everything_server("streamableHttp")) as (sdk_http, everything_http):
        put(
            home / ".config" / "Claude" / "claude_desktop_config.json",
            {"mcpServers": {"sdk": py("sdk_everything.py", pidfile=pids["sdk"]),
                            "dies": py("dies.py", "start", pidfile=pids["dies"])}},
        )  # fmt: skip
        put(
            home / ".claude.json",
            {
                "mcpServers": {"everything": {"command": "node", "args": [str(EVERYTHING), "stdio"]}},
                "projects": {
                    str(project): {"mcpServers": {"sdk-http": {"type": "http", "url": sdk_http.url()}}}
                },
            },
        )
        put(
            project / ".mcp.json",
            {"mcpServers": {"hangs": py("never_answers.py", "initialize", pidfile=pids["hangs"])}},
        )
        put(
            home / ".cursor" / "mcp.json", {"mcpServers": {"everything-http": {"url": everything_http.url()}}}
        )
        put(
            project / ".cursor" / "mcp.json",
            {"mcpServers": {"odd.names": py("odd_names.py", pidfile=pids["odd"])}},
        )
        put(
            project / ".vscode" / "mcp.json",
            {"servers": {"tui": {"type": "stdio", **py("tui_server.py")},
                         "typo": {"type": "stdoi", "command": "x"}}},
        )  # fmt: skip
        rows = discover(Places(home=home, cwd=project, platform="linux", environ={}))
        assert [r.name for r in rows] == [
            "sdk", "dies", "everything", "sdk-http", "hangs", "everything-http", "odd.names", "tui", "typo",
        ]  # fmt: skip
        # a strict bound (no slot given up early), and time enough that the hung server is still waiting
        # when every other server is done
        workspace = Workspace(rows, connect_timeout=60, slot_seconds=120, protocol_era="auto")
        try:
            workspace.start()
            by = {e.name: e for e in workspace.entries}
            others = [e for e in workspace.entries if e.name != "hangs"]
            await until(lambda: all(e.settled for e in others), 50, lambda: {e.name: e.state for e in others})
            assert by["hangs"].state == "connecting"  # it did not hold the others up
            states = {e.name: e.state for e in workspace.entries}
            assert states == {
                "sdk": "connected", "dies": "failed", "everything": "connected", "sdk-http": "connected",
                "hangs": "connecting", "everything-http": "connected", "odd.names": "connected",
                "tui": "connected", "typo": "failed",
            }  # fmt: skip
            assert by["dies"].returncode == 3
            assert by["dies"].stderr_tail[-1] == "FATAL: the disk is on fire"
            assert "stdoi" in (by["typo"].reason or "")
            assert by["sdk-http"].configured.transport == "http"
            for name in ("sdk", "everything", "sdk-http", "everything-http", "tui"):
                entry = by[name]
                assert entry.counts["tools"], name
                assert entry.counts["resources"] is not None and entry.counts["prompts"] is not None, name
                assert entry.era in ("legacy", "modern") and entry.protocol_version, name
                assert entry.connect_seconds is not None and entry.definition_chars > 0, name
                assert entry.definition_tokens == (entry.definition_chars + 3) // 4
            assert by["odd.names"].counts == {"tools": 7, "resources": None, "prompts": None}
            # at most two stdio servers were starting at any moment
            windows = [
                w for e in workspace.entries if e.configured.transport == "stdio" if (w := stdio_windows(e))
            ]
            assert len(windows) == 6
            assert most_at_once(windows) <= 2
            assert workspace.peak_starting["stdio"] <= 2

            agent = {t.name: t for t in workspace.agent_tools()}
            assert agent["mcp__odd.names__read.file"].flags == ("bad-characters",)
            assert [t.flags for t in workspace.agent_tools() if t.name == "mcp__odd.names__x"] == [
                ("bad-characters", "duplicate"),
                ("bad-characters", "duplicate"),
            ]
            long_name = (
                "mcp__odd.names__a_tool_whose_name_goes_on_and_on_well_past_what_hosts_accept_in_total"
            )
            assert "too-long" in agent[long_name].flags
            assert "no-description" in agent["mcp__odd.names__silent"].flags
            assert "schema-not-object" in agent["mcp__odd.names__scalar"].flags
            # server-everything over stdio and over HTTP: the same tools under other server names, and
            # no collisions among the well-named ones
            assert agent["mcp__everything__echo"].flags == ()
            assert agent["mcp__everything-http__echo"].flags == ()

            # list_changed marks the row dirty; refresh() fetches the list again
            odd = by["odd.names"]
            assert odd.client is not None
            await odd.client.call_tool("grow", {})
            await until(lambda: "tools" in odd.dirty, 20)
            await workspace.refresh(odd)
            assert odd.counts["tools"] == 8 and not odd.dirty

            # reconnect: a new process, the same log
            old_pid = read_pid(pids["sdk"])
            pids["sdk"].unlink()
            await workspace.reconnect(by["sdk"])
            assert await workspace.wait_settled(timeout=0.01) is False  # the hung server still waits
            await until(lambda: by["sdk"].settled, 40)
            assert by["sdk"].state == "connected" and by["sdk"].attempt == 2
            assert not alive(old_pid) and read_pid(pids["sdk"]) != old_pid
            assert sum(1 for e in by["sdk"].traffic if e.facts.get("event") == "spawned") == 2
        finally:
            await workspace.close()
        for name in ("sdk", "hangs", "odd"):
            assert wait_dead(read_pid(pids[name])), f"{name} outlived the workspace"
        assert {e.state for e in workspace.entries} == {"closed", "failed"}


async def test_a_hung_server_gives_its_slot_up(tmp_path: Path) -> None:
    """Two servers that never answer hold both stdio slots only for `slot_seconds`, not their timeout."""
    configs = tmp_path / "mcp.json"
    put(configs, {"mcpServers": {"hang1": py("never_answers.py", "initialize"),
                                 "hang2": py("never_answers.py", "initialize"),
                                 "ok": py("odd_names.py")}})  # fmt: skip
    from mcpx.workspace.discovery import from_file

    workspace = Workspace(from_file(configs), connect_timeout=40, slot_seconds=0.5, protocol_era="legacy")
    try:
        workspace.start()
        ok = workspace.entries[2]
        await until(lambda: ok.settled, 30)
        assert ok.state == "connected"
        assert [e.state for e in workspace.entries[:2]] == ["connecting", "connecting"]
    finally:
        await workspace.close()


def test_ls_lists_every_server_and_exits_4_on_failure(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    put(first, {"mcpServers": {"echo": py("odd_names.py"), "dies": py("dies.py", "start", "7")}})
    put(second, {"servers": {"odd": {"type": "stdio", **py("odd_names.py")}, "nothing": {}}})
    text = subprocess.run(
        [*MCPX, "ls", "--config", str(first), "--config", str(second), "--timeout", "30"],
        capture_output=True, text=True, timeout=90,
    )  # fmt: skip
    assert text.returncode == 4, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].split() == [
        "NAME",
        "SOURCE",
        "TRANSPORT",
        "STATE",
        "PROTOCOL",
        "TOOLS",
        "RES",
        "PROMPTS",
        "TIME",
        "DEFS",
    ]
    echo = next(line for line in lines if line.startswith("echo "))
    assert "connected" in echo and "legacy 2025-11-25" in echo and "tok" in echo and " 7 " in echo
    assert any("the server exited with code 7" in line for line in lines)
    assert any("stderr| FATAL: the disk is on fire" in line for line in lines)
    assert any('neither a "command" nor a "url"' in line for line in lines)
    assert lines[-1] == "4 servers, 2 connected, 2 failed"

    run = subprocess.run(
        [*MCPX, "ls", "--config", str(second), "--format", "json"], capture_output=True, text=True, timeout=90
    )
    assert run.returncode == 4
    body = json.loads(run.stdout)
    odd, nothing = body["servers"]
    assert odd["state"] == "connected" and odd["counts"]["tools"] == 7
    assert odd["tool_definitions"]["chars"] > 0 and odd["source"] == str(second)
    assert nothing["state"] == "failed" and nothing["reason"]


def test_ls_with_nothing_configured_says_where_it_looked(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    import os

    run = subprocess.run(
        [*MCPX, "ls"], capture_output=True, text=True, timeout=60, cwd=tmp_path, env={**os.environ, **env}
    )
    assert run.returncode == 1
    assert "no MCP servers are configured here" in run.stderr
    assert ".claude.json" in run.stderr


def test_inspect_without_target_and_nothing_configured_says_so(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    run = subprocess.run(
        [*MCPX, "inspect"], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env
    )
    assert run.returncode == 1
    assert "no MCP servers are configured here" in run.stderr


def test_ls_finds_the_project_config_here(tmp_path: Path) -> None:
    import os

    put(tmp_path / ".mcp.json", {"mcpServers": {"here": py("odd_names.py")}})
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    run = subprocess.run([*MCPX, "ls"], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    assert "Claude Code (project)" in run.stdout and "connected" in run.stdout


async def test_a_hung_remote_server_fails_at_its_timeout_and_lets_go(tmp_path: Path) -> None:
    """A URL that accepts connections and never answers: failed at the timeout, closed a moment later."""
    import socket

    from mcpx.transports.spec import ServerSpec
    from mcpx.workspace.discovery import Configured

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        row = Configured("hangs", "test", "test", spec=ServerSpec(url=url, transport="http"))
        workspace = Workspace([row], connect_timeout=2, probe_timeout=1)
        started = time.monotonic()
        workspace.start()
        await workspace.wait_settled(timeout=30)
        settled = time.monotonic() - started
        entry = workspace.entries[0]
        assert entry.state == "failed" and entry.reason == "no answer within 2 s of starting"
        assert settled < 10  # 2 s, plus a loaded machine
        await workspace.close()
        assert time.monotonic() - started - settled < 8  # not the HTTP client's own 30 s
