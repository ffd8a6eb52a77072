"""`mcpx demo`: the inspector opens on the bundled demo server, shows its tools, a call goes through, and
quitting leaves no process behind (issue 7's pilot test)."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from mcpx.cli.demo import demo_spec
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import make_app

pytestmark = pytest.mark.timeout(60)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_mcpx_demo_shows_the_tools_calls_one_and_quits_cleanly() -> None:
    spec = demo_spec()
    assert spec.command is not None and spec.command[1:] == ["-m", "mcpx.demo"]
    app = make_app(spec, settings=InspectSettings())
    async with app.run_test(size=(160, 48)) as pilot:
        deadline = time.monotonic() + 30
        while not (app.catalog.tools and app.catalog.prompts and app.catalog.resources):
            assert time.monotonic() < deadline, f"the catalogue never arrived: {app.session}"
            await pilot.pause(0.05)
        assert app.session.state == "connected" and app.session.server_name == "mcpx-demo"
        names = [tool.name for tool in app.catalog.tools]
        assert len(names) == 20 and names[0] == "echo"
        assert app.client is not None
        pid = app.client.transport.describe()["pid"]
        assert isinstance(pid, int) and _alive(pid)
        # the TUI has no call form yet (issue 4): call through its client, the traffic panel sees it
        result = await app.client.call_tool("echo", {"text": "from the pilot"})
        assert result.content == [{"type": "text", "text": "from the pilot"}]
        assert any(e.method == "tools/call" for e in app.traffic)
        await pilot.press("q")
        deadline = time.monotonic() + 15
        while app.is_running and time.monotonic() < deadline:
            await pilot.pause(0.05)
    for _ in range(100):
        if not _alive(pid):
            break
        await asyncio.sleep(0.05)
    assert not _alive(pid), "the demo server outlived the inspector"
