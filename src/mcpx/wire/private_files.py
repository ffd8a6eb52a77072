"""Files and folders only their owner can read: what mcpx writes that may hold a secret (recordings, tokens,
caches, saved results) is 0600 in 0700 folders, written atomically.

In os.path's words, not pathlib's: `write_private` saves the era cache on `mcpx call`'s path, where pathlib's
import costs ~9 ms of CPU.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


def private_dir(path: str | os.PathLike[str], *, tighten: bool = False) -> Path:
    """Make `path` a directory, each folder it creates only its owner can enter (0700). `tighten`: also
    take group/other access away from an existing `path` (mcpx's own cache and data folders, never a folder
    the user chose)."""
    from pathlib import Path

    return Path(_private_dir(path, tighten))


def _private_dir(path: str | os.PathLike[str], tighten: bool) -> str:
    # in os.path's words, not pathlib's: `write_private` saves the era cache on `mcpx call`'s path
    folder = os.path.expanduser(os.fspath(path))
    folder = folder.rstrip("/") or folder  # "a/b/" is "a/b" (and "/" stays)
    missing: list[str] = []
    part = folder
    while part and not os.path.exists(part):
        missing.append(part)
        parent = os.path.dirname(part)
        if parent == part:
            break
        part = parent
    for part in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(part, 0o700)
    if tighten:
        try:
            if os.stat(folder).st_mode & 0o077:
                os.chmod(folder, 0o700)
        except OSError:
            pass  # not ours to change: the files in it are still 0600
    return folder


def write_private(path: str | os.PathLike[str], data: str | bytes, *, tighten: bool = False) -> None:
    """Write a file only its owner can read (0600), atomically (tmp + rename); missing folders are made
    0700 (`tighten`: see `private_dir`)."""
    target = os.fspath(path)
    folder, name = os.path.split(target)
    _private_dir(folder or ".", tighten)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.replace(tmp, target)
