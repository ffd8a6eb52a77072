"""`WorkspaceScreen`: every configured server at once, and the tools an agent gets from them.

Two tabs: **Servers** (a row per server, the selected one's reason, stderr tail and source below) and
**Agent's view** (every tool as `mcp__{server}__{tool}`, flagged). The screen reads the `Workspace`'s
entries a few times a second when something changed, and fetches lists a `list_changed` made dirty
while it is shown. It talks up with messages: `ServerOpened` (Enter) and `ServerTable.ReconnectRequested`.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane

from mcpx.tui.widgets.event_list_view import printable
from mcpx.tui.workspace.workspace_tables import AgentTable, ServerTable
from mcpx.workspace.manager import Entry, Workspace
from mcpx.workspace.summary import first_line, seconds_text, why_text

#: seconds between two looks at the workspace (only when something changed)
SYNC_EVERY = 0.2


class WorkspaceScreen(Screen[None]):
    """A row per server, and the agent's view of their tools."""

    # its layout (workspace.tcss) is loaded by the app: a screen that is the app's default screen does
    # not load its own CSS_PATH
    BINDING_GROUP_TITLE = "Workspace"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "show_tab('servers-tab')", "Servers", id="workspace-servers", tooltip="Every server"),
        Binding("a", "show_tab('agent-tab')", "Agent's view", id="workspace-agent",
                tooltip="The tools as an agent host names them"),
    ]  # fmt: skip

    class ServerOpened(Message):
        """Enter on a server's row: open it in the inspector."""

        def __init__(self, entry: Entry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, workspace: Workspace, *, name: str | None = None) -> None:
        super().__init__(name=name)
        self.workspace = workspace
        self._stale = True

    def compose(self) -> ComposeResult:
        yield Static(id="workspace-title")
        with TabbedContent(id="workspace-tabs"):
            with TabPane("Servers", id="servers-tab"):
                yield ServerTable(id="servers")
                yield Static(id="server-detail")
            with TabPane("Agent's view", id="agent-tab"):
                yield AgentTable(id="agent-tools")
                yield Static(id="agent-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.workspace.on_change(self._changed)
        self.set_interval(SYNC_EVERY, self._sync, name="workspace-sync")
        self.sync()
        self.query_one(ServerTable).focus()

    def _changed(self, entry: Entry) -> None:
        self._stale = True

    def _sync(self) -> None:
        if self._stale:
            self.sync()
        if self.is_current:
            for entry in self.workspace.entries:
                if entry.dirty and entry.state == "connected":
                    name = f"refresh-{entry.index}"
                    self.run_worker(
                        self.workspace.refresh(entry),
                        name=name,
                        group="workspace-refresh",
                        exit_on_error=False,
                    )

    def sync(self) -> None:
        """Show the workspace as it is now."""
        self._stale = False
        entries = self.workspace.entries
        self.query_one("#workspace-title", Static).update(self._title(entries))
        self.query_one(ServerTable).show(entries)
        tools = self.workspace.agent_tools()
        self.query_one(AgentTable).show(tools)
        self._show_server_detail()
        self._show_agent_detail()
        flagged = sum(1 for t in tools if t.flags)
        label = f"Agent's view {len(tools)}" + (f" · {flagged}!" if flagged else "")
        self.query_one("#workspace-tabs", TabbedContent).get_tab("agent-tab").label = label

    def _title(self, entries: list[Entry]) -> Content:
        counts: dict[str, int] = {}
        for entry in entries:
            counts[entry.state] = counts.get(entry.state, 0) + 1
        parts: list[tuple[str, str] | str] = [(" mcpx ", "bold $primary reverse"), " ", ("workspace", "bold")]
        parts.append((f" │ {len(entries)} servers", "$foreground-muted"))
        tones = {"connected": "$text-success", "failed": "$text-error", "dropped": "$text-error"}
        for state in ("connected", "connecting", "waiting", "failed", "dropped", "closed"):
            if counts.get(state):
                parts += [" · ", (f"{counts[state]} {state}", tones.get(state, "$text-warning"))]
        chars = sum(e.definition_chars for e in entries if e.state == "connected")
        tokens = sum(e.definition_tokens for e in entries if e.state == "connected")
        parts.append((f" │ tool definitions {chars:,} ch ≈{tokens:,} tok", "$foreground-muted"))
        return Content.assemble(*parts)

    def selected_entry(self) -> Entry | None:
        index = self.query_one(ServerTable).selected_index()
        return self.workspace.entries[index] if index is not None else None

    def _show_server_detail(self) -> None:
        entry = self.selected_entry()
        detail = self.query_one("#server-detail", Static)
        if entry is None:
            detail.update("No servers.")
            return
        lines: list[tuple[str, str] | str] = [(printable(entry.name), "bold")]
        if entry.server_name:
            lines.append(f"  {printable(entry.server_name)} {printable(entry.server_version or '')}".rstrip())
        host, source = entry.configured.host, entry.configured.source
        lines.append((f"  {host} · {source}" if host != source else f"  {source}", "$foreground-muted"))
        why = why_text(entry)
        if why:
            lines += ["\n", (why, "$text-error")]
        elif entry.state == "connecting":
            lines += ["\n", ("starting…", "$text-warning")]
        for text in entry.stderr_tail[-4:]:
            lines += ["\n", (f"stderr│ {printable(text)}", "$foreground-muted")]
        if entry.state == "connected" and entry.connect_seconds is not None:
            lines += ["\n", f"connected in {seconds_text(entry.connect_seconds)}"]
            if entry.attempt > 1:
                lines.append((f" (connection #{entry.attempt})", "$foreground-muted"))
        lines += ["\n", ("Enter opens it · r reconnects · a agent's view", "$foreground-muted")]
        detail.update(Content.assemble(*lines))

    def _show_agent_detail(self) -> None:
        table = self.query_one(AgentTable)
        detail = self.query_one("#agent-detail", Static)
        tools = self.workspace.agent_tools()
        left_out = [e for e in self.workspace.entries if e.state != "connected"]
        flagged = sum(1 for t in tools if t.flags)
        summary = f"{len(tools)} tools, {flagged} flagged"
        if left_out:
            summary += f"; {len(left_out)} servers not connected are left out"
        if not tools or not table.row_count:
            detail.update(Content(summary))
            return
        tool = tools[min(table.cursor_row, len(tools) - 1)]
        parts: list[tuple[str, str] | str] = [
            (printable(tool.name), "bold"),
            f"  {tool.server} / {tool.tool}",
        ]
        description = first_line(tool.description)
        parts += ["\n", (printable(description) if description else "(no description)", "$foreground-muted")]
        for line in tool.explain():
            parts += ["\n", (f"✗ {line}", "$text-error")]
        parts += ["\n", (summary, "$foreground-muted")]
        detail.update(Content.assemble(*parts))

    # -- messages and actions --------------------------------------------------------------------------
    @on(DataTable.RowHighlighted, "#servers")
    def _server_highlighted(self) -> None:
        self._show_server_detail()

    @on(DataTable.RowHighlighted, "#agent-tools")
    def _tool_highlighted(self) -> None:
        self._show_agent_detail()

    @on(DataTable.RowSelected, "#servers")
    def _server_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        entry = self.selected_entry()
        if entry is not None:
            self.post_message(self.ServerOpened(entry))

    @on(ServerTable.ReconnectRequested)
    def _reconnect(self, event: ServerTable.ReconnectRequested) -> None:
        entry = self.workspace.entries[event.index]
        if entry.configured.spec is None:
            self.notify(f"{entry.name}: {entry.reason}", severity="warning")
            return
        self.run_worker(
            self.workspace.reconnect(entry), name=f"reconnect {entry.name}", group="workspace-reconnect",
            exit_on_error=False,
        )  # fmt: skip

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#workspace-tabs", TabbedContent).active = tab
        self.query_one(ServerTable if tab == "servers-tab" else AgentTable).focus()
