"""`mcpx proxy install` / `uninstall`: put a host's servers behind the proxy in its own config, and back.

    Claude Desktop   claude_desktop_config.json   mcpServers.NAME {command, args, env, cwd}
    Claude Code      ~/.claude.json               mcpServers.NAME and projects.DIR.mcpServers.NAME
                                                  ({command, args, env} or {type: http|sse, url, headers})
    Cursor           ~/.cursor/mcp.json           mcpServers.NAME ({command…} or {url, headers})
    VS Code          ./.vscode/mcp.json           servers.NAME ({type: stdio, command…} or {type: http, url…})

A server entry becomes a stdio entry that runs `mcpx proxy --name NAME` with the server after `--`: a
command keeps its words, a URL entry becomes the URL with its headers as `--header` (and `--transport
sse` for an SSE entry). Every other key of the entry (env, cwd, envFile, disabled, …) stays as it was:
the proxy inherits the env and cwd the host gives it, and so does the server it starts.

Before the file is written, its exact bytes go to `FILE.mcpx-backup` (0600), and what was installed is
noted in the data dir. `uninstall` writes the backup back byte for byte when the file is still what
install wrote; when the host or the user changed it since, only the proxied entries are put back (the
rest of the file is kept, its formatting may differ) and it says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from mcpx.errors import UsageError
from mcpx.proxy.sessions import data_dir
from mcpx.wire.private_files import private_dir, write_private
from mcpx.workspace.discovery import Places, claude_desktop_path

HostName = Literal["claude-desktop", "claude-code", "cursor", "vscode"]
HOSTS: tuple[HostName, ...] = get_args(HostName)
BACKUP_SUFFIX = ".mcpx-backup"
#: what marks an entry as already going through the proxy (its args)
MARK = ["-m", "mcpx", "proxy"]


def config_path(host: HostName, places: Places) -> Path:
    if host == "claude-desktop":
        return claude_desktop_path(places)
    if host == "claude-code":
        return places.home / ".claude.json"
    if host == "cursor":
        return places.home / ".cursor" / "mcp.json"
    return places.cwd / ".vscode" / "mcp.json"


@dataclass(slots=True)
class Change:
    """One server entry rewritten (or left alone, with why)."""

    name: str
    where: str
    before: dict[str, Any]
    after: dict[str, Any] | None = None
    skipped: str | None = None


@dataclass(slots=True)
class Plan:
    path: Path
    original: bytes
    data: Any
    changes: list[Change] = field(default_factory=list)

    @property
    def applied(self) -> list[Change]:
        return [change for change in self.changes if change.after is not None]


def _tables(data: Any, host: HostName) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, the table of servers) of a config file's object, in file order."""
    if not isinstance(data, dict):
        raise UsageError("the config file holds no JSON object")
    key = "servers" if host == "vscode" else "mcpServers"
    if isinstance(data.get(key), dict):
        yield key, data[key]
    if host == "claude-code" and isinstance(data.get("projects"), dict):
        for folder, entry in data["projects"].items():
            if isinstance(entry, dict) and isinstance(entry.get("mcpServers"), dict):
                yield f"projects[{folder}].mcpServers", entry["mcpServers"]


def proxied(entry: dict[str, Any], name: str, python: str) -> dict[str, Any]:
    """`entry` rewritten to run through `mcpx proxy` (every key it does not replace kept as it was)."""
    words: list[str] = ["--name", name]
    if "url" in entry or "serverUrl" in entry:
        url = str(entry.get("url") or entry.get("serverUrl"))
        kind = str(entry.get("type") or entry.get("transport") or "").lower()
        if kind == "sse":
            words += ["--transport", "sse"]
        for header, value in (entry.get("headers") or {}).items():
            words += ["--header", f"{header}: {value}"]
        words += ["--", url]
        after = {
            k: v for k, v in entry.items() if k not in ("url", "serverUrl", "headers", "type", "transport")
        }
        if "type" in entry:
            after["type"] = "stdio"
    else:
        words += ["--", str(entry["command"]), *[str(arg) for arg in entry.get("args") or []]]
        after = dict(entry)
    after["command"] = python
    after["args"] = [*MARK, *words]
    return after


