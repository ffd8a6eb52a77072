"""`mcpx sessions` on a terminal: the proxied sessions in a table; Enter opens the highlighted one.

The table is what `mcpx sessions` prints (live or ended, name, host, server, era, start, frames,
problems), newest first. Enter ends this app with the chosen session, which the CLI then opens in the
attach view (as `mcpx inspect --attach` does) and shows the list again when that screen quits; `r`
reads the sessions folder again, `q` quits. Piped, or with `--format`, `mcpx sessions` prints instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Static

from mcpx.proxy.sessions import SessionEntry
from mcpx.tui.shell.animator import install as install_animator
from mcpx.wire.controls import escape_controls

COLUMNS = ("", "NAME", "HOST", "SERVER", "ERA", "STARTED", "FRAMES", "PROBLEMS")
#: the sessions and what `mcpx sessions` says of each (`proxy.sessions.list_sessions` and `summarize`)
Lister = Callable[[], list[tuple[SessionEntry, dict[str, Any]]]]


class SessionsApp(App[SessionEntry | None]):
    """The proxied sessions; Enter returns the highlighted one."""

    TITLE = "mcpx sessions"
    CSS = """
    #sessions-folder { height: 1; padding: 0 1; color: $text-muted; }
    #sessions-table { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="sessions-open", tooltip="Watch the highlighted session"),
        Binding("r", "reload", "Reload", id="sessions-reload", tooltip="Read the sessions folder again"),
        Binding("q", "quit", "Quit", id="sessions-quit", tooltip="Quit"),
    ]

    def __init__(self, lister: Lister, folder: str, *, highlight: str | None = None) -> None:
        super().__init__()
        install_animator(self)  # an animation asked for while it quits ends at once (animator.py)
        self._lister = lister
        self._folder = folder
        self._rows: list[SessionEntry] = []
        self._highlight = highlight

    def compose(self) -> ComposeResult:
        yield Static("", id="sessions-folder")
        yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        self.action_reload()
        table.focus()

    def action_reload(self) -> None:
        table = self.query_one(DataTable)
        chosen = self._highlight or (self._rows[table.cursor_row].id if self._rows else None)
        table.clear()
        listed = self._lister()
        self._rows = [entry for entry, _ in listed]
        for entry, row in listed:
            state = Text("● live", style="bold green") if row["live"] else Text("ended", style="dim")
            cells = (
                row["name"],
                row["host"] or "-",
                row["server"] or row["target"] or "-",
                row["era"] or "-",
                row["started"],
                str(row["frames"]),
                str(row["problems"]),
            )
            table.add_row(state, *(escape_controls(str(cell)) for cell in cells), key=entry.id)
        count = len(self._rows)
        where = f"{count} session{'s' if count != 1 else ''} in {self._folder}"
        hint = " · enter watches the highlighted one" if count else " · start one with: mcpx proxy TARGET"
        self.query_one("#sessions-folder", Static).update(escape_controls(where) + hint)
        ids = [entry.id for entry in self._rows]
        if chosen in ids:
            table.move_cursor(row=ids.index(chosen))
        self._highlight = None

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if self._rows and 0 <= table.cursor_row < len(self._rows):
            self.exit(self._rows[table.cursor_row])
