"""The terminal sees no C1 control or bidi override from a server, whatever widget shows its text.

Textual strips some C0 controls from what it renders, and ESC never reaches the terminal raw, but C1
characters (U+0080–U+009F: CSI in one code point on terminals that honour 8-bit controls) and the bidi
overrides that reorder a line pass through. Every widget cannot be trusted to escape what it is given, so
the driver's `write()` — the one way out to the terminal — drops them (`drop_c1_and_bidi`).
"""

from __future__ import annotations

from textual.driver import Driver

from mcpx.wire.controls import drop_c1_and_bidi


def safe_driver(base: type[Driver]) -> type[Driver]:
    """`base` with a `write()` that drops C1 controls and bidi overrides."""

    class SafeDriver(base):  # type: ignore[valid-type,misc]
        def write(self, data: str) -> None:
            super().write(drop_c1_and_bidi(data))

    SafeDriver.__name__ = SafeDriver.__qualname__ = f"Safe{base.__name__}"
    return SafeDriver
