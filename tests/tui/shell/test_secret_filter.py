"""SecretFilter, the TUI's line filter: masks what the policy knows, keeps the line's width and styles."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

from mcpx.tui.shell.secret_filter import SecretFilter
from mcpx.wire.secret_policy import SecretPolicy


def test_a_known_secret_is_masked_in_place_and_the_width_kept() -> None:
    policy = SecretPolicy(["sk-live-0123456789"])
    secret_filter = SecretFilter(lambda: policy)
    bold, dim = Style(bold=True), Style(dim=True)
    line = [Segment("token: ", bold), Segment("sk-live-0123456789", dim), Segment(" end  ", None)]
    out = secret_filter.apply(line, Color(0, 0, 0))
    text = "".join(s.text for s in out)
    assert "sk-live-0123456789" not in text and "••••6789" in text
    assert cell_len(text) == cell_len("".join(s.text for s in line))
    assert out[0] == Segment("token: ", bold)  # styles before the secret are untouched
    plain = [Segment("nothing to see", bold)]
    assert secret_filter.apply(plain, Color(0, 0, 0)) is plain


async def test_a_secret_wrapped_over_two_screen_lines_is_masked_on_both() -> None:
    """A real widget narrower than the secret: Textual folds it over two lines, neither of which holds it
    whole (checked without the filter); with the filter neither piece is drawn."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    secret = "sk-live-0123456789abcdef"
    policy = SecretPolicy([secret])

    class Narrow(App[None]):
        CSS = "Static { width: 16; }"

        def __init__(self, filtered: bool) -> None:
            super().__init__()
            self.filtered = filtered

        def compose(self) -> ComposeResult:
            yield Static(f"key {secret} end")

        def get_line_filters(self) -> list[LineFilter]:
            extra = [SecretFilter(lambda: policy)] if self.filtered else []
            return [*super().get_line_filters(), *extra]

    def drawn(app: App[None]) -> list[str]:
        strips = app.screen._compositor.render_strips()
        return ["".join(segment.text for segment in strip) for strip in strips]

    for filtered in (False, True):
        app = Narrow(filtered)
        async with app.run_test(size=(40, 6)) as pilot:
            await pilot.pause()
            lines = drawn(app)
        text = "\n".join(lines)
        assert secret not in text  # never whole on one line: the wrap cut it
        if not filtered:
            assert "sk-live" in text and "cdef" in text  # the pieces are there without the filter
        else:
            for piece in ("sk-live", "0123", "cdef"):
                assert piece not in text, piece
            assert "key" in text and "end" in text
