"""`mcpx inspect --attach`: the TUI on a session `mcpx proxy` is relaying, growing while it is live.

A real proxy process between a host (this test, on its pipes) and tests/servers/proxy_peer.py; the app
is opened while the session runs, sees a call the host makes afterwards, and notices the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scripted import quiet, wait_for
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent

from mcpx.proxy.sessions import SessionEntry, find_session
from mcpx.tui.attach.attach_app import make_attach_app
from mcpx.tui.attach.live_label import LiveLabel
from mcpx.tui.attach.sessions_app import SessionsApp
from mcpx.tui.check.check_view import CheckView
from mcpx.tui.replay.replay_app import ReplayApp
from mcpx.tui.settings import InspectSettings

ROOT = Path(__file__).resolve().parents[3]
PEER = ROOT / "tests" / "servers" / "proxy_peer.py"
#: a session `mcpx proxy` recorded between a host and proxy_peer.py (its paths made neutral): malformed
#: frames both ways, invalid UTF-8, the server's stderr
PROXIED = ROOT / "tests" / "tui" / "recordings" / "proxied_peer.mcpx.jsonl"
pytestmark = pytest.mark.timeout(60)


def ask(process: subprocess.Popen[bytes], obj: dict[str, Any]) -> dict[str, Any]:
    """Send one request as the host and read the proxy's answer (the peer answers in order)."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(obj).encode() + b"\n")
    process.stdin.flush()
    return dict(json.loads(process.stdout.readline()))


