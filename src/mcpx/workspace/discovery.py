"""Which MCP config files apply here, and every server they define (with the file it came from).

Looked for, in this order (the user's own files, then the project's):

    Claude Desktop   macOS   ~/Library/Application Support/Claude/claude_desktop_config.json
                     Windows %APPDATA%/Claude/claude_desktop_config.json
                     Linux   $XDG_CONFIG_HOME/Claude/claude_desktop_config.json (~/.config by default)
    Claude Code      ~/.claude.json: `mcpServers` (user scope) and `projects[<dir>].mcpServers` (local scope,
                     for this directory or the nearest parent it lists); ./.mcp.json (project scope)
    Cursor           ~/.cursor/mcp.json, ./.cursor/mcp.json
    VS Code          ./.vscode/mcp.json (`servers`)

`Places` holds the roots (home, working directory, platform, environment) so tests point it anywhere.
A file that cannot be read or parsed becomes one `ConfigProblem` row: it is listed, never dropped.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpx.errors import UsageError
from mcpx.transports.spec import ServerSpec
from mcpx.workspace.config import ConfigProblem, load_servers, servers_in


@dataclass(frozen=True, slots=True)
class Places:
    """Where to look: the home directory, the project (working) directory, the OS and its environment."""

    home: Path
    cwd: Path
    platform: str = sys.platform
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))

    @classmethod
    def here(cls) -> Places:
        return cls(home=Path.home(), cwd=Path.cwd())


@dataclass(slots=True)
class Configured:
    """One server of the workspace: its name, the host and file it came from, and the spec (or problem)."""

    name: str
    host: str
    source: str
    spec: ServerSpec | None = None
    problem: str | None = None

    @property
    def transport(self) -> str:
        if self.spec is None:
            return "?"
        if self.spec.command is not None and self.spec.transport in ("stdio", "auto"):
            return "stdio"
        return self.spec.transport if self.spec.transport != "auto" else "http"

    @property
    def remote(self) -> bool:
        return self.transport != "stdio"


def claude_desktop_path(places: Places) -> Path:
    if places.platform == "darwin":
        return places.home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if places.platform.startswith("win"):
        appdata = places.environ.get("APPDATA")
        base = Path(appdata) if appdata else places.home / "AppData" / "Roaming"
        return base / "Claude" / "claude_desktop_config.json"
    xdg = places.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else places.home / ".config") / "Claude" / "claude_desktop_config.json"


def candidate_files(places: Places) -> list[tuple[str, Path]]:
    """(host label, path) of every file that may hold servers here, whether it exists or not."""
    home, cwd = places.home, places.cwd
    return [
        ("Claude Desktop", claude_desktop_path(places)),
        ("Claude Code", home / ".claude.json"),
        ("Claude Code (project)", cwd / ".mcp.json"),
        ("Cursor", home / ".cursor" / "mcp.json"),
        ("Cursor (project)", cwd / ".cursor" / "mcp.json"),
        ("VS Code (project)", cwd / ".vscode" / "mcp.json"),
    ]


def discover(places: Places | None = None) -> list[Configured]:
    """Every server the config files that apply here define, in file order."""
    places = places or Places.here()
    found: list[Configured] = []
    seen: set[Path] = set()
    for host, path in candidate_files(places):
        resolved = path.resolve()
        if resolved in seen or not path.is_file():
            continue
        seen.add(resolved)
        if path.name == ".claude.json":
            found.extend(_claude_code(path, places.cwd))
        else:
            found.extend(from_file(path, host))
    return found


def from_file(path: str | Path, host: str | None = None) -> list[Configured]:
    """The servers of one file (`--config FILE`); an unreadable file is one row with the reason."""
    label = host or str(path)
    try:
        servers = load_servers(path)
    except UsageError as exc:
        return [Configured(Path(path).name, label, str(path), problem=exc.message)]
    return [_row(name, found, label, str(path)) for name, found in servers.items()]


def _claude_code(path: Path, cwd: Path) -> list[Configured]:
    source = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("it holds no object")
        rows = [_row(n, s, "Claude Code (user)", source) for n, s in servers_in(data, source).items()]
        project = _project_entry(data.get("projects"), cwd)
        if project is not None:
            where, entry = project
            host = f"Claude Code (local: {where})"
            rows += [_row(n, s, host, source) for n, s in servers_in(entry, source).items()]
    except (OSError, ValueError, UsageError) as exc:
        reason = exc.message if isinstance(exc, UsageError) else f"cannot be read: {exc}"
        return [Configured(path.name, "Claude Code", source, problem=reason)]
    return rows


def _project_entry(projects: Any, cwd: Path) -> tuple[str, Mapping[str, Any]] | None:
    """The `projects` entry of ~/.claude.json for this directory, or for the nearest parent listed."""
    if not isinstance(projects, dict):
        return None
    for folder in (cwd, *cwd.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and entry.get("mcpServers"):
            return str(folder), entry
    return None


def _row(name: str, found: ServerSpec | ConfigProblem, host: str, source: str) -> Configured:
    if isinstance(found, ConfigProblem):
        return Configured(name, host, source, problem=found.reason)
    return Configured(name, host, source, spec=found)
