"""`NotificationView`: the notifications of the session (both ways), one per row with its params."""

from __future__ import annotations

from typing import ClassVar

import orjson
from rich.segment import Segment

from mcpx.tui.widgets.event_list_view import EventListView, cell, printable, session_start
from mcpx.tui.widgets.glyphs import ARROWS
from mcpx.wire.jsonrpc import Notification
from mcpx.wire.traffic import TrafficEvent


def compact(value: object, limit: int = 400) -> str:
    """One line of JSON for a row (never more than `limit` characters are rendered)."""
    if isinstance(value, str):
        return value[:limit]
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text[:limit]


class NotificationView(EventListView):
    """Every notification, sent or received: time, direction, method, params."""

    BINDING_GROUP_TITLE = "Notifications"
    HELP: ClassVar[str] = """\
Every notification of the session: progress, list changes, resource updates, cancellations, log messages
(also in *Server log*). **Enter** opens one; **f** follows the newest.
"""

    def accepts(self, event: TrafficEvent) -> bool:
        return type(event.message) is Notification

    def render_row(self, event: TrafficEvent, width: int) -> list[Segment]:
        message = event.message
        assert isinstance(message, Notification)
        elapsed = event.mono - session_start(self.traffic)
        method_w = max(20, min(40, width // 3))
        arrow = ARROWS["in" if event.direction == "in" else "out"]
        return [
            Segment(f"{elapsed:8.3f} ", self.style("dim")),
            Segment(arrow + " ", self.style(event.direction)),
            Segment(cell(printable(message.method), method_w) + " ", self.style(event.direction)),
            Segment(
                printable(compact(message.params) if message.params is not None else ""), self.style("dim")
            ),
        ]
