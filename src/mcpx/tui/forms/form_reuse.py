"""Another schema of the same shape, shown in field views already built (`SchemaForm.retarget`).

Building a tool's form composes, styles and lays out some twenty widgets (~200 ms of CPU in a 20,000-tool
catalogue, each time the highlight rests on a tool). Real servers' tools often share a shape and differ in
their fields' titles, descriptions, defaults or enum options: the next tool's form is then the same
widgets with other words in them. `fits(view, node)` says whether a built view can show `node` that way —
same view kind and editor, the same nested fields in the same order, nothing the user added (array
items, key rows, a recomposition still due); `retarget(view, node)` points the view at `node` and puts in
its widgets what a freshly built view of `node` would show: label, help, placeholder, value, options.

A view kind without an entry here never fits (the form is then built anew): variants, nullables, JSON
and multi-select editors keep state a retext could miss. Programmatic changes are made with the editors'
Changed messages held back, as a fresh editor starts without one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Collapsible, Input, Select, Static

from mcpx.schema.form import MISSING, ArrayNode, BooleanNode, EnumNode, Node, ObjectNode
from mcpx.schema.nodes import dumps
from mcpx.tui.forms.schema_fields import (
    BooleanField,
    ConstField,
    EnumField,
    FieldView,
    TextField,
    placeholder,
    retext,
    view_class,
)
from mcpx.tui.forms.schema_groups import ArrayField, ObjectField, expand_label, group_title


def fits(view: FieldView, node: Node) -> bool:
    """Whether `view`, as it stands, can show `node` by retexting and resetting its widgets."""
    check = _KINDS.get(type(view))
    return check is not None and _frame_fits(view, node) and check[0](view, node)


def retarget(view: FieldView, node: Node) -> None:
    """Show `node` (for which `fits` said yes) in `view`, as a fresh view of it would."""
    old = view.node
    view.node = node
    if not view.bare:
        for label in view.query_children(".field-label").results(Static):
            retext(label, view.label())
    description = node.spec.description
    if description:
        for help_text in _own(view, ".field-help"):
            if isinstance(help_text, Static):
                retext(help_text, Content(description.strip()))
    _KINDS[type(view)][1](view, node, old)


# -- the frame every view shares ---------------------------------------------------------------------------
def _frame_fits(view: FieldView, node: Node) -> bool:
    old = view.node
    return (
        view_class(node) is type(view)  # the same node kind, or string and number (both an Input)
        and not view._recompose_required  # a structural edit not yet shown: the widgets are not the node's
        and node.spec.read_only == old.spec.read_only
        and (node.spec.description is None) == (old.spec.description is None)
    )


def _owner(widget: Widget) -> FieldView | None:
    parent = widget.parent
    while parent is not None and not isinstance(parent, FieldView):
        parent = parent.parent
    return parent if isinstance(parent, FieldView) else None


def _own(view: FieldView, selector: str) -> list[Widget]:
    """The widgets matching `selector` that belong to `view` itself, not to a nested field."""
    return [widget for widget in view.query(selector) if _owner(widget) is view]


def _nested(view: FieldView) -> list[FieldView]:
    return [child for child in view.query(FieldView) if _owner(child) is view]


# -- kinds -------------------------------------------------------------------------------------------------
def _anything(view: FieldView, node: Node) -> bool:
    return True


def _text(view: FieldView, node: Node, old: Node) -> None:
    box = view.query_children(Input).first()
    box.placeholder = placeholder(node)
    text = getattr(node, "text", "")
    with box.prevent(Input.Changed):
        box.value = text
    box.cursor_position = len(text)  # where a fresh Input puts it
    # a fresh Input validates the text it starts with (its classes say so), and nothing when it is empty
    box.remove_class("-valid", "-invalid")
    if text:
        box.validate(text)


def _checkbox(node: Node) -> bool:
    return node.spec.required or node.spec.default is not MISSING


def _boolean_fits(view: FieldView, node: Node) -> bool:
    return _checkbox(node) == _checkbox(view.node)


def _boolean(view: FieldView, node: Node, old: Node) -> None:
    assert isinstance(node, BooleanNode)
    for box in view.query_children(Checkbox):
        with box.prevent(Checkbox.Changed):
            box.value = bool(node.checked)
    for select in view.query_children(Select):
        with select.prevent(Select.Changed):
            select.value = Select.NULL if node.checked is None else node.checked


def _enum(view: FieldView, node: Node, old: Node) -> None:
    assert isinstance(node, EnumNode) and isinstance(old, EnumNode)
    select: Select[Any] = view.query_children(Select).first()
    with select.prevent(Select.Changed):
        if [c.label for c in node.choices] != [c.label for c in old.choices]:
            select.set_options([(choice.label, i) for i, choice in enumerate(node.choices)])
        select.value = Select.NULL if node.selected is None else node.selected


def _const(view: FieldView, node: Node, old: Node) -> None:
    for shown in view.query_children(".const-value").results(Static):
        retext(shown, Content.styled(dumps(getattr(node, "const", None)), "$text-accent"))


def _object_fits(view: FieldView, node: Node) -> bool:
    old = view.node
    assert isinstance(node, ObjectNode) and isinstance(old, ObjectNode)
    if (
        node.present != old.present
        or node.spec.required != old.spec.required
        or (node.additional is None) != (old.additional is None)
        or node.rows
        or old.rows
    ):
        return False
    if not node.present:
        return not _nested(view)
    if list(node.fields) != list(old.fields):
        return False
    views = {id(child.node): child for child in _nested(view)}
    if len(views) != len(old.fields):
        return False
    for name, child in old.fields.items():
        shown = views.get(id(child))
        if shown is None or not fits(shown, node.fields[name]):
            return False
    return True


def _object(view: FieldView, node: Node, old: Node) -> None:
    assert isinstance(node, ObjectNode) and isinstance(old, ObjectNode)
    if not node.present:
        for button in _own(view, "Button.add-button"):
            if isinstance(button, Button) and button.name == "expand":
                button.label = expand_label(node)
        return
    for group in _own(view, "Collapsible"):
        if isinstance(group, Collapsible):
            group.title = group_title(node)
            group.collapsed = False
    views = {id(child.node): child for child in _nested(view)}
    for name, child in old.fields.items():
        retarget(views[id(child)], node.fields[name])


def _array_fits(view: FieldView, node: Node) -> bool:
    old = view.node
    assert isinstance(node, ArrayNode) and isinstance(old, ArrayNode)
    return not node.items and not old.items and not _nested(view)


def _nothing(view: FieldView, node: Node, old: Node) -> None:
    pass


_Fits = Callable[[FieldView, Node], bool]
_Retarget = Callable[[FieldView, Node, Node], None]
_KINDS: dict[type[FieldView], tuple[_Fits, _Retarget]] = {
    TextField: (_anything, _text),
    BooleanField: (_boolean_fits, _boolean),
    EnumField: (_anything, _enum),
    ConstField: (_anything, _const),
    ObjectField: (_object_fits, _object),
    ArrayField: (_array_fits, _nothing),
}
