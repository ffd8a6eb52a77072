"""Saved tool calls, per server: a tool name and its arguments, kept to run again later.

One JSON file per server in `saved-calls/` under the data directory (`$MCPX_DATA_DIR`, else
platformdirs' user data dir): `{"server": name, "calls": [{"tool", "arguments", "savedAt", "label"}]}`.
Writes are atomic (a temporary file, then a rename). An unreadable or malformed file reads as no calls
plus a `problem` sentence, and is only replaced when the user saves a call.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpx.wire.private_files import write_private
from mcpx.wire.secret_policy import RULES


def data_dir() -> Path:
    base = os.environ.get("MCPX_DATA_DIR")
    if base:
        return Path(base)
    import platformdirs

    return Path(platformdirs.user_data_dir("mcpx"))


def server_file(server: str, base: Path | None = None) -> Path:
    """The file of `server` (a server name, or the target when it has none), named by a hash: a server's
    name or URL may carry what no file name should."""
    digest = hashlib.sha256(server.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return (base or data_dir()) / "saved-calls" / f"{digest}.json"


def _named_file(server: str, base: Path | None = None) -> Path:
    """Where earlier versions kept the file (named after the server): read once, replaced on write."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", server).strip("._")[:80] or "server"
    return (base or data_dir()) / "saved-calls" / f"{slug}.json"


@dataclass(frozen=True, slots=True)
class SavedCall:
    tool: str
    arguments: dict[str, Any]
    saved_at: float = 0.0
    label: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "arguments": self.arguments, "savedAt": self.saved_at, "label": self.label}

    @property
    def title(self) -> str:
        """`label`, else `tool {arguments}` cut to a line."""
        if self.label:
            return self.label
        args = json.dumps(self.arguments, ensure_ascii=False, separators=(", ", ": "))
        return f"{self.tool} {args if len(args) <= 80 else args[:79] + '…'}"


@dataclass
class SavedCalls:
    """The saved calls of one server, loaded from and written to its file."""

    server: str
    path: Path
    calls: list[SavedCall] = field(default_factory=list)
    #: why the file could not be read (None when it was fine or absent)
    problem: str | None = None

    @classmethod
    def load(cls, server: str, base: Path | None = None) -> SavedCalls:
        path = server_file(server, base)
        saved = cls(server, path)
        source = (
            path if path.exists() or not _named_file(server, base).exists() else _named_file(server, base)
        )
        try:
            data = json.loads(source.read_text("utf-8"))
        except FileNotFoundError:
            return saved
        except (OSError, ValueError) as exc:
            saved.problem = f"cannot read {path}: {exc}"
            return saved
        entries = data.get("calls") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            saved.problem = f"{path} has no list of calls"
            return saved
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("tool"), str):
                arguments = entry.get("arguments")
                saved.calls.append(
                    SavedCall(
                        entry["tool"],
                        arguments if isinstance(arguments, dict) else {},
                        float(entry["savedAt"]) if isinstance(entry.get("savedAt"), (int, float)) else 0.0,
                        str(entry.get("label") or ""),
                    )
                )
        return saved

    def add(self, tool: str, arguments: dict[str, Any], label: str = "") -> SavedCall:
        """Save a call (an identical one is moved to the end, not duplicated) and write the file."""
        call = SavedCall(tool, arguments, time.time(), label)
        self.calls = [c for c in self.calls if (c.tool, c.arguments) != (tool, arguments)] + [call]
        self.write()
        return call

    def remove(self, call: SavedCall) -> None:
        self.calls = [c for c in self.calls if c != call]
        self.write()

    def write(self) -> None:
        text = json.dumps(
            {"server": RULES.text(self.server), "calls": [c.to_json() for c in self.calls]},
            ensure_ascii=False,
            indent=2,
        )
        # arguments may hold what a user typed into a password field: the owner's eyes only
        write_private(self.path, text + "\n", tighten=True)
        old = _named_file(self.server, self.path.parent.parent)
        if old != self.path and old.exists():
            old.unlink(missing_ok=True)  # moved to the hashed name
        self.problem = None
