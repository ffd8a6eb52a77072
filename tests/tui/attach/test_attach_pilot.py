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

from mcpx.proxy.sessions import SessionEntry, find_session
from mcpx.tui.attach.attach_app import make_attach_app
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


def test_attach_screen_on_an_ended_session(snap_compare: Any) -> None:
    """An ended session opens as the recording it is: the host's frames, the server's, what was flagged."""
    entry = SessionEntry(
        id="20261125-001441-claude",
        name="claude",
        recording=Path(os.path.relpath(PROXIED)),  # the sub-title shows it: the same from the repository
        pid=0,
        started=0.0,
        target="python proxy_peer.py",
        ended=1.0,
    )
    app = make_attach_app(entry, settings=InspectSettings())
    app.animation_level = "none"

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for(pilot, lambda: not app.loading and bool(app.query("#traffic")))
        length = len(app.traffic)
        await wait_for(pilot, lambda: all(view._scanned == length for view in app.panel.views()))
        await wait_for(pilot, lambda: not app.panel.counts_pending)
        await pilot.press("t")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)
