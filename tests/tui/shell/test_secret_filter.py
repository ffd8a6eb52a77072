"""SecretFilter, the TUI's line filter: masks what the policy knows, keeps the line's width and styles."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.color import Color

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
