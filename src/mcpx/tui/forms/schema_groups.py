"""The form's group fields: objects (collapsible, with key/value rows) and arrays (add, remove, move).

An optional object starts as an "add" button and is built when pressed (so a recursive schema opens one
level per press); array items and key/value rows carry small buttons named after what they do.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Collapsible, Input, Static

from mcpx.schema.form import ArrayNode, ObjectNode
from mcpx.tui.forms.schema_fields import FieldView, field_view


def expand_label(node: ObjectNode) -> str:
    """The button of an optional object left out."""
    return f"+ {node.spec.title or 'object'}"


def group_title(node: ObjectNode) -> str:
    """The title of an object's collapsible group: its name, required mark and number of fields."""
    title = (node.spec.title or "object") + (" *" if node.spec.required else "")
    count = len(node.fields) + len(node.rows)
    return f"{title}  · {count} field{'s' if count != 1 else ''}"


class ObjectField(FieldView):
    """Named fields in a collapsible group, then key/value rows for additional properties."""

    def compose(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, ObjectNode)
        if node.present and not self.bare and node.path != ():  # the group's title is the label
            yield from self.editor()
            yield Static("", classes="field-error")
            return
        yield from super().compose()

    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, ObjectNode)
        if not node.present:
            yield Button(expand_label(node), name="expand", classes="add-button", compact=True)
            return
        if node.path == () or self.bare:
            yield from self._body(node)
            return
        with Collapsible(title=group_title(node), collapsed=False):
            yield from self._body(node)

    def _body(self, node: ObjectNode) -> ComposeResult:
        if node.path != () and node.spec.description:
            yield Static(Content(node.spec.description.strip()), classes="field-help")
        for child in node.fields.values():
            yield field_view(child)
        for index, row in enumerate(node.rows):
            with Horizontal(classes="field-row"):
                yield Input(row.key, placeholder="key", classes="row-key", name=f"key:{index}", compact=True)
                yield field_view(row.node, bare=True)
                yield Button("✕", name=f"drop-row:{index}", tooltip="Remove this key", compact=True)
        buttons = []
        if node.additional is not None:
            buttons.append(Button("+ key", name="add-row", classes="add-button", compact=True))
        if node.path != () and not node.spec.required:
            buttons.append(Button("✕ leave out", name="collapse", classes="add-button", compact=True))
        if buttons:
            yield Horizontal(*buttons, classes="field-row")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if not self.owns(event.button):
            return
        event.stop()
        node = self.node
        assert isinstance(node, ObjectNode)
        action, _, index = (event.button.name or "").partition(":")
        if action == "expand":
            node.expand()
        elif action == "collapse":
            node.present = False
        elif action == "add-row":
            node.add_row()
        elif action == "drop-row" and index.isdigit() and int(index) < len(node.rows):
            node.remove_row(node.rows[int(index)])
        else:
            return
        self.edited(structural=True)

    @on(Input.Changed, ".row-key")
    def _renamed(self, event: Input.Changed) -> None:
        if not self.owns(event.input):
            return
        event.stop()
        node = self.node
        assert isinstance(node, ObjectNode)
        _, _, index = (event.input.name or "").partition(":")
        if index.isdigit() and int(index) < len(node.rows):
            row = node.rows[int(index)]
            if row.key != event.value:
                node.rename_row(row, event.value)
                self.edited()


class ArrayField(FieldView):
    """Items of one schema, each with move-up, move-down and remove; an add button below."""

    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, ArrayNode)
        for index, item in enumerate(node.items):
            with Horizontal(classes="field-row array-item"):
                yield field_view(item, bare=True)
                with Vertical(classes="row-buttons"):
                    yield Button("↑", name=f"up:{index}", tooltip="Move up", compact=True)
                    yield Button("↓", name=f"down:{index}", tooltip="Move down", compact=True)
                    yield Button("✕", name=f"drop:{index}", tooltip="Remove this item", compact=True)
        yield Button(f"+ item ({len(node.items)})", name="add", classes="add-button", compact=True)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if not self.owns(event.button):
            return
        event.stop()
        node = self.node
        assert isinstance(node, ArrayNode)
        action, _, where = (event.button.name or "").partition(":")
        index = int(where) if where.isdigit() else -1
        if action == "add":
            node.add()
        elif action == "drop" and 0 <= index < len(node.items):
            node.remove(index)
        elif action == "up" and index > 0:
            node.move(index, index - 1)
        elif action == "down" and 0 <= index < len(node.items) - 1:
            node.move(index, index + 1)
        else:
            return
        self.edited(structural=True)
