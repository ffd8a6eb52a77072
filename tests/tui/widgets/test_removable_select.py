"""A Select removed while it mounts (a call panel replaced as it comes in, a quitting app) must not end the
app: Textual's own Select looks its parts up on Mount and raised NoMatches when they were already gone."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Select

from mcpx.tui.widgets.removable_select import RemovableSelect


class Panels(App[None]):
    def compose(self) -> ComposeResult:
        yield Vertical(id="box")


async def churn(kind: type[Select[int]]) -> BaseException | None:
    """Mount panels holding a Select and remove each a few loop turns later (0 to 5), as a form does when
    the user moves through tools quickly; what the app ended on, if anything."""
    app = Panels()
    try:
        async with app.run_test() as pilot:
            box = app.query_one("#box")
            for n in range(60):
                panel = Vertical()
                box.mount(panel)
                panel.mount(kind([("a", 1), ("b", 2)], value=2))
                for _ in range(n % 6):
                    await asyncio.sleep(0)
                panel.remove()
            await pilot.pause(0.2)
    except Exception as exc:  # run_test raises what ended the app
        return exc
    return None


# Textual's own Select, crashing on purpose here, leaves its apps' half-run callbacks to the collector
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
async def test_a_select_removed_while_it_mounts_leaves_the_app_running() -> None:
    assert isinstance(await churn(Select), Exception)  # the race is real: Textual's own Select ends the app
    assert await churn(RemovableSelect) is None


async def test_a_select_mounted_in_peace_shows_its_value() -> None:
    app = Panels()
    async with app.run_test() as pilot:
        select: RemovableSelect[int] = RemovableSelect([("a", 1), ("b", 2)], value=2)
        await app.query_one("#box").mount(select)
        await pilot.pause()
        assert select.value == 2 and "b" in str(select.query_one("SelectCurrent #label").render())
