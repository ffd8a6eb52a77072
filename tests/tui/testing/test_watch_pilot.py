"""`mcpx inspect --watch` in Pilot: a real SDK server in a temporary folder, edited under the app — a broken
edit told on the watch bar, the fix restarting the server through the app's own reconnect, the catalogue
diff in a notification and on the bar, and no server left when the app quits."""

from __future__ import annotations

import os
from pathlib import Path

from scripted import wait_for

from mcpx.target import resolve_target
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import make_app
from mcpx.tui.testing.watch_bar import WatchBar
from mcpx.watch.loop import WatchPlan

CONNECT = 30.0  # seconds a loaded CI machine may need to start an SDK server
SERVER = '''\
from mcp.server import MCPServer

server = MCPServer("watched", version="1.0.0")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)

# more tools

if __name__ == "__main__":
    server.run()
'''
MUL = """
@server.tool()
def mul(a: int, b: int) -> str:
    return str(a * b)
"""


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_inspect_watch_restarts_on_edits_and_tells_the_diff(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    spec = resolve_target(str(script))
    app = make_app(spec, settings=InspectSettings(timeout=30.0))
    app.watch_plan = WatchPlan.for_spec(spec, quiet_ms=50)
    pids: list[int] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        bar = app.query_one(WatchBar)
        await wait_for(pilot, lambda: bar.last is not None)
        assert "watching" in str(bar.render())
        assert app.client is not None
        pids.append(app.client.session.describe()["pid"])

        script.write_text(SERVER.replace("# more tools", "syntax error("))
        await wait_for(pilot, lambda: bar.has_class("-failed"), CONNECT)
        assert app.session.attempt == 2 and app.session.state == "exited"
        assert "did not come back" in str(bar.render())

        script.write_text(SERVER.replace("b: int", "b: float").replace("# more tools", MUL))
        await wait_for(pilot, lambda: bar.restarts == 1, CONNECT)
        assert app.session.attempt == 3 and app.session.state == "connected"
        assert [tool.name for tool in app.catalog.tools or ()] == ["add", "mul"]
        assert "tools: +1 ~1" in str(bar.render()) and bar.has_class("-changed")
        told = [n for n in app._notifications if n.title.startswith("Restarted")]
        assert told and '$.inputSchema.properties.b.type: "integer" → "number"' in told[-1].message
        changes = [e.raw for e in app.traffic if e.raw.startswith("watch: ")]
        assert changes == ["watch: server.py changed", "watch: server.py changed"]
        assert app.client is not None
        pids.append(app.client.session.describe()["pid"])

        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, CONNECT)
    assert not any(group_alive(pid) for pid in pids)
