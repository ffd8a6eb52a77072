"""SVG snapshots of tool results (a structured result that breaks its outputSchema, an image result),
from scripted sessions on a virtual clock. Update with `--snapshot-update` and look at the report.
"""

from __future__ import annotations

from typing import Any

from scripted import CONDITIONS_TOOL, MAP_TOOL, TOOLS, Script, result_calls, scripted_app, settle, show_call
from textual.pilot import Pilot

SIZE = (120, 50)


def results_script() -> Script:
    return Script(tools=[*TOOLS, CONDITIONS_TOOL, MAP_TOOL], calls=result_calls())


def test_structured_result_mismatch(snap_compare: Any) -> None:
    session = scripted_app(results_script())

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        await show_call(pilot, session.app, "get_conditions", {"city": "Oslo"}, focus="#result-mismatches")

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)


def test_image_result(snap_compare: Any) -> None:
    session = scripted_app(results_script())

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, session.app)
        await show_call(pilot, session.app, "render_map", {"city": "Oslo"}, focus=".-image")

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)
