"""ResultView on its own: long texts preview first, many blocks wait behind a button, big results are
checked against the outputSchema after the first paint, and nothing a server sends breaks it."""

from __future__ import annotations

from typing import Any

from scripted import wait_for
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Button

from mcpx.tui.results.content_view import PREVIEW_CHARS, ContentBlockView
from mcpx.tui.results.plain_text_view import PlainTextView, split_rows
from mcpx.tui.results.result_view import SHOWN_BLOCKS, ResultView

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="box")


async def show(app: Host, pilot: Any, result: Any, **kwargs: Any) -> ResultView:
    view = ResultView(result, **kwargs)
    await app.query_one("#box").mount(view)
    await pilot.pause()
    return view


async def test_long_text_previews_then_shows_all() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        text = "line\n" * 2_000_000  # 10 MB
        view = await show(app, pilot, {"content": [{"type": "text", "text": text}]})
        button = view.query_one(".show-all", Button)
        assert str(button.label) == "Show all (9.5 MB)"
        button.press()
        await wait_for(pilot, lambda: bool(view.query(PlainTextView)))
        assert len(view.query_one(PlainTextView).rows) == 2_000_001
    assert split_rows("a" * (2 * 2000 + 5)) == ["a" * 2000, "a" * 2000, "aaaaa"]
    assert PREVIEW_CHARS < 100_000


async def test_many_blocks_wait_behind_a_button() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        blocks = [{"type": "text", "text": f"block {i}"} for i in range(SHOWN_BLOCKS + 10)]
        view = await show(app, pilot, {"content": blocks})
        assert len(view.query(ContentBlockView)) == SHOWN_BLOCKS
        view.query_one("#result-more-blocks", Button).press()
        await wait_for(pilot, lambda: len(view.query(ContentBlockView)) == SHOWN_BLOCKS + 10)
        await wait_for(pilot, lambda: not view.query("#result-more-blocks"))


async def test_big_results_are_checked_after_the_first_paint() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        result = {"content": [], "structuredContent": {"n": "one"}}
        view = await show(app, pilot, result, tool={"outputSchema": SCHEMA}, size=5_000_000)
        await wait_for(pilot, lambda: bool(view.query("#result-mismatches")))
        assert view.mismatches == [("$.n", "'one' is not of type 'integer'")]
        assert not view.query("#result-checking")


async def test_odd_results_render() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        for result in (
            "not an object",
            {"content": "nope", "isError": True},
            {"content": [None, {"type": "image", "data": "!!", "mimeType": "image/png"}, {"type": "audio"}]},
            {"content": [{"type": "resource", "resource": {"uri": "x://y", "text": 5, "blob": "AA=="}}]},
            {"content": [], "structuredContent": None},
        ):
            view = await show(app, pilot, result, tool={"outputSchema": {"type": 5}})
            assert view.is_mounted
