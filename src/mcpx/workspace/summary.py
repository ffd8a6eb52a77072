"""Words and numbers for a workspace row, shared by `mcpx ls` and the TUI (plain strings, no styling)."""

from __future__ import annotations

import time

from mcpx.workspace.manager import Entry

COUNT_LABELS = (("tools", "tools"), ("resources", "res"), ("prompts", "prompts"))


def state_text(entry: Entry, *, dirty: bool = True) -> str:
    """The state in a word; `dirty` marks a connected row whose lists changed and are not fetched yet."""
    if entry.state == "connected" and entry.loading:
        return "listing"
    if dirty and entry.state == "connected" and entry.dirty:
        return "connected*"  # a list changed and is not fetched yet
    return entry.state


def version_text(entry: Entry) -> str:
    if entry.protocol_version is None:
        return "-"
    return f"{entry.era or '?'} {entry.protocol_version}"


def count_text(entry: Entry, kind: str) -> str:
    if kind in entry.list_errors:
        return "!"
    if kind in entry.loading:
        return "…"
    value = entry.counts.get(kind)
    return "-" if value is None else str(value)


def seconds_text(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def size_text(entry: Entry) -> str:
    if entry.state != "connected" or entry.counts.get("tools") is None:
        return "-"
    return f"{entry.definition_chars:,} ch ≈{entry.definition_tokens:,} tok"


def first_line(text: str | None) -> str:
    """The sentence of an error message (the stderr tail it may carry is shown on its own)."""
    lines = (text or "").split("; last stderr lines")[0].strip().splitlines()
    return lines[0] if lines else ""


def why_text(entry: Entry) -> str:
    """One sentence on what went wrong (or nothing), with when it dropped."""
    if entry.state == "dropped" and entry.dropped_at is not None:
        when = time.strftime("%H:%M:%S", time.localtime(entry.dropped_at))
        return f"dropped at {when}: {first_line(entry.reason)}"
    if entry.state == "failed":
        return first_line(entry.reason)
    if entry.list_errors:
        return "; ".join(entry.list_errors.values())
    return ""
