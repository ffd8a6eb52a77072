"""Fixtures of the TUI tests: no blinking cursors (snapshots must not flap), the scripted session on path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """Freeze every cursor in its visible state (as harlequin's tests do)."""
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    monkeypatch.setattr(TextArea, "_toggle_cursor", lambda self: None, raising=False)
    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)  # Textual 8's name
