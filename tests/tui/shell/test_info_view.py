"""The Info view renders while hidden once the connection's info is in, so `i` only shows it."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from scripted import scripted_app, settle, wait_for
from textual.widgets import Markdown, Static

from mcpx.tui.shell import info_view
from mcpx.tui.shell.info_view import InfoView


async def test_the_info_is_rendered_ahead_while_hidden_and_i_shows_it_without_rendering_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(info_view, "RENDER_AHEAD", 0.05)
    renders: list[bool] = []  # whether the view was on screen at each render
    render = InfoView._render_info

    def counting(view: InfoView) -> None:
        renders.append(bool(view.region.area))
        render(view)

    monkeypatch.setattr(InfoView, "_render_info", counting)
    session = scripted_app()
    app = session.app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        view = app.query_one(InfoView)
        await wait_for(pilot, lambda: renders == [False])  # rendered ahead, hidden
        assert not view.region.area
        assert view.query("#instructions").results(Markdown)  # the Markdown is mounted already
        await pilot.press("i")
        await wait_for(pilot, lambda: bool(view.region.area))
        await pilot.pause()
        assert renders == [False]  # shown as rendered: no render on show
        markdown = view.query_one("#instructions", Markdown)
        assert "any city" in markdown.source
        console = Console(width=118, record=True, file=io.StringIO())
        console.print(view.query_one("#info-body", Static).content)
        assert "Server capabilities" in console.export_text()
