"""Save as test: a tool call of the session appended to the server's collection, its answer as the
expectation (no Textual here: the History tab, the result panel and the palette all come through it).

Where the collection lives (`mcpx.watch.paths.collection_for`): `server.mcpx.yaml` beside the server's
script, else `<server name>.mcpx.yaml` in the working directory — `mcpx inspect --tests FILE` names
another. A file that does not exist yet is created with a `server:` line that reaches the same server from
the collection's folder (the script relative to it, the config entry, the URL); env values and headers are
never written (they may hold secrets, and a collection is shared).
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpx.collection.expect import Answer, ErrorAnswer
from mcpx.collection.record import expectation_from
from mcpx.target import ServerSpec, resolve_target
from mcpx.watch.paths import script_of
from mcpx.wire.secret_policy import mask_url

#: a test's name holds this much of its arguments
NAME_ARGS = 40


@dataclass(frozen=True, slots=True)
class SavedTest:
    path: Path
    name: str
    #: the file was created by this save
    created: bool


def unique_name(tool: str, arguments: dict[str, Any], taken: Iterable[str] = ()) -> str:
    """`add {"a":2,"b":3}`, unique among `taken` (` (2)`, ` (3)` … after a name already used)."""
    args = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), default=repr)
    args = args if len(args) <= NAME_ARGS else args[: NAME_ARGS - 1] + "…"
    base = f"{tool} {args}" if arguments else tool
    used = set(taken)
    name, n = base, 1
    while name in used:
        n += 1
        name = f"{base} ({n})"
    return name


def call_as_test(
    tool: str,
    arguments: dict[str, Any],
    result: Any,
    *,
    error_code: int | None = None,
    error: str | None = None,
    taken: Iterable[str] = (),
) -> dict[str, Any]:
    """The test a call becomes: its name, the call, and what its answer said as the expectation."""
    answer = Answer("tools/call", result=result)
    if error is not None:
        answer.error = ErrorAnswer(error_code if error_code is not None else 0, error)
    test: dict[str, Any] = {"name": unique_name(tool, arguments, taken), "call": tool}
    if arguments:
        test["arguments"] = arguments
    test["expect"] = expectation_from(answer)
    return test


def server_entry(spec: ServerSpec, folder: Path) -> Any:
    """The `server:` of a new collection in `folder` that reaches `spec`."""
    if spec.name == "mcpx demo":
        return "demo"
    if spec.source and spec.name and os.path.isfile(spec.source):
        return {"config": _relative(Path(spec.source), folder), "server": spec.name}
    if spec.url is not None:
        return mask_url(spec.url)
    command = list(spec.command or [])
    cwd = Path(spec.cwd).expanduser() if spec.cwd else Path.cwd()
    script = script_of(command, cwd)
    words = command
    if script is not None:
        at = next(i for i, w in enumerate(command) if i and (cwd / w).resolve() == script.resolve())
        target = _relative(script, folder)
        args = command[at + 1 :]
        # the interpreter TARGET rules would pick (python for .py, node for .js): the script alone says it
        plain = resolve_target(str(script)).command or []
        words = [target, *args] if command[:at] == plain[:-1] else [*command[:at], target, *args]
    if spec.cwd and Path(spec.cwd).resolve() != folder.resolve():
        return {"target": words[0], "args": words[1:], "cwd": _relative(Path(spec.cwd), folder)}
    return shlex.join(words)


def _relative(path: Path, folder: Path) -> str:
    relative = os.path.relpath(path.resolve(), folder.resolve())
    return relative if relative.startswith("..") or os.path.isabs(relative) else f"./{relative}"


def save_call(path: Path, test: dict[str, Any], spec: ServerSpec | None) -> SavedTest:
    """Append `test` to the collection at `path` (created with a `server:` for `spec` when missing)."""
    from mcpx.collection.writer import append_test

    created = not path.exists() or not path.read_text(encoding="utf-8").strip()
    server = server_entry(spec, path.parent) if spec is not None and created else None
    append_test(path, test, server=server)
    return SavedTest(path, str(test["name"]), created)


def names_in(path: Path) -> list[str]:
    """The names of the tests a collection holds (none when it does not exist or cannot be read)."""
    from mcpx.collection.model import load_collection
    from mcpx.errors import McpxError

    if not path.is_file():
        return []
    try:
        return [test.name for test in load_collection(path).tests]
    except McpxError:
        return []
