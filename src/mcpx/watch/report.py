"""A catalogue diff told briefly, for a restart: only what changed (`mcpx diff` tells everything).

    tools: 1 added, 1 changed
      + multiply
      ~ add
          $.inputSchema.properties.b.type: "integer" → "number"

`summary()` is the one line a notification holds ("tools: +1 ~1 · prompts: −1", or "catalogue unchanged").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcpx.record.catalog import CatalogueDiff, Snapshot, SnapshotDiff

#: how the lists are named in a sentence
TITLES = {"tools": "tools", "resources": "resources", "resourceTemplates": "templates", "prompts": "prompts"}


def snapshot_of(
    source: str,
    lists: Mapping[str, Sequence[Any] | None],
    *,
    server_info: dict[str, Any] | None = None,
    capabilities: dict[str, Any] | None = None,
    instructions: str | None = None,
) -> Snapshot:
    """A snapshot from lists already in hand (the TUI's catalogue): items as raw dicts, None = not listed."""
    snap = Snapshot(source, server_info=server_info, capabilities=capabilities, instructions=instructions)
    for name, items in lists.items():
        snap.catalogues[name] = None if items is None else [getattr(i, "raw", i) for i in items]
    return snap


def summary(diff: SnapshotDiff) -> str:
    """One line: what changed per list, or that nothing did."""
    parts = []
    for catalogue in diff.catalogues:
        if catalogue.differs:
            counts = [
                f"+{len(catalogue.added)}" if catalogue.added else "",
                f"−{len(catalogue.removed)}" if catalogue.removed else "",
                f"~{len(catalogue.changed)}" if catalogue.changed else "",
            ]
            parts.append(f"{TITLES.get(catalogue.name, catalogue.name)}: {' '.join(c for c in counts if c)}")
    if diff.server_info or diff.capabilities or diff.instructions:
        parts.append("server identity changed")
    return " · ".join(parts) if parts else "catalogue unchanged"


def lines(diff: SnapshotDiff, limit: int = 120) -> list[str]:
    """What changed, one line per item and per field of a changed item (nothing when nothing did)."""
    out: list[str] = []
    for title, changes in (
        ("server info", diff.server_info),
        ("capabilities", diff.capabilities),
        ("instructions", diff.instructions),
    ):
        if changes:
            out.append(f"{title}:")
            out.extend(f"    {change.describe(limit)}" for change in changes)
    for catalogue in diff.catalogues:
        out.extend(_catalogue_lines(catalogue, limit))
    return out


def _catalogue_lines(catalogue: CatalogueDiff, limit: int) -> list[str]:
    if not catalogue.differs:
        return []
    counts = [
        f"{len(catalogue.added)} added" if catalogue.added else "",
        f"{len(catalogue.removed)} removed" if catalogue.removed else "",
        f"{len(catalogue.changed)} changed" if catalogue.changed else "",
    ]
    out = [f"{TITLES.get(catalogue.name, catalogue.name)}: " + ", ".join(c for c in counts if c)]
    out.extend(f"  + {key}" for key in catalogue.added)
    out.extend(f"  - {key}" for key in catalogue.removed)
    for key, changes in catalogue.changed.items():
        out.append(f"  ~ {key}")
        out.extend(f"      {change.describe(limit)}" for change in changes)
    return out


def counts(snapshot: Snapshot) -> str:
    """`3 tools, 1 prompt`: what a snapshot holds (lists it does not know are left out)."""
    parts = []
    for name, items in snapshot.catalogues.items():
        if items:
            title = TITLES.get(name, name)
            parts.append(f"{len(items)} {title if len(items) != 1 else title[:-1]}")
    return ", ".join(parts) or "an empty catalogue"
