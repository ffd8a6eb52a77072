"""`SecretFilter`: the TUI's last line of defence — every line Textual draws passes the session's secret
policy, so a secret the server echoes shows masked wherever it lands (results, header, Info, logs, toasts).

Views still mask what they show from the log; this catches what no view knew to mask. A screen that
shows a value on purpose says so with `reveals_secrets` (the event screen after its reveal key), and the
app leaves the filter out while that screen is on top. The masked line keeps its cell width, so layout
never moves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from mcpx.wire.secret_policy import SecretPolicy

if TYPE_CHECKING:
    from textual.app import App


class SecretFilter(LineFilter):
    """Masks the secrets `policy()` knows in each drawn line (styles kept up to the first change)."""

    def __init__(self, policy: Callable[[], SecretPolicy]) -> None:
        super().__init__()
        self.policy = policy

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        line = "".join(segment.text for segment in segments if not segment.control)
        policy = self.policy()
        masked = policy.fragments(policy.text(line))  # fragments: a secret a wrap cut over two lines
        if masked is line or masked == line:
            return segments
        masked = set_cell_size(masked, cell_len(line))
        out: list[Segment] = []
        position = 0
        for segment in segments:
            if segment.control:
                out.append(segment)
                continue
            chunk = masked[position : position + len(segment.text)]
            position += len(segment.text)
            if chunk:
                out.append(Segment(chunk, segment.style))
        if position < len(masked):
            style = next((s.style for s in reversed(segments) if not s.control), None)
            out.append(Segment(masked[position:], style))
        return out


def masking(app: App[Any], filters: Sequence[LineFilter], mask: SecretFilter) -> list[LineFilter]:
    """An app's line filters with `mask` last, unless the screen on top shows secrets on purpose (the
    event screen after its reveal key): what every mcpx app's `get_line_filters` returns."""
    top = app.screen_stack[-1] if app.screen_stack else None
    if getattr(top, "reveals_secrets", False):
        return list(filters)
    return [*filters, mask]
