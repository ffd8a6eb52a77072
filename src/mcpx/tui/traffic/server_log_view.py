"""`ServerLogView`: the server's `notifications/message`, coloured by level."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style

from mcpx.tui.traffic.notification_view import compact
from mcpx.tui.widgets.event_list_view import EventListView, cell, printable, session_start
from mcpx.wire.jsonrpc import Notification
from mcpx.wire.traffic import TrafficEvent

LEVEL_CLASS = {
    "debug": "debug",
    "info": "info",
    "notice": "notice",
    "warning": "warning",
    "error": "error",
    "critical": "critical",
    "alert": "critical",
    "emergency": "critical",
}


class ServerLogView(EventListView):
    """Log messages the server sent: time, level, logger, data."""

    BINDING_GROUP_TITLE = "Server log"
    HELP: ClassVar[str] = """\
The server's log messages (`notifications/message`), coloured by level. The level selector above sends
`logging/setLevel` to ask the server for more or fewer of them.
"""
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "server-log--debug",
        "server-log--info",
        "server-log--notice",
        "server-log--warning",
        "server-log--error",
        "server-log--critical",
    }
    DEFAULT_CSS = """
    ServerLogView {
        & > .server-log--debug { color: $text-muted; }
        & > .server-log--info { color: $text-primary; }
        & > .server-log--notice { color: $text-accent; }
        & > .server-log--warning { color: $text-warning; }
        & > .server-log--error { color: $text-error; }
        & > .server-log--critical { color: $error; text-style: bold reverse; }
    }
    """

    def accepts(self, event: TrafficEvent) -> bool:
        message = event.message
        return type(message) is Notification and message.method == "notifications/message"

    def level_style(self, level: str) -> Style:
        return self.component_style(f"server-log--{LEVEL_CLASS.get(level, 'info')}")

    def render_row(self, event: TrafficEvent, width: int) -> list[Segment]:
        message = event.message
        assert isinstance(message, Notification)
        params = message.params if isinstance(message.params, dict) else {}
        level = str(params.get("level", "?"))
        logger = params.get("logger")
        data = params.get("data")
        elapsed = event.mono - session_start(self.traffic)
        style = self.level_style(level)
        return [
            Segment(f"{elapsed:8.3f} ", self.style("dim")),
            Segment(cell(level, 9) + " ", style),
            Segment(cell(printable(str(logger)) if logger is not None else "", 14) + " ", self.style("dim")),
            Segment(printable(compact(data)), style),
        ]
