"""Finding every process a stdio server started, including those that left its process group.

Stopping the server's process group takes `npx → node` along, but a descendant that calls `setsid()` (a
daemonising helper, a language server, `nohup …&` in a wrapper script) is in a group and session of its
own, and once its parent exits it is re-parented to init: neither the group nor the process tree leads to
it any more. So each server gets a mark in its environment, `MCPX_SERVER_MARK=<random>`, which every
descendant inherits through fork and exec whatever it does with sessions; closing the server stops every
process that carries the mark (read from `/proc/<pid>/environ`, same user only), plus the server's
descendants by parent link (for one that cleared its environment while its parent still lives).

What is guaranteed where: on Linux, all of the above, and after mcpx itself is killed the sentinel does
the same scan. Elsewhere (no `/proc`), the process group only. A descendant that both clears its
environment and is orphaned before the stop cannot be told from any other process of the user.
"""

from __future__ import annotations

import contextlib
import os
import signal

ENV_MARK = "MCPX_SERVER_MARK"
_PROC = "/proc"


def new_mark() -> str:
    return os.urandom(12).hex()  # secrets.token_hex(12), without importing secrets on every spawn


def can_track() -> bool:
    return os.path.isdir(_PROC)


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir(_PROC) if name.isdigit()]
    except OSError:
        return []


def marked(mark: str) -> set[int]:
    """Live processes (not zombies) whose environment carries `mark`."""
    needle = f"{ENV_MARK}={mark}".encode()
    found = set()
    me = os.getpid()
    for pid in _pids():
        if pid == me:
            continue
        try:
            with open(f"{_PROC}/{pid}/environ", "rb") as f:
                environ = f.read()
        except OSError:  # gone, or another user's
            continue
        if needle in environ.split(b"\0") and not _zombie(pid):
            found.add(pid)
    return found


def descendants(root: int) -> set[int]:
    """Every process below `root` by parent links: read down from `root` through the kernel's lists of
    each thread's children where it keeps them (a few reads instead of one per process of the machine: a
    `mcpx call` pays this at every close), else from every process's parent."""
    if not _children_listed():
        return _scan(root)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in _children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _children_listed() -> bool:
    global _LISTED
    if _LISTED is None:
        me = os.getpid()
        _LISTED = os.path.exists(f"{_PROC}/{me}/task/{me}/children")  # CONFIG_PROC_CHILDREN
    return _LISTED


_LISTED: bool | None = None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        threads = os.listdir(f"{_PROC}/{pid}/task")
    except OSError:  # gone
        return found
    for tid in threads:
        try:
            with open(f"{_PROC}/{pid}/task/{tid}/children", "rb") as f:
                found.extend(int(child) for child in f.read().split())
        except (OSError, ValueError):  # the thread is gone
            continue
    return found


def _scan(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid in _pids():
        parent = _parent(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces and ')'


def _parent(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[1]) if fields and len(fields) > 1 else None


def _zombie(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is None or fields[0] in ("Z", "X")


def signal_all(pids: set[int], sig: int = signal.SIGKILL) -> set[int]:
    """Send `sig` to each; returns those it reached."""
    reached = set()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
            reached.add(pid)
    return reached
