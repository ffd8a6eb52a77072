"""The Tasks tab and calling as a task from the form, on the scripted server (tasks of 2025-11-25): a tool
whose taskSupport is required is called as a task from its form (tasks/result gives the result the panel
shows), an optional one only with the "as a task" switch; the tab lists the session's tasks, cancels a
running one (the waiting tasks/result ends with the server's error) and fetches tasks/list."""

from __future__ import annotations

from typing import Any

import pytest
from call_scenes import open_tool
from scripted import TOOLS, Script, quiet, scripted_app, settle, wait_for
from textual.pilot import Pilot
from textual.widgets import Checkbox, OptionList, TabbedContent

from mcpx.protocol.tasks import TaskState
from mcpx.tui.catalogue.tool_call import ToolCallPanel
from mcpx.tui.tasks.tasks_view import TasksView, _server_elapsed
from mcpx.tui.traffic.traffic_view import TrafficView

TOPIC = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}
RESEARCH = {"name": "research", "description": "A long research job.", "inputSchema": TOPIC,
            "execution": {"taskSupport": "required"}}  # fmt: skip
DEEP_SCAN = {"name": "deep_scan", "description": "Scans until stopped.", "inputSchema": TOPIC,
             "execution": {"taskSupport": "optional"}}  # fmt: skip
REPORT = {"content": [{"type": "text", "text": "# Research report: tides"}]}
SIZE = (130, 40)


def task_script(poll_ms: int = 200) -> Script:
    return Script(
        task_poll_ms=poll_ms,
        tools=[*TOOLS, RESEARCH, DEEP_SCAN],
        task_results={"research": REPORT, "deep_scan": {"content": []}},
        held_tasks={"deep_scan"},
        calls={"deep_scan": {"content": [{"type": "text", "text": "scanned at once"}]}},
    )


async def call_research(pilot: Pilot[Any], app: Any) -> ToolCallPanel:
    panel = await open_tool(pilot, app, "research")
    assert "Call as task" in str(panel.query_one("#call-button").label)
    outcome = await panel.call({"topic": "tides"})
    assert outcome == {**REPORT, "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "task-1"}}}
    return panel


async def show_tasks(pilot: Pilot[Any], app: Any) -> TasksView:
    app.query_one("#side", TabbedContent).active = "tasks-tab"
    await wait_for(pilot, lambda: bool(app.query(TasksView)))
    return app.query_one(TasksView)


async def test_required_optional_cancel_and_list() -> None:
    session = scripted_app(task_script())
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await call_research(pilot, app)
        sent = [e for e in app.traffic if e.direction == "out" and e.method in ("tools/call", "tasks/result")]
        assert [e.method for e in sent] == ["tools/call", "tasks/result"]
        assert '"task":{"ttl":300000}' in sent[0].raw

        # optional: a plain call unless the switch is on
        panel = await open_tool(pilot, app, "deep_scan")
        assert await panel.call({"topic": "a"}) == {"content": [{"type": "text", "text": "scanned at once"}]}
        panel.query_one("#call-as-task", Checkbox).value = True
        panel.start_call({"topic": "b"})

        view = await show_tasks(pilot, app)
        listing = view.query_one("#task-list", OptionList)
        await wait_for(pilot, lambda: listing.option_count == 2)
        await wait_for(pilot, lambda: app.connection.client.tasks.known["task-2"].polls >= 1)
        # newest first: the running scan (the highlight stays on what it was on when the list grew)
        assert "deep_scan" in str(listing.get_option_at_index(0).prompt)
        listing.highlighted = 0
        assert "working" in str(listing.get_option_at_index(0).prompt)
        assert "completed" in str(listing.get_option_at_index(1).prompt)
        await check_polls_fold(pilot, app, "task-2")

        view.action_cancel()
        await wait_for(pilot, lambda: not panel.running)
        state = app.connection.client.tasks.known["task-2"]
        assert state.status == "cancelled" and "Task cancelled" in (state.error or "")
        assert "cancelled" in str(listing.get_option_at_index(0).prompt)

        view.action_list()
        await wait_for(
            pilot, lambda: any(e.method == "tasks/list" and e.direction == "in" for e in app.traffic)
        )
        assert set(app.connection.client.tasks.known) == {"task-1", "task-2"}


def test_tasks_tab(snap_compare: Any) -> None:
    session = scripted_app(task_script(poll_ms=60_000))  # no poll before the picture: the count holds still

    async def run_before(pilot: Pilot[Any]) -> None:
        app = session.app
        await settle(pilot, app)
        await call_research(pilot, app)
        view = await show_tasks(pilot, app)
        await wait_for(pilot, lambda: view.query_one("#task-list", OptionList).option_count == 1)
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize(
    ("created", "updated", "seconds"),
    [
        ("2026-11-24T10:00:00Z", "2026-11-24T10:00:01.5Z", 1.5),
        # a Go server's RFC 3339 (2 and 9 digits of a second): Python 3.10's fromisoformat refuses both
        ("2026-11-24T10:00:00.12Z", "2026-11-24T10:00:02.123456789Z", 2.003456),
        ("2026-11-24T10:00:00+00:00", "2026-11-24T10:00:00.250+00:00", 0.25),
        ("yesterday", "2026-11-24T10:00:00Z", None),
    ],
)
def test_the_servers_own_dates_give_the_elapsed_time(
    created: str, updated: str, seconds: float | None
) -> None:
    state = TaskState("t1", "tools/call", "slow", raw={"createdAt": created, "lastUpdatedAt": updated})
    assert _server_elapsed(state) == seconds


def row_text(view: TrafficView, seq: int) -> str:
    return "".join(segment.text for segment in view.render_row(view.traffic[seq], 130))


async def check_polls_fold(pilot: Pilot[Any], app: Any, task_id: str) -> None:
    """The traffic log shows the running task's polls as one row that Enter unfolds; z shows them all."""
    client = app.connection.client
    await wait_for(pilot, lambda: client.tasks.known[task_id].polls >= 2)
    view = app.query_one(TrafficView)
    view.pump()
    group = view.polls.by_key[("out", task_id)]
    log = app.traffic

    def asked(event: Any) -> Any:
        request = event if event.request_seq is None else log[event.request_seq]
        return request.message.params.get("taskId")

    # requests and answers: the log has them all
    polls = [e.seq for e in log if e.method == "tasks/get" and asked(e) == task_id]
    assert group.members == polls and len(polls) >= 4
    rows = set(view.rows)
    assert group.head in rows and not rows & set(polls[1:])
    assert f"▸ tasks/get ×{group.polls}  task {task_id}" in row_text(view, group.head)
    assert "working" in row_text(view, group.head)

    # (actions called as the keys do: each key press waits for a whole repaint, ~0.4 s here)
    assert view.select_seq(group.head)
    view.action_open()  # Enter on the folded row unfolds it and opens nothing
    assert set(polls) <= set(view.rows) and "→ ▾ tasks/get" in row_text(view, group.head)
    await pilot.pause()
    assert len(app.screen_stack) == 1

    view.focus()
    await pilot.press("z")  # grouping off: every poll a row
    assert view.polls.folding is False and set(polls) <= set(view.rows)
    assert "▸" not in row_text(view, group.head)
    view.action_toggle_polls()  # grouping on again: what was unfolded is folded too
    assert view.polls.folding and not set(view.rows) & set(polls[1:])
    view.filter_text = "method:tasks/get"  # looking for polls: each one is shown
    assert set(polls) <= set(view.rows)
    view.filter_text = ""
    assert not set(view.rows) & set(polls[1:])
