"""The edit–test loop of the inspector in Pilot, on a real SDK server in a temporary folder: a call saved as a
test (ctrl+t: the collection beside the script is created, and loads), the collection run from the palette
(pass/fail per test), then `--watch`: a broken edit told on the watch bar, the fix restarting the server
through the app's own reconnect, the catalogue diff in a notification and on the bar, the collection run
again (now failing, and said so), and no server left when the app quits. One story, one server start per
step: an SDK start costs a second of CPU."""

from __future__ import annotations

import os
from pathlib import Path

from scripted import wait_for
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.widgets import TabbedContent

from mcpx.collection.model import load_collection
from mcpx.target import resolve_target
from mcpx.tui.history.call_history import CallHistory
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import make_app
from mcpx.tui.shell.commands import InspectCommands
from mcpx.tui.testing.tests_screen import TestsScreen
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


async def test_save_as_test_run_tests_and_watch_restarts_on_edits(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    spec = resolve_target(str(script))
    app = make_app(spec, settings=InspectSettings(timeout=30.0))
    app.watch_plan = WatchPlan.for_spec(spec, quiet_ms=50)
    pids: list[int] = []
    told: list[Notification] = []  # every notification the app showed, as it was posted

    def hear(message: Message) -> None:
        if isinstance(message, Notify):
            told.append(message.notification)

    async with app.run_test(size=(120, 40), message_hook=hear) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        bar = app.query_one(WatchBar)
        await wait_for(pilot, lambda: bar.last is not None)
        assert "watching" in str(bar.render())
        assert app.client is not None
        pids.append(app.client.session.describe()["pid"])

        # Save as test: the call's answer becomes the expectation, in server.mcpx.yaml beside the script
        history = app.query_one(CallHistory)
        app.view.request_tool_call("add", {"a": 2, "b": 3}, run=True)
        await wait_for(pilot, lambda: len(history.calls) == 1, CONNECT)
        await pilot.press("ctrl+t")
        collection = tmp_path / "server.mcpx.yaml"
        await wait_for(pilot, collection.exists)
        loaded = load_collection(collection)
        assert loaded.server is not None and loaded.server.target == "./server.py"
        assert [(t.name, t.params, t.expect) for t in loaded.tests] == [
            ('add {"a":2,"b":3}', {"name": "add", "arguments": {"a": 2, "b": 3}},
             {"isError": False, "structuredContent": {"result": "5"}}),
        ]  # fmt: skip
        await wait_for(pilot, lambda: any(n.title == "Saved as test" for n in told))
        assert str(collection) in [n for n in told if n.title == "Saved as test"][-1].message
        # the file written is a change of a collection, not of the server's source: no restart
        await wait_for(pilot, lambda: "tests: 1 passed" in str(bar.render()), CONNECT)
        assert app.session.attempt == 1

        # from History: the highlighted call, under a name of its own
        app.query_one("#side", TabbedContent).active = "history-tab"
        await pilot.pause()
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: len(load_collection(collection).tests) == 2)
        assert load_collection(collection).tests[1].name == 'add {"a":2,"b":3} (2)'
        await wait_for(pilot, lambda: "tests: 2 passed" in str(bar.render()), CONNECT)
        runs = bar.tests_runs

        # Run tests from the palette: pass/fail per test, on the app's own connection
        # (the palette's entry runs this action; typing into the palette costs a search per key)
        palette = {name: run for name, run, _ in InspectCommands(app.screen).commands()}
        assert palette["Save call as test"] == app.view.action_save_as_test
        palette["Run tests"]()
        await wait_for(pilot, lambda: isinstance(app.screen, TestsScreen) and app.screen.runs == 1, CONNECT)
        screen = app.screen
        assert isinstance(screen, TestsScreen)
        assert [r.status for r in screen.results] == ["passed", "passed"]
        assert "2 passed" in str(screen.query_one("#tests-status").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TestsScreen))

        script.write_text(SERVER.replace("# more tools", "syntax error("))
        await wait_for(pilot, lambda: bar.has_class("-failed"), CONNECT)
        assert app.session.attempt == 2 and app.session.state == "exited"
        assert "did not come back" in str(bar.render())

        script.write_text(SERVER.replace("b: int", "b: float").replace("# more tools", MUL))
        await wait_for(pilot, lambda: bar.restarts == 1, CONNECT)
        assert app.session.attempt == 3 and app.session.state == "connected"
        assert [tool.name for tool in app.catalog.tools or ()] == ["add", "mul"]
        assert "tools: +1 ~1" in str(bar.render()) and bar.has_class("-changed")
        await wait_for(pilot, lambda: any(n.title.startswith("Restarted") for n in told))
        restarted = [n for n in told if n.title.startswith("Restarted")][-1]
        assert restarted.title == "Restarted: tools: +1 ~1"
        assert '$.inputSchema.properties.b.type: "integer" → "number"' in restarted.message
        changes = [e.raw for e in app.traffic if e.raw.startswith("watch: ")]
        assert changes == ["watch: server.py changed", "watch: server.py changed"]
        # the collection again, on the new server: add(2, 3.0) answers "5.0" now
        await wait_for(pilot, lambda: bar.tests_runs == runs + 1, CONNECT)
        assert "tests: 2 failed" in str(bar.render()) and bar.has_class("-failed")
        await wait_for(pilot, lambda: any(n.title == "2 tests failing" for n in told))
        assert app.client is not None
        pids.append(app.client.session.describe()["pid"])

        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, CONNECT)
    assert not any(group_alive(pid) for pid in pids)
