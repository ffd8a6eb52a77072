"""Text for a row of the terminal: server text made safe to show, cropped to cells, styled without a
background (the event lists' rows, and every pane that shows what a server sent). `event_list_view`
re-exports these names, where most of the TUI imports them from."""

from __future__ import annotations

from rich.cells import set_cell_size
from rich.style import Style
from textual.widget import Widget

from mcpx.wire.traffic import TrafficLog

#: control characters would reach the terminal: show them as their Unicode control pictures instead
_CONTROL: dict[int, int | str] = {c: 0x2400 + c for c in range(32)}
_CONTROL[127] = 0x2421
_CONTROL_MULTILINE: dict[int, int | str] = {**_CONTROL, 10: 10, 9: "    "}


def printable(text: str, multiline: bool = False) -> str:
    """The text with control characters replaced by visible symbols (␛, ␉, …); `multiline` keeps line
    breaks (and turns tabs into spaces)."""
    return text.translate(_CONTROL_MULTILINE if multiline else _CONTROL)


def foreground(widget: Widget, component: str) -> Style:
    """A component class's colour and text style, without its background (so a cursor shows through).

    Colours are resolved in full (translucent ones blended), which a partial style would not do.
    """
    full = widget.get_component_rich_style(component)
    return Style(
        color=full.color, bold=full.bold, italic=full.italic, underline=full.underline, reverse=full.reverse
    )


def session_start(log: TrafficLog) -> float:
    """Time zero of the session's clock: its first event (the log may be created well before)."""
    return log[0].mono if len(log) else log.started_mono


def cell(text: str, width: int) -> str:
    """Pad or crop `text` to exactly `width` cells (wide characters counted)."""
    if width <= 0:
        return ""
    if len(text) > width * 2:  # don't measure a 10 MB line to show 40 cells of it
        text = text[: width * 2]
    return set_cell_size(text, width)
