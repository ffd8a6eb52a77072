"""`StderrView`: what a stdio server wrote on its stderr, line by line, with the time it arrived."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment

from mcpx.tui.widgets.event_list_view import EventListView, printable, session_start
from mcpx.wire.traffic import TrafficEvent


class StderrView(EventListView):
    """The server's stderr (stdio servers), with process facts (spawned, exited) between the lines."""

    BINDING_GROUP_TITLE = "Stderr"
    HELP: ClassVar[str] = """\
What the server printed on stderr, never mixed into your terminal. Process facts (spawned with its pid,
signals sent, exit code) are shown between the lines.
"""

    def accepts(self, event: TrafficEvent) -> bool:
        return event.channel in ("stderr", "process")

    def render_row(self, event: TrafficEvent, width: int) -> list[Segment]:
        elapsed = event.mono - session_start(self.traffic)
        text_style = self.style("info") if event.channel == "process" else self.rich_style
        prefix = "• " if event.channel == "process" else "  "
        return [
            Segment(f"{elapsed:8.3f} ", self.style("dim")),
            Segment(prefix, self.style("info")),
            Segment(printable(event.raw[: width * 2]), text_style),
        ]
