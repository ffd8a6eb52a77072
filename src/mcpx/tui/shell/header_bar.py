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
        """The line, dropping the least needed parts first when the terminal is narrow: the connection
        state and the questions waiting always show (at 100 columns the state was cut off)."""
        s = self.session
        sep: tuple[str, str] = (" │ ", "$foreground-muted")
        Part = tuple[str, str] | str
        # (drop order: higher goes first, 0 never, parts)
        groups: list[tuple[int, list[Part]]] = [(0, [(" mcpx ", "bold $primary reverse"), " "])]
        if self.read_only:
            groups.append((0, [(" RECORDING — read-only ", "bold $warning reverse"), " "]))
        if self.waiting:
            groups.append((0, [(f" {self.waiting} waiting for you ", "bold $warning reverse"), " "]))
        if s.server_name:
            groups.append((0, [(printable(s.server_name), "bold")]))
            if s.server_version:
                groups.append((4, [(f" {printable(s.server_version)}", "$foreground-muted")]))
            if s.server_title and s.server_title != s.server_name:
                groups.append((5, [f" “{printable(s.server_title)}”"]))
        else:
            groups.append((0, [(printable(s.target) or "no server", "bold")]))
        if s.protocol_version:
            groups.append((3, [sep, f"{s.era or ''} {s.protocol_version}".strip()]))
        if s.transport:
            groups.append((2, [sep, s.transport]))
        if s.signed_in and not s.is_dead:
            groups.append((1, [sep, (printable(s.signed_in), "$text-success")]))
        colour = {
            "connected": "$text-success",
            "connecting": "$text-warning",
            "closing": "$text-warning",
        }.get(s.state, "$text-error" if s.is_dead else "$foreground-muted")
        groups.append((0, [sep, (f"● {s.state_label}", colour)]))
        if s.connect_seconds is not None and s.state == "connected":
            groups.append((6, [(f" in {format_latency(s.connect_seconds)}", "$foreground-muted")]))
        if s.attempt > 1 and not self.read_only:  # a replay shows the recording's connection, not ours
            groups.append((0, [(f" (#{s.attempt})", "$foreground-muted")]))
        if self.read_only:
            groups.append((0, [(" as recorded", "$foreground-muted")]))
        else:
            in_flight = (
                f"{self.in_flight} in flight",
                "$text-warning" if self.in_flight else "$foreground-muted",
            )
            groups.append((0 if self.in_flight else 4, [sep, in_flight]))
        width = self.size.width or 10_000
        line = Content()
        for level in (7, 6, 5, 4, 3, 2, 1):
            line = Content.assemble(*(p for drop, parts in groups if drop < level for p in parts))
            if line.cell_length <= width:
                break
        return line
