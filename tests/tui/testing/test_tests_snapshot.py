"""SVG snapshot of the Run tests screen: a pass, a failure with the fields that differ, a test that could not
run and a skipped one (canned results on a virtual clock; the Pilot story runs a real collection)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripted import quiet, scripted_app, settle, wait_for
from textual.pilot import Pilot

from mcpx.collection.expect import Difference
from mcpx.collection.model import TestCase
from mcpx.collection.runner import TestResult
from mcpx.tui.testing.tests_screen import TestsScreen


def results() -> list[TestResult]:
    def case(name: str) -> TestCase:
        return TestCase(name, "tools/call", {"name": "add"})

    return [
        TestResult(case("adds two numbers"), "passed", elapsed_ms=3.2),
        TestResult(
            case("adds floats"),
            "failed",
            [Difference("text", "5", "5.0"), Difference("json $.structuredContent.sum", 5, 5.0)],
            elapsed_ms=4.0,
        ),
        TestResult(case("asks for a name"), "error", message="the server went away: exited with code 1"),
        TestResult(case("slow one"), "skipped", message="flaky on CI"),
    ]


def test_tests_screen(snap_compare: Any) -> None:
    session = scripted_app()

    async def canned() -> list[TestResult]:
        return results()

    async def run_before(pilot: Pilot[Any]) -> None:
        app = session.app
        await settle(pilot, app)
        screen = TestsScreen(Path("calc.mcpx.yaml"), canned, clock=lambda: 0.0)
        await app.push_screen(screen)
        await wait_for(pilot, lambda: screen.runs == 1)
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=(120, 40), run_before=run_before)
