"""Protocol revisions mcpx knows. They are an enumerated set, not an ordered scalar: compare by lookup."""

from __future__ import annotations

#: handshake-era revisions, newest first (the first is what mcpx offers in `initialize`)
LEGACY_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
#: revisions without a handshake
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
ALL_VERSIONS: tuple[str, ...] = MODERN_VERSIONS + LEGACY_VERSIONS
LATEST_LEGACY = LEGACY_VERSIONS[0]
LATEST_MODERN = MODERN_VERSIONS[0]


def era_of(version: str) -> str | None:
    if version in LEGACY_VERSIONS:
        return "legacy"
    if version in MODERN_VERSIONS:
        return "modern"
    return None
