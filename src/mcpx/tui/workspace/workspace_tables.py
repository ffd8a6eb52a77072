"""`ServerTable` (a row per workspace server) and `AgentTable` (every tool under the name an agent sees).

Both are `DataTable`s filled from the workspace's entries by `show()`; colours come from component
classes styled with theme variables, so themes apply. The cursor stays on the same row across refreshes.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from mcpx.tui.widgets.event_list_view import printable
from mcpx.workspace.agent_view import AgentTool
from mcpx.workspace.manager import Entry
from mcpx.workspace.summary import count_text, seconds_text, size_text, state_text, version_text

_TONE = {
    "connected": "ok",
    "connected*": "busy",
    "listing": "busy",
    "connecting": "busy",
    "waiting": "muted",
    "closed": "muted",
    "failed": "bad",
    "dropped": "bad",
}
SOURCE_WIDTH = 24


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class _Table(DataTable[Any]):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"tone--ok", "tone--bad", "tone--busy", "tone--muted"}
    DEFAULT_CSS = """
    _Table > .tone--ok { color: $text-success; }
    _Table > .tone--bad { color: $text-error; }
    _Table > .tone--busy { color: $text-warning; }
    _Table > .tone--muted { color: $foreground-muted; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def toned(self, text: str, tone: str) -> Text:
        return Text(text, style=self.get_component_rich_style(f"tone--{tone}", partial=True))

    def refill(self, rows: list[tuple[str, list[Any]]]) -> None:
        """Replace every row (key, cells), keeping the cursor on the row it was on."""
        keep = self.cursor_row
        current = None
        if self.row_count and 0 <= keep < self.row_count:
            current = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        self.clear()
        for key, cells in rows:
            self.add_row(*cells, key=key)
        keys = [key for key, _ in rows]
        if current in keys:
            self.move_cursor(row=keys.index(current), animate=False)
        elif rows:
            self.move_cursor(row=min(keep, len(rows) - 1), animate=False)


class ServerTable(_Table):
    """Every configured server: where it came from, how it is doing, what it offers and costs."""

    HELP = """\
**Servers** — every server of the config files, connected at once (at most 2 stdio servers and 5 remote
ones start at the same time; one that hangs gives its turn up after a while and fails at its timeout).

- **State**: waiting → connecting → connected, or failed (reason and stderr below); *dropped* when a
  connected server went away. `connected*`: a list changed and is being fetched again.
- **Protocol**: the era (legacy handshake or modern) and the revision in use.
- **Tools / Res / Prm**: what it lists (`-` not offered, `!` listing failed).
- **Definitions**: its tool definitions as an agent receives them, in characters and ≈ tokens (chars / 4).

**Enter** opens the server in the inspector (**w** comes back; every connection stays open),
**r** reconnects the selected server, **a** shows the agent's view.
"""
    BINDING_GROUP_TITLE = "Servers"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "reconnect_server",
            "Reconnect",
            id="workspace-reconnect",
            tooltip="Connect this server again",
        ),
    ]
    COLUMNS = (
        "Server",
        "Source",
        "Via",
        "State",
        "Protocol",
        "Tools",
        "Res",
        "Prm",
        "Connect",
        "Definitions",
    )

    def on_mount(self) -> None:
        for label in self.COLUMNS:
            self.add_column(label, key=label.lower())

    def show(self, entries: list[Entry]) -> None:
        rows = []
        for entry in entries:
            state = state_text(entry)
            rows.append(
                (
                    str(entry.index),
                    [
                        printable(entry.name),
                        _clip(entry.configured.host, SOURCE_WIDTH),
                        entry.configured.transport,
                        self.toned(state, _TONE.get(state, "muted")),
                        version_text(entry),
                        Text(count_text(entry, "tools"), justify="right"),
                        Text(count_text(entry, "resources"), justify="right"),
                        Text(count_text(entry, "prompts"), justify="right"),
                        Text(seconds_text(entry.connect_seconds), justify="right"),
                        size_text(entry),
                    ],
                )
            )
        self.refill(rows)

    def selected_index(self) -> int | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return int(key) if key is not None else None

    def action_reconnect_server(self) -> None:
        index = self.selected_index()
        if index is not None:
            self.post_message(self.ReconnectRequested(self, index))

    class ReconnectRequested(Message):
        """The user asked to connect the server at `index` again."""

        def __init__(self, table: ServerTable, index: int) -> None:
            super().__init__()
            self.table = table
            self.index = index

        @property
        def control(self) -> ServerTable:
            return self.table


class AgentTable(_Table):
    """Every tool of every connected server as an agent host names it, with what a host objects to."""

    HELP = """\
**Agent's view** — the tools as an agent host (Claude Code, Claude Desktop, Cursor, …) hands them to the
model: `mcp__{server}__{tool}`. Flagged:

- **collision**: two tools end up with the same name (after characters hosts do not accept become `_`);
- **too-long**: over 64 characters, which model APIs refuse;
- **bad-characters**: characters outside `[A-Za-z0-9_-]`, which hosts replace or refuse;
- **duplicate**: the server lists the name twice; **no-description**; **schema-not-object**: the input
  schema is not `{"type": "object"}`.

A `list_changed` from a server marks its rows dirty; they are fetched again while this screen is shown.
"""
    BINDING_GROUP_TITLE = "Agent's view"
    COLUMNS = ("Tool name the agent sees", "Server", "Flags")

    def on_mount(self) -> None:
        for label in self.COLUMNS:
            self.add_column(label, key=label.split()[0].lower())

    def show(self, tools: list[AgentTool]) -> None:
        rows = []
        for number, tool in enumerate(tools):
            flags = self.toned(" ".join(tool.flags), "bad") if tool.flags else self.toned("ok", "ok")
            name = self.toned(printable(tool.name), "bad" if tool.flags else "ok")
            rows.append((f"{number}:{tool.name}", [name, printable(tool.server), flags]))
        self.refill(rows)
