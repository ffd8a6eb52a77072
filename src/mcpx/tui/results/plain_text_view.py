"""`PlainTextView`: a very long text, scrollable, drawn line by line (Textual's Line API).

Only the visible lines are drawn, so a 10 MB text opens as fast as a short one (Textual's `TextArea` and
`Log` measure or wrap every line first: tens of seconds at 10 MB). Lines longer than `CHUNK` characters
are cut into rows of `CHUNK` (a one-line 10 MB document scrolls down, not 10 million columns right).
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mcpx.tui.widgets.event_list_view import foreground, printable

CHUNK = 2000


def split_rows(text: str, chunk: int = CHUNK) -> list[str]:
    rows: list[str] = []
    for line in text.split("\n"):
        if len(line) <= chunk:
            rows.append(line)
        else:
            rows.extend(line[i : i + chunk] for i in range(0, len(line), chunk))
    return rows


class PlainTextView(ScrollView, can_focus=True):
    """A read-only text of any length; arrow keys, page keys and the mouse scroll it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"plain-text--line-number"}
    DEFAULT_CSS = """
    PlainTextView {
        height: 30;
        background: $surface;
        & > .plain-text--line-number { color: $foreground-muted; }
    }
    """

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows = split_rows(text)
        self.number_width = len(str(len(self.rows))) + 1
        widest = max((len(row) for row in self.rows), default=0)
        self.virtual_size = Size(widest + self.number_width + 1, len(self.rows))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width = self.scrollable_content_region.width
        if index >= len(self.rows):
            return Strip.blank(width)
        number = f"{index + 1:>{self.number_width - 1}} "
        text = printable(self.rows[index][scroll_x : scroll_x + width].expandtabs(4))
        segments = [Segment(number, foreground(self, "plain-text--line-number")), Segment(text)]
        return Strip(segments, cell_len(number) + cell_len(text)).crop_extend(0, width, None)
