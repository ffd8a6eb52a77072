"""A workspace of eight servers in a fixed state (never started): deterministic snapshots of the workspace
and agent's-view screens, and the README's screenshot (scripts/export_screenshots.py).

The states are those a live workspace reaches (tests/integration/test_workspace.py and
tests/tui/workspace/test_workspace_pilot.py check them against real servers); here they are written in, so the
times and sizes on screen never move.
"""

from __future__ import annotations

from typing import Any

from scripted import TOOLS

from mcpx.transports.spec import ServerSpec
from mcpx.tui.settings import InspectSettings
from mcpx.tui.workspace.workspace_app import WorkspaceApp, make_workspace_app
from mcpx.workspace.agent_view import definition_size
from mcpx.workspace.discovery import Configured
from mcpx.workspace.manager import Workspace


def _tool(name: str, description: str | None = "Does one thing well.", schema: Any = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "inputSchema": schema or {"type": "object", "properties": {}}}
    if description is not None:
        tool["description"] = description
    return tool


GITHUB = [
    _tool("search_issues", "Search issues and pull requests across repositories."),
    _tool("create_issue", "Open an issue in a repository."),
    _tool("get_file_contents", "Read a file or a directory listing at a ref."),
]
FILES = [_tool("read_file", "Read a UTF-8 text file."), _tool("write_file", "Create or overwrite a file.")]
SEARCH = [
    _tool("web.search", "Search the web."),
    _tool("fetch_and_summarise_a_page_with_all_its_linked_pages_too", None),
    _tool("lookup", "Look a term up.", {"type": "string"}),
]
NOTES = [
    _tool("add_note", "Add a note."),
    _tool("add_note", "Add a note (again)."),
    _tool("search_issues", "Search notes."),
]


def _stdio(*command: str) -> ServerSpec:
    return ServerSpec(command=list(command), transport="stdio")


def _http(url: str) -> ServerSpec:
    return ServerSpec(url=url, transport="http")


def filled_workspace() -> Workspace:
    desktop = "~/.config/Claude/claude_desktop_config.json"
    rows = [
        Configured("weather", "Claude Desktop", desktop, spec=_stdio("python", "weather_server.py")),
        Configured(
            "github", "Claude Code (user)", "~/.claude.json", spec=_http("https://mcp.example.com/gh")
        ),
        Configured(
            "files", "Claude Code (project)", ".mcp.json", spec=_stdio("npx", "-y", "server-filesystem")
        ),
        Configured("search", "Cursor", "~/.cursor/mcp.json", spec=_http("https://search.example.com/mcp")),
        Configured("notes", "Cursor (project)", ".cursor/mcp.json", spec=_stdio("node", "notes.js")),
        Configured("crashy", "VS Code (project)", ".vscode/mcp.json", spec=_stdio("python", "crashy.py")),
        Configured("slowpoke", "VS Code (project)", ".vscode/mcp.json", spec=_stdio("python", "slow.py")),
        Configured("typo", "VS Code (project)", ".vscode/mcp.json", problem="unknown type 'stdoi'"),
    ]
    workspace = Workspace(rows)
    e = workspace.entries
    _connected(e[0], "legacy", "2025-11-25", ("weather", "2.1.0"), TOOLS, 2, 1, 0.212)
    _connected(e[1], "modern", "2026-07-28", ("github-mcp", "0.9.1"), GITHUB, 0, 0, 0.387)
    _connected(e[2], "legacy", "2025-06-18", ("secure-filesystem", "0.6.2"), FILES, None, None, 1.304)
    _connected(e[3], "legacy", "2025-03-26", ("search", "1.0.0"), SEARCH, None, 3, 0.094)
    _connected(e[4], "legacy", "2025-11-25", ("notes", "0.1.0"), NOTES, 12, None, 0.151)
    e[4].dirty.add("tools")
    e[5].state = "failed"
    e[5].attempt = 1
    e[5].returncode = 1
    e[5].reason = "the server exited with code 1 while waiting for initialize"
    e[5].stderr_tail = (
        "Traceback (most recent call last):",
        "ModuleNotFoundError: No module named 'crashy_deps'",
    )
    e[6].state = "connecting"
    e[6].attempt = 1
    e[7].state = "failed"
    e[7].reason = "unknown type 'stdoi'"
    return workspace


def _connected(
    entry: Any,
    era: str,
    version: str,
    server: tuple[str, str],
    tools: list[dict[str, Any]],
    resources: int | None,
    prompts: int | None,
    seconds: float,
) -> None:
    entry.state = "connected"
    entry.attempt = 1
    entry.era, entry.protocol_version = era, version
    entry.server_name, entry.server_version = server
    entry.tools = list(tools)
    entry.counts = {"tools": len(tools), "resources": resources, "prompts": prompts}
    entry.definition_chars, entry.definition_tokens = definition_size(tools)
    entry.connect_seconds = seconds


def workspace_app() -> WorkspaceApp:
    app = make_workspace_app(filled_workspace(), settings=InspectSettings(protocol_era="legacy"), start=False)
    app.animation_level = "none"
    return app
