"""`mcpx diff`: what a server offers, from a recording or a live connection, and how two of them differ.

A `Snapshot` holds the server's identity, capabilities and instructions and its four catalogues (tools,
resources, resource templates, prompts). From a recording they come from the opening exchange and the
last complete listing of each catalogue; a catalogue the recording never listed is unknown (None), and
a diff says so instead of calling every item removed. Items are matched by name (tools, prompts), `uri`
(resources) or `uriTemplate` (templates); a changed item lists its differences field by field, down into
its schemas.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpx.errors import McpxError
from mcpx.protocol.client import Client
from mcpx.protocol.names import LISTS
from mcpx.record.jsondiff import Change, Keyed, Pattern, diff, split_ignored
from mcpx.record.reader import Recording
from mcpx.record.session import client_requests, listings
from mcpx.wire.jsonrpc import Response

SERVER_INFO = "io.modelcontextprotocol/serverInfo"


@dataclass(slots=True)
class Snapshot:
    source: str
    era: str | None = None
    protocol_version: str | None = None
    server_info: dict[str, Any] | None = None
    capabilities: dict[str, Any] | None = None
    instructions: str | None = None
    catalogues: dict[str, list[Any] | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def from_recording(recording: Recording) -> Snapshot:
    snap = Snapshot(os.fspath(recording.path), recording.era, recording.protocol_version)
    opening = recording.opening()
    result = opening.message.result if opening is not None and isinstance(opening.message, Response) else None
    if isinstance(result, dict):
        _identity(snap, result)
    else:
        snap.notes.append("the recording does not show how the session opened")
    listed = listings(client_requests(recording))
    for name in LISTS:
        snap.catalogues[name] = listed.get(name)
    return snap


def _identity(snap: Snapshot, result: dict[str, Any]) -> None:
    meta = result.get("_meta")
    modern = isinstance(meta, dict) and SERVER_INFO in meta
    info = meta.get(SERVER_INFO) if modern else result.get("serverInfo")  # type: ignore[union-attr]
    snap.server_info = info if isinstance(info, dict) else None
    caps = result.get("capabilities")
    snap.capabilities = caps if isinstance(caps, dict) else None
    instructions = result.get("instructions")
    snap.instructions = instructions if isinstance(instructions, str) else None


async def from_client(client: Client, source: str) -> Snapshot:
    """List everything the connected server offers (what its capabilities say it has)."""
    opened = client.opened
    assert opened is not None
    snap = Snapshot(source, opened.era, opened.protocol_version)
    _identity(snap, opened.raw)
    caps = opened.capabilities
    for name, spec in LISTS.items():
        method = spec.method
        if spec.capability not in caps:
            snap.catalogues[name] = []
            continue
        try:
            listed = await client.list_all(method, name)
        except McpxError as exc:
            snap.catalogues[name] = None
            snap.notes.append(f"{method} failed: {exc.message}")
            continue
        items = listed.get(name)
        snap.catalogues[name] = items if isinstance(items, list) else []
    return snap


@dataclass(slots=True)
class CatalogueDiff:
    name: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, list[Change]] = field(default_factory=dict)
    same: int = 0
    #: why it was not compared (a side never listed it)
    unknown: str | None = None

    @property
    def differs(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def to_json(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "removed": self.removed,
            "changed": {k: [c.to_json() for c in v] for k, v in self.changed.items()},
            "same": self.same,
            "unknown": self.unknown,
        }


@dataclass(slots=True)
class SnapshotDiff:
    a: Snapshot
    b: Snapshot
    server_info: list[Change] = field(default_factory=list)
    capabilities: list[Change] = field(default_factory=list)
    instructions: list[Change] = field(default_factory=list)
    catalogues: list[CatalogueDiff] = field(default_factory=list)
    ignored: int = 0

    @property
    def differs(self) -> bool:
        return bool(self.server_info or self.capabilities or self.instructions) or any(
            c.differs for c in self.catalogues
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a.source,
            "b": self.b.source,
            "different": self.differs,
            "era": [self.a.era, self.b.era],
            "protocol_version": [self.a.protocol_version, self.b.protocol_version],
            "server_info": [c.to_json() for c in self.server_info],
            "capabilities": [c.to_json() for c in self.capabilities],
            "instructions": [c.to_json() for c in self.instructions],
            "catalogues": {c.name: c.to_json() for c in self.catalogues},
            "ignored": self.ignored,
            "notes": self.a.notes + self.b.notes,
        }


def compare(a: Snapshot, b: Snapshot, ignore: Sequence[Pattern] = ()) -> SnapshotDiff:
    out = SnapshotDiff(a, b)

    def changes(x: Any, y: Any, *root: Any) -> list[Change]:
        kept, ignored = split_ignored(diff(x, y, path=tuple(root)), ignore)
        out.ignored += len(ignored)
        return kept

    if a.server_info is not None and b.server_info is not None:
        out.server_info = changes(a.server_info, b.server_info, "serverInfo")
    if a.capabilities is not None and b.capabilities is not None:
        out.capabilities = changes(a.capabilities, b.capabilities, "capabilities")
    out.instructions = changes(a.instructions, b.instructions, "instructions")
    for name, spec in LISTS.items():
        out.catalogues.append(_catalogue(name, spec.item_key, a, b, changes))
    return out


def _catalogue(name: str, key: str, a: Snapshot, b: Snapshot, changes: Any) -> CatalogueDiff:
    result = CatalogueDiff(name)
    left, right = a.catalogues.get(name), b.catalogues.get(name)
    if left is None or right is None:
        side = a if left is None else b
        result.unknown = f"{side.source} does not show the {name} (never listed)"
        return result
    before = _by_key(left, key)
    after = _by_key(right, key)
    result.removed = [k for k in before if k not in after]
    result.added = [k for k in after if k not in before]
    for item_key, item in before.items():
        if item_key in after:
            found = changes(item, after[item_key], name, Keyed(key, item_key))
            if found:
                # paths inside the item: `$.inputSchema.properties.x.type`
                result.changed[item_key] = [Change(c.path[2:], c.kind, c.before, c.after) for c in found]
            else:
                result.same += 1
    return result


def _by_key(items: list[Any], key: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, item in enumerate(items):
        name = item.get(key) if isinstance(item, dict) else None
        label = name if isinstance(name, str) else f"#{index}"
        while label in out:
            label += "'"
        out[label] = item
    return out