def plan_install(
    host: HostName, places: Places, servers: list[str] | None, *, python: str | None = None
) -> Plan:
    """What `install` would change (nothing written). `servers` None: every server of the file."""
    path = config_path(host, places)
    original, data = _read(path)
    plan = Plan(path, original, data)
    python = python or sys.executable
    found: set[str] = set()
    for where, table in _tables(data, host):
        for name, entry in table.items():
            if servers is not None and name not in servers:
                continue
            found.add(name)
            if not isinstance(entry, dict) or not (
                "command" in entry or "url" in entry or "serverUrl" in entry
            ):
                plan.changes.append(Change(name, where, {}, skipped="no command or url to proxy"))
            elif _is_proxied(entry):
                plan.changes.append(Change(name, where, entry, skipped="already goes through mcpx proxy"))
            else:
                after = proxied(entry, name, python)
                plan.changes.append(Change(name, where, entry, after))
                table[name] = after
    missing = sorted(set(servers or ()) - found)
    if missing:
        raise UsageError(f"{path} has no server named {', '.join(map(repr, missing))}")
    if not plan.changes:
        raise UsageError(f"{path} defines no MCP servers")
    return plan


def install(plan: Plan) -> Path | None:
    """Write the plan: the backup first (exact bytes), the note of what was done, then the file."""
    if not plan.applied:
        return None
    backup = plan.path.with_name(plan.path.name + BACKUP_SUFFIX)
    write_private(backup, plan.original)
    text = _dumps(plan.data, plan.original)
    state = {
        "path": str(plan.path),
        "backup": str(backup),
        "written_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "servers": [
            {"name": c.name, "where": c.where, "before": c.before, "after": c.after} for c in plan.applied
        ],
    }
    write_private(_state_file(plan.path), json.dumps(state, indent=1) + "\n")
    _write_keeping_mode(plan.path, text.encode())
    return backup


def uninstall(host: HostName, places: Places) -> tuple[Path, bool, list[str]]:
    """Put the host's config back: (its path, whether it is byte for byte the original, servers restored)."""
    path = config_path(host, places)
    state_file = _state_file(path)
    try:
        state = json.loads(state_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"mcpx proxy install has not changed {path} (nothing to undo)") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read what install noted in {state_file}: {exc}") from None
    names = [str(server["name"]) for server in state["servers"]]
    current, data = _read(path)
    backup = Path(state["backup"])
    if hashlib.sha256(current).hexdigest() == state["written_sha256"] and backup.is_file():
        _write_keeping_mode(path, backup.read_bytes())
        exact = True
    else:
        for table_where, table in _tables(data, host):
            for server in state["servers"]:
                if server["where"] == table_where and table.get(server["name"]) == server["after"]:
                    table[server["name"]] = server["before"]
        _write_keeping_mode(path, _dumps(data, current).encode())
        exact = False
    state_file.unlink()
    if exact:
        backup.unlink(missing_ok=True)
    return path, exact, names


def _is_proxied(entry: dict[str, Any]) -> bool:
    args = entry.get("args")
    return isinstance(args, list) and args[: len(MARK)] == MARK


def _read(path: Path) -> tuple[bytes, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{path} does not exist: the host has no servers configured there") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return raw, json.loads(raw)
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); mcpx will not rewrite it") from None


def _dumps(data: Any, like: bytes) -> str:
    """JSON indented as the original was (its first indented line), ending as it ended."""
    match = re.search(rb"\n([ \t]+)\S", like)
    indent: str | int = match.group(1).decode() if match else 2
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return text + ("\n" if like.endswith(b"\n") else "")


def _write_keeping_mode(path: Path, data: bytes) -> None:
    """Replace the file in one rename, with the mode it had (a config may hold secrets: never wider)."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    temporary = path.with_name(f".{path.name}.mcpx-{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def _state_file(path: Path) -> Path:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    return private_dir(data_dir() / "proxy-installs") / f"{digest}.json"
