"""What `mcpx watch` watches for a server: the folder of its script, else its working directory.

A stdio server's command names the file it runs (`python server.py`, `node dist/index.js`, `npx -y tsx
src/server.ts`): its folder holds the code an edit touches. A command with no file in it (`python -m
pkg`, `uvx some-server`) is watched in its working directory. `--watch-path` replaces the guess. Inside
those folders, what changes by itself or is not source is ignored: VCS and tool folders, bytecode, editor
swap files (watchfiles' default filter), and mcpx's own recordings (writing one must not restart the
server that is being recorded).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from mcpx.errors import UsageError
from mcpx.target import ServerSpec

#: folder names never watched, beyond watchfiles' defaults (.git, __pycache__, node_modules, .venv, …)
IGNORED_DIRS = (".ruff_cache", ".nox", ".eggs", "venv", ".DS_Store")
#: file names never watched: recordings mcpx writes (`*.mcpx.jsonl`), coverage data, logs
IGNORED_NAMES = (r"\.mcpx\.jsonl$", r"^\.coverage", r"\.log$")
#: the collection files: a change to one re-runs the tests without a restart
COLLECTION_SUFFIX = ".mcpx.yaml"


def watch_roots(spec: ServerSpec, explicit: Sequence[str | os.PathLike[str]] = ()) -> tuple[Path, ...]:
    """The folders (or files) to watch for `spec`; `explicit` (--watch-path) replaces the guess."""
    if spec.command is None:
        raise UsageError(
            "mcpx watch restarts a server it starts itself: give a script or a command, not a URL"
        )
    if explicit:
        roots = []
        for item in explicit:
            path = Path(item).expanduser()
            if not path.exists():
                raise UsageError(f"--watch-path {os.fspath(item)!r} does not exist")
            roots.append(path.resolve())
        return tuple(dict.fromkeys(roots))
    cwd = Path(spec.cwd).expanduser() if spec.cwd else Path.cwd()
    script = script_of(spec.command, cwd)
    return ((script.parent if script is not None else cwd).resolve(),)


def script_of(command: Sequence[str], cwd: Path) -> Path | None:
    """The first word after the program that names an existing file (the script the program runs)."""
    for word in command[1:]:
        if word.startswith("-"):
            continue
        path = Path(word).expanduser()
        if not path.is_absolute():
            path = cwd / path
        if path.is_file():
            return path
    return None


def collection_for(spec: ServerSpec, name: str = "") -> Path:
    """Where a server's collection lives: beside its script (`server.py` → `server.mcpx.yaml`); for a
    server with no script (a command, a URL, a config entry), `<name>.mcpx.yaml` in the working directory,
    named after the server (its config name, else `name`, its serverInfo name)."""
    beside = collection_beside(spec)
    if beside is not None:
        return beside
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", spec.name or name).strip(".-")[:60] or "server"
    return Path.cwd().resolve() / (slug + COLLECTION_SUFFIX)


def collection_beside(spec: ServerSpec) -> Path | None:
    """`server.mcpx.yaml` beside the server's script (None: the command names no script)."""
    if spec.command is None:
        return None
    script = script_of(spec.command, Path(spec.cwd).expanduser() if spec.cwd else Path.cwd())
    return script.parent.resolve() / (script.name.split(".")[0] + COLLECTION_SUFFIX) if script else None


def source_filter() -> object:
    """A watchfiles filter: its defaults plus mcpx's own recordings and a few tool folders."""
    from watchfiles import DefaultFilter

    return DefaultFilter(
        ignore_dirs=(*DefaultFilter.ignore_dirs, *IGNORED_DIRS),
        ignore_entity_patterns=(*DefaultFilter.ignore_entity_patterns, *IGNORED_NAMES),
    )


def is_collection(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path).endswith(COLLECTION_SUFFIX)
