"""`InfoView`: the server's instructions, both sides' capabilities, the opening exchange, the process."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from mcpx.tui.catalogue.detail_text import pretty_json
from mcpx.tui.session_state import ServerInfo
from mcpx.tui.widgets.event_list_view import foreground, printable
from mcpx.tui.widgets.glyphs import ARROWS

EXCHANGE_PREVIEW = 20_000
#: seconds after the info changes that it is rendered while hidden: rendered on `i` instead, the first
#: press ran three more reflows of the whole screen (the body's text, the Markdown mounted, its size):
#: 250-320 ms of CPU on the project's VM
RENDER_AHEAD = 1.2


class InfoView(VerticalScroll, can_focus=True):
    """Everything the connection established, for reading (nothing here sends anything)."""

    HELP: ClassVar[str] = """\
The server's instructions (rendered Markdown), its capabilities and ours, the frames of the handshake
exactly as they crossed the wire, and for a stdio server its command line, pid and working directory.
"""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"info-view--heading"}
    DEFAULT_CSS = """
    InfoView > .info-view--heading { color: $text-accent; text-style: bold; }
    """

    info: reactive[ServerInfo | None] = reactive(None, init=False)
    """What the last connection established (kept while disconnected)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._stale = False
        self._ahead: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Instructions", style="bold"), classes="info-heading")
        yield Static("not connected yet", id="instructions-pending")
        yield Static("", id="info-body")

    def watch_info(self) -> None:
        # rendered at once when shown; hidden, a little later, when the app is likely idle (Markdown is not
        # cheap, and a replay changes the info at every step it crosses a connection)
        self._stale = True
        if self.region.area:
            self._render_info()
        elif self._ahead is None:
            self._ahead = self.set_timer(RENDER_AHEAD, self._render_ahead, name="info-ahead")

    def _render_ahead(self) -> None:
        self._ahead = None
        if self._stale and self.app.is_running:
            self._render_info()

    def on_show(self) -> None:
        if self._stale:
            self._render_info()

    def _render_info(self) -> None:
        from textual.widgets import Markdown  # loaded on first use: it pulls in a highlighter

        self._stale = False
        info = self.info
        text = (
            "*not connected yet*"
            if info is None
            else info.instructions or "*The server gave no instructions.*"
        )
        markdowns = self.query("#instructions").results(Markdown)
        markdown = next(markdowns, None)
        if markdown is None:
            self.query("#instructions-pending").remove()
            self.mount(Markdown(text, id="instructions"), after=0)
        else:
            markdown.update(text)
        body = self.query_one("#info-body", Static)
        body.update(Group(*self._sections(info)) if info is not None else "")

    def _sections(self, info: ServerInfo) -> list[RenderableType]:
        style = foreground(self, "info-view--heading")

        def heading(title: str) -> Text:
            return Text(f"\n{title}", style=style)

        sections: list[RenderableType] = []
        if info.notes:
            sections.append(heading("Notes"))
            sections.append(Text("\n".join(f"• {n}" for n in info.notes)))
        if info.transport:
            sections.append(heading("Connection"))
            grid = Table.grid(padding=(0, 2))
            grid.add_column(style="dim")
            grid.add_column()
            for key, value in info.transport.items():
                if value is not None:
                    grid.add_row(key, printable(str(value)))
            sections.append(grid)
        sections.append(heading("Server"))
        sections.append(pretty_json(info.server_info))
        sections.append(heading("Server capabilities"))
        sections.append(pretty_json(info.server_capabilities))
        sections.append(heading("Client (mcpx)"))
        sections.append(pretty_json(info.client_info))
        sections.append(heading("Client capabilities"))
        sections.append(pretty_json(info.client_capabilities))
        if info.exchange:
            sections.append(heading("Opening exchange"))
            for direction, method, raw in info.exchange:
                arrow = ARROWS["out" if direction == "out" else "in"]
                sections.append(Text(f"{arrow} {method}", style="bold"))
                text = raw if len(raw) <= EXCHANGE_PREVIEW else raw[:EXCHANGE_PREVIEW] + "…"
                sections.append(Text(printable(text), style="dim"))
        return sections