@pytest.fixture
def proxy() -> Iterator[subprocess.Popen[bytes]]:
    """A live proxied session named `pilot`, opened by its host (initialize, tools/list)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpx", "proxy", "--name", "pilot", sys.executable, str(PEER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # MCPX_DATA_DIR: the test's own (tests/conftest.py), inherited
    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pilot-host"}}
        ask(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        ask(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()


async def test_attach_follows_a_live_proxied_session(proxy: subprocess.Popen[bytes]) -> None:
    entry = find_session("pilot")
    assert entry is not None and entry.live
    app = make_attach_app(entry, settings=InspectSettings())
    async with app.run_test(size=(120, 40)) as pilot:
        methods = lambda: [e.method for e in app.traffic if e.direction == "in" and e.method]  # noqa: E731
        await wait_for(pilot, lambda: "tools/list" in methods())
        assert app.read_only and app.loading  # live: still being read
        assert "pilot (live)" in app.sub_title
        label = app.query_one(LiveLabel)
        assert label.live and "● LIVE  pilot: relayed by mcpx proxy" in str(label.render())
        await wait_for(pilot, lambda: app.catalog.tools is not None)
        assert app.server_info is not None and app.server_info.server_info["name"] == "proxy-peer"
        assert app.server_info.client_info["name"] == "pilot-host"
        assert [tool.name for tool in app.catalog.tools or ()] == ["echo", "env", "garble", "die"]

        # the host goes on after the screen opened: the view grows with it
        answer = ask(proxy, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                             "params": {"name": "echo", "arguments": {"text": "seen live"}}})  # fmt: skip
        assert answer["result"]["content"][0]["text"] == "seen live"
        await wait_for(pilot, lambda: "tools/call" in methods())
        assert app.moment == len(app.traffic) - 1  # following the newest event

        assert proxy.stdin is not None
        proxy.stdin.close()
        assert proxy.wait(timeout=20) == 0
        await wait_for(pilot, lambda: not app.loading)  # the session ended: the recording is whole
        assert any(e.facts.get("event") == "exited" for e in app.traffic)
        assert isinstance(app, ReplayApp)
        frames = len(app.traffic)
        await wait_for(pilot, lambda: not label.live)
        assert "■ ENDED (exit 0)" in str(label.render())

        # Check judges what was seen, nothing sent. This host slipped twice: its clientInfo has no
        # version, and it never sent notifications/initialized
        # C shows the Check tab (it once went into the browser's filter, which had the focus when the app
        # opened before the server's answer to initialize: tests/tui/replay, the disabled item lists)
        assert not isinstance(app.focused, Input)
        await pilot.press("C")
        await wait_for(pilot, lambda: app.query_one("#side", TabbedContent).active == "check-tab")
        assert app.query_one("#side", TabbedContent).active == "check-tab"
        await wait_for(pilot, lambda: bool(app.query(CheckView)))  # the tab mounts its view lazily
        view = app.query_one(CheckView)
        await wait_for(pilot, lambda: view.report is not None)
        assert view.report is not None
        results = {r.id: r for r in view.report.results}
        assert results["recording.pairing"].status == "pass" and results["recording.ids"].status == "pass"
        assert (
            results["recording.schema"].status == "fail" and "version" in results["recording.schema"].detail
        )
        assert results["recording.lifecycle"].status == "fail"
        assert len(app.traffic) == frames  # judged, not sent


def _ended_entry() -> SessionEntry:
    return SessionEntry(
        id="20261125-001441-claude",
        name="claude",
        recording=Path(os.path.relpath(PROXIED)),  # the sub-title shows it: the same from the repository
        pid=0,
        started=0.0,
        target="python proxy_peer.py",
        ended=1.0,
        exit_code=0,
    )


def test_attach_screen_on_an_ended_session(snap_compare: Any) -> None:
    """An ended session opens as the recording it is: the host's frames, the server's, what was flagged;
    its Check tab judges what was seen (the committed session's malformed frames and unanswered request
    fail their rules, each finding pointing at its events). One screen for both: a Textual start less."""
    app = make_attach_app(_ended_entry(), settings=InspectSettings())
    app.animation_level = "none"

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: not app.loading and bool(app.query("#traffic")))
        length = len(app.traffic)
        await wait_for(pilot, lambda: all(view._scanned == length for view in app.panel.views()))
        await wait_for(pilot, lambda: not app.panel.counts_pending)
        # C shows the Check tab (it once went into the browser's filter, which had the focus when the app
        # opened before the server's answer to initialize: tests/tui/replay, the disabled item lists)
        assert not isinstance(app.focused, Input)
        await pilot.press("C")
        await wait_for(pilot, lambda: app.query_one("#side", TabbedContent).active == "check-tab")
        assert app.query_one("#side", TabbedContent).active == "check-tab"
        await wait_for(pilot, lambda: bool(app.query(CheckView)))  # the tab mounts its view lazily
        view = app.query_one(CheckView)
        await wait_for(pilot, lambda: view.report is not None)
        statuses = {r.id: r.status for r in view.report.results}  # type: ignore[union-attr]
        assert statuses["recording.schema"] == "fail"  # the not-JSON and invalid UTF-8 frames
        await pilot.press("t")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def _rows() -> list[tuple[SessionEntry, dict[str, Any]]]:
    """Two sessions as `mcpx sessions` summarises them (fixed: the snapshot must not depend on the clock)."""
    rows = []
    for ident, name, live, host, frames, problems in (
        ("20261125-021500-cursor", "cursor", True, "cursor-vscode 1.4", 12, 0),
        ("20261125-001441-claude", "claude", False, "claude-ai 0.1.0", 17, 5),
    ):
        entry = SessionEntry(ident, name, PROXIED, pid=0, started=0.0, target="python proxy_peer.py")
        row = {"name": name, "live": live, "host": host, "server": "proxy-peer 1.0", "target": "",
               "era": "legacy", "started": f"2026-11-25 {ident[9:11]}:{ident[11:13]}:{ident[13:15]}",
               "frames": frames, "problems": problems}  # fmt: skip
        rows.append((entry, row))
    return rows


async def test_enter_in_the_sessions_list_opens_the_highlighted_session() -> None:
    app = SessionsApp(_rows, "/data/mcpx/sessions")
    async with app.run_test(size=(120, 20)) as pilot:
        await pilot.press("down", "enter")
    assert app.return_value is not None and app.return_value.name == "claude"
    again = SessionsApp(_rows, "/data/mcpx/sessions", highlight="20261125-001441-claude")
    async with again.run_test(size=(120, 20)) as pilot:  # back from the attach view: where the user was
        await pilot.press("q")
        table = again.query_one("#sessions-table")
        assert table.cursor_row == 1  # type: ignore[attr-defined]
    assert again.return_value is None


def test_sessions_list_screen(snap_compare: Any) -> None:
    assert snap_compare(SessionsApp(_rows, "/data/mcpx/sessions"), terminal_size=(120, 12))
