"""`HeaderBar`: who the server is, how we talk to it, and how the connection is doing — one line."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from mcpx.tui.session_state import SessionState
from mcpx.tui.widgets.event_list_view import printable
from mcpx.tui.widgets.formats import format_latency


class HeaderBar(Widget):
    """Server name, version and title · era and protocol version · transport · state · in flight ·
    questions from the server waiting for the user."""

    DEFAULT_CSS = """
    HeaderBar {
        height: 1;
        background: $panel;
        color: $foreground;
    }
    """

    session: reactive[SessionState] = reactive(SessionState, layout=False)
    """The connection as the app last saw it."""
    in_flight: reactive[int] = reactive(0)
    """Requests sent and not answered yet."""
    read_only: reactive[bool] = reactive(False)
    """A recording is shown (`mcpx replay`): marked as such, with no requests in flight."""
    waiting: reactive[int] = reactive(0)
    """Questions from the server (elicitation, sampling) waiting for the user."""

    def on_mount(self) -> None:
        self._update_classes()

    def watch_session(self, session: SessionState) -> None:
        self._update_classes()

    def _update_classes(self) -> None:
        wanted = "-dead" if self.session.is_dead else f"-{self.session.state}"
        stale = [name for name in self.classes if name.startswith("-") and name != wanted]
        if stale:
            self.remove_class(*stale)
        self.add_class(wanted)

    def render(self) -> Content:
        s = self.session
        sep = (" │ ", "$foreground-muted")
        parts: list[tuple[str, str] | str] = [(" mcpx ", "bold $primary reverse"), " "]
        if self.read_only:
            parts += [(" RECORDING — read-only ", "bold $warning reverse"), " "]
        if self.waiting:  # first, so a narrow terminal never cuts it off
            parts += [(f" {self.waiting} waiting for you ", "bold $warning reverse"), " "]
        if s.server_name:
            parts.append((printable(s.server_name), "bold"))
            if s.server_version:
                parts.append((f" {printable(s.server_version)}", "$foreground-muted"))
            if s.server_title and s.server_title != s.server_name:
                parts.append(f" “{printable(s.server_title)}”")
        else:
            parts.append((printable(s.target) or "no server", "bold"))
        if s.protocol_version:
            parts += [sep, f"{s.era or ''} {s.protocol_version}".strip()]
        if s.transport:
            parts += [sep, s.transport]
        if s.signed_in and not s.is_dead:
            parts += [sep, (printable(s.signed_in), "$text-success")]
        parts.append(sep)
        colour = {
            "connected": "$text-success",
            "connecting": "$text-warning",
            "closing": "$text-warning",
        }.get(s.state, "$text-error" if s.is_dead else "$foreground-muted")
        parts.append((f"● {s.state_label}", colour))
        if s.connect_seconds is not None and s.state == "connected":
            parts.append((f" in {format_latency(s.connect_seconds)}", "$foreground-muted"))
        if s.attempt > 1:
            parts.append((f" (#{s.attempt})", "$foreground-muted"))
        if self.read_only:
            parts.append((" as recorded", "$foreground-muted"))
            return Content.assemble(*parts)
        parts.append(sep)
        parts.append(
            (f"{self.in_flight} in flight", "$text-warning" if self.in_flight else "$foreground-muted")
        )
        return Content.assemble(*parts)
