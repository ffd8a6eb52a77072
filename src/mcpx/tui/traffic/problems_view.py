"""`ProblemsView`: every event that carries a protocol diagnostic, with the diagnostics."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import ClassVar

from rich.segment import Segment

from mcpx.tui.widgets.event_list_view import EventListView, cell, printable, session_start
from mcpx.tui.widgets.glyphs import ARROWS
from mcpx.wire.traffic import TrafficEvent


class ProblemsView(EventListView):
    """Malformed frames, unknown ids, schema violations, spec deviations: what went wrong, where."""

    BINDING_GROUP_TITLE = "Problems"
    HELP: ClassVar[str] = """\
Every protocol diagnostic of the session: malformed frames, invalid UTF-8, responses to unknown ids,
results that do not match the schema, spec deviations. **Enter** opens the event that carries it.
"""

    _unsubscribe: Callable[[], None] | None = None

    def accepts(self, event: TrafficEvent) -> bool:
        return bool(event.flags)

    def on_mount(self) -> None:
        # the log says when an event it already holds is flagged (a late answer, a schema problem found
        # when a list was read): the view hears it from the log, the one truth, and nothing polls
        self._unsubscribe = self.traffic.subscribe_flags(self._flagged)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _flagged(self, event: TrafficEvent, problem: str) -> None:
        self.add(event)

    def add(self, event: TrafficEvent) -> None:
        """Show an event that was flagged after the view first saw it (or show its new flag)."""
        if event.seq < self._origin or event.seq >= self._scanned:
            return  # not seen yet: the pump will take it with its flags
        index = bisect_left(self.rows, event.seq)
        if index == len(self.rows) or self.rows[index] != event.seq:
            self.rows.insert(index, event.seq)
        self.rows_changed()  # its row key (the number of flags) changed: it is drawn again

    def row_key(self, event: TrafficEvent) -> object:
        return len(event.flags)

    def render_row(self, event: TrafficEvent, width: int) -> list[Segment]:
        elapsed = event.mono - session_start(self.traffic)
        arrow = ARROWS[event.direction]
        what = event.method or event.kind
        return [
            Segment(f"{elapsed:8.3f} ", self.style("dim")),
            Segment(arrow + " ", self.style(event.direction)),
            Segment(cell(printable(what), 24) + " ", self.style("dim")),
            Segment(printable(" · ".join(event.flags)), self.style("warning")),
        ]
