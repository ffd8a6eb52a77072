"""Small DOM helpers every feature uses."""

from __future__ import annotations

from typing import TypeVar

from textual.widget import Widget

W = TypeVar("W", bound=Widget)


def child(widget: Widget, selector: str, kind: type[W]) -> W | None:
    """`widget.query_one(selector, kind)`, or None while (or after) the widget is being removed."""
    found = widget.query(selector).results(kind)
    return next(iter(found), None)
