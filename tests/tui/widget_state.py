"""`widget_state(root)`: every widget under `root` as a user would see it, for comparing two screens' parts.

Kind, id, classes, shown or not, enabled, and what each kind shows or holds: a Static's text (with its
styles), an Input's value, placeholder and cursor, a button's label and tooltip, a checkbox's tick, a
Select's value and options, a collapsible's title and state, the node path of a form's field view.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Collapsible, Input, Select, Static

from mcpx.tui.forms.schema_fields import FieldView


def _text(content: object) -> object:
    """A Static's text and styles ("" and an empty Content show the same)."""
    return (content.plain, tuple(content.spans)) if isinstance(content, Content) else (str(content), ())


def widget_state(root: DOMNode) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for widget in root.walk_children():
        assert isinstance(widget, Widget)
        row: list[Any] = [type(widget).__name__, widget.id, sorted(widget.classes), widget.display]
        row += [widget.visible, widget.disabled]
        if isinstance(widget, Static):
            row.append(_text(widget.content))
        if isinstance(widget, Input):
            row += [widget.value, widget.placeholder, widget.cursor_position]
        if isinstance(widget, Button):
            row += [str(widget.label), widget.tooltip, widget.name]
        if isinstance(widget, Checkbox):
            row.append(widget.value)
        if isinstance(widget, Select):
            row += [widget.value, [str(prompt) for prompt, _ in widget._options]]
        if isinstance(widget, Collapsible):
            row += [widget.title, widget.collapsed]
        if isinstance(widget, FieldView):
            row.append(widget.node.path)
        rows.append(tuple(row))
    return rows
