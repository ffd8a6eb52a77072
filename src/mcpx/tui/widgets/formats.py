"""How the TUI writes numbers every feature shows (latencies in the log, results, the header)."""

from __future__ import annotations


def format_latency(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f}µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f}ms" if seconds < 0.01 else f"{seconds * 1e3:.0f}ms"
    if seconds < 100:
        return f"{seconds:.2f}s"
    return f"{seconds:.0f}s"
