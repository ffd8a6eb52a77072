"""Batches of changed files, debounced: what a save (or a `git checkout`, or a build) did, as one batch.

`file_changes()` wraps watchfiles' `awatch`: its Rust watcher waits in a thread and hands back every change
seen until the files have been quiet for `quiet_ms`, so an editor's write-rename-chmod, or a formatter
rewriting ten files, becomes one restart. Leaving the iterator (or cancelling its task) sets the watcher's
stop event so its thread ends within one step, instead of lingering until its timeout.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpx.watch.paths import is_collection, source_filter

#: default quiet time after the last change before a batch is handed over (milliseconds)
QUIET_MS = 100
#: a batch is handed over after this long even while changes keep coming (a build writing for minutes)
MAX_BATCH_MS = 1_600


@dataclass(frozen=True, slots=True)
class ChangeBatch:
    """Files that changed together (sorted, absolute)."""

    paths: tuple[str, ...]

    @property
    def only_collections(self) -> bool:
        """Only collection files changed: the tests run again, the server need not restart."""
        return bool(self.paths) and all(is_collection(path) for path in self.paths)

    def describe(self, roots: Sequence[Path] = (), limit: int = 3) -> str:
        """`server.py`, `a.py, b.py and 3 more`: names relative to the watched folder where they can be."""
        names = [_relative(path, roots) for path in self.paths]
        shown = ", ".join(names[:limit])
        return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _relative(path: str, roots: Sequence[Path]) -> str:
    for root in roots:
        try:
            return os.fspath(Path(path).relative_to(root))
        except ValueError:
            continue
    return path


def _real(changes: Set[tuple[Any, str]]) -> ChangeBatch:
    """The batch without transient files: one that appeared and is gone again (`sed -i`'s and many editors'
    temporary copies, renamed over the real file) changed nothing a server reads."""
    from watchfiles import Change

    added = {path for change, path in changes if change == Change.added}
    paths = {path for _, path in changes}
    return ChangeBatch(tuple(sorted(p for p in paths if p not in added or os.path.lexists(p))))


async def file_changes(
    roots: Sequence[Path], *, quiet_ms: int = QUIET_MS, stop: threading.Event | None = None
) -> AsyncIterator[ChangeBatch]:
    """Each batch of changes under `roots` until `stop` is set or the iterator is closed."""
    from watchfiles import awatch

    stop = stop if stop is not None else threading.Event()
    try:
        async for changes in awatch(
            *roots,
            watch_filter=source_filter(),  # type: ignore[arg-type]
            step=max(1, quiet_ms),
            debounce=max(MAX_BATCH_MS, quiet_ms),
            stop_event=stop,
        ):
            batch = _real(changes)
            if batch.paths:
                yield batch
    finally:
        stop.set()  # the watcher's thread ends at its next step
