"""One widget per field kind of the form model (`mcpx.schema.form`), used by `SchemaForm`.

A `FieldView` shows a node: its label (required marked, type hints, an `x-mcp-header` badge), its editor,
its help text and its errors. Editors write straight into the node; structural changes (an item added, a
variant chosen, null toggled) recompose the view from the node. Every change posts `FieldView.Edited`.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Select, SelectionList, Static, TextArea

from mcpx.schema.form import (
    MISSING,
    BooleanNode,
    ConstNode,
    EnumNode,
    JsonNode,
    MultiNode,
    Node,
    NullableNode,
    NumberNode,
    StringNode,
    VariantNode,
)
from mcpx.schema.nodes import dumps
from mcpx.tui.widgets.removable_select import RemovableSelect

_FORMAT_HINTS = {
    "email": "name@example.com",
    "uri": "https://…",
    "url": "https://…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDTHH:MM:SSZ",
    "time": "HH:MM:SS",
}


def _bounds(schema: dict[str, Any]) -> list[str]:
    parts = []
    for key, sign in (
        ("minimum", "≥"),
        ("exclusiveMinimum", ">"),
        ("maximum", "≤"),
        ("exclusiveMaximum", "<"),
    ):
        value = schema.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            parts.append(f"{sign} {value:g}")
    if isinstance(schema.get("multipleOf"), (int, float)):
        parts.append(f"× {schema['multipleOf']:g}")
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(low, int) or isinstance(high, int):
        parts.append(f"{low if isinstance(low, int) else 0}–{high if isinstance(high, int) else '∞'} chars")
    low, high = schema.get("minItems"), schema.get("maxItems")
    if isinstance(low, int) or isinstance(high, int):
        parts.append(f"{low if isinstance(low, int) else 0}–{high if isinstance(high, int) else '∞'} items")
    if schema.get("uniqueItems") is True:
        parts.append("unique")
    if isinstance(schema.get("pattern"), str):
        parts.append(f"/{schema['pattern']}/")
    return parts


def type_hint(node: Node) -> str:
    schema = node.spec.schema
    kind = {"number": "integer" if isinstance(node, NumberNode) and node.integer else "number"}.get(
        node.kind, node.kind
    )
    words = {"multi": "choose any", "enum": "choose one", "variant": "one of", "json": "JSON"}.get(kind, kind)
    fmt = schema.get("format")
    parts = [words + (f" · {fmt}" if isinstance(fmt, str) else ""), *_bounds(schema)]
    return " · ".join(parts)


class FieldView(Vertical):
    """A field of the form: label, editor, help, error."""

    DEFAULT_CSS = """
    FieldView { height: auto; margin: 0; }
    FieldView.-bare { margin: 0; }
    FieldView > .field-label { height: auto; }
    FieldView .field-help { color: $text-muted; height: auto; }
    FieldView > .field-error { color: $text-error; height: auto; display: none; }
    FieldView.-invalid > .field-error { display: block; }
    FieldView Input, FieldView Select { width: 1fr; max-width: 80; background: $boost; }
    FieldView.-invalid > Input { background: $error 20%; }
    FieldView TextArea { height: 6; max-width: 100; background: $boost; }
    FieldView .null-shown { width: 1fr; max-width: 80; }
    FieldView .null-toggle { width: auto; margin-left: 1; }
    FieldView Checkbox { width: auto; }
    FieldView .field-row > FieldView { max-width: 82; }
    FieldView .field-row { height: auto; }
    FieldView .field-row > FieldView { width: 1fr; margin: 0; }
    FieldView .field-row > Button { min-width: 5; width: 5; margin: 0 0 0 1; }
    FieldView .row-buttons > Button { min-width: 5; width: 5; margin: 0 0 0 1; }
    FieldView .row-buttons { width: auto; height: auto; }
    FieldView .row-key { width: 24; }
    FieldView Collapsible { padding-left: 1; border-top: none; background: $background; }
    FieldView .add-button { width: auto; min-width: 10; margin: 0; }
    /* focus you can see: compact editors have no border to light up */
    FieldView Input:focus, FieldView TextArea:focus { background-tint: $accent 25%; }
    FieldView Checkbox:focus > .toggle--button { background: $accent; }
    FieldView SelectionList:focus { background-tint: $accent 15%; }
    """

    class Edited(Message):
        """The user changed this field (or its structure)."""

        def __init__(self, view: FieldView) -> None:
            super().__init__()
            self.view = view

    def __init__(self, node: Node, *, bare: bool = False) -> None:
        super().__init__(classes="-bare" if bare else "")
        self.node = node
        self.bare = bare

    # -- building ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        if not self.bare:
            yield Static(self.label(), classes="field-label")
        yield from self.editor()
        if not self.bare and self.node.spec.description:
            yield Static(Content(self.node.spec.description.strip()), classes="field-help")
        yield Static("", classes="field-error")

    def label(self) -> Content:
        spec = self.node.spec
        parts: list[tuple[str, str] | str] = [(spec.title or "(value)", "bold")]
        if spec.required:
            parts.append((" *", "bold $text-error"))
        if spec.name and spec.title and spec.name.lower() != spec.title.lower().replace(" ", "_"):
            parts.append((f"  {spec.name}", "$text-muted"))
        parts.append((f"  {type_hint(self.node)}", "$text-muted"))
        if spec.header:
            parts += ["  ", (f" header {spec.header} ", "$accent reverse")]
        if spec.read_only:
            parts += ["  ", (" read-only: not sent ", "$warning reverse")]
        if spec.deprecated:
            parts += ["  ", (" deprecated ", "$warning reverse")]
        return Content.assemble(*parts)

    def editor(self) -> ComposeResult:
        yield Static(dumps(self.node.value()))

    # -- reporting -----------------------------------------------------------------------------------
    def edited(self, structural: bool = False) -> None:
        if structural:
            self.refresh(recompose=True)
        self.post_message(self.Edited(self))

    def owns(self, widget: Widget) -> bool:
        """Whether `widget` is this view's own control (not one of a nested field's)."""
        node = widget.parent
        while node is not None and not isinstance(node, FieldView):
            node = node.parent
        return node is self

    def show_errors(self, messages: list[str]) -> None:
        self.set_class(bool(messages), "-invalid")
        for error in self.query_children(".field-error").results(Static):
            retext(error, Content("\n".join(f"✗ {m}" for m in messages)))


def retext(static: Static, content: Content) -> None:
    """`static.update(content)` unless it shows that already: each update lays out the whole screen."""
    shown = static.content
    if not (isinstance(shown, Content) and shown.plain == content.plain and shown.spans == content.spans):
        static.update(content)


def placeholder(node: Node) -> str:
    """What a text field's empty editor says: the format's example, else the type."""
    fmt = node.spec.schema.get("format")
    return (_FORMAT_HINTS.get(fmt, fmt) if isinstance(fmt, str) else type_hint(node)) or ""


class TextField(FieldView):
    """Strings and numbers: an Input that keeps exactly what was typed."""

    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, (StringNode, NumberNode))
        yield Input(
            node.text,
            placeholder=placeholder(node),
            disabled=node.spec.read_only,
            select_on_focus=False,
            compact=True,
        )

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        if not self.owns(event.input):
            return
        event.stop()
        node = self.node
        assert isinstance(node, (StringNode, NumberNode))
        if node.text != event.value:
            node.set_text(event.value)
            self.edited()


class BooleanField(FieldView):
    """A checkbox (required or defaulted booleans) or a not-sent/true/false select (optional ones)."""

    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, BooleanNode)
        if node.spec.required or node.spec.default is not MISSING:
            yield Checkbox("", bool(node.checked), disabled=node.spec.read_only, compact=True)
        else:
            value: Any = Select.NULL if node.checked is None else node.checked
            yield RemovableSelect(
                [("true", True), ("false", False)], prompt="(not sent)", value=value, compact=True
            )

    @on(Checkbox.Changed)
    def _checked(self, event: Checkbox.Changed) -> None:
        if self.owns(event.checkbox):
            event.stop()
            assert isinstance(self.node, BooleanNode)
            if self.node.checked is not event.value:
                self.node.checked = event.value
                self.edited()

    @on(Select.Changed)
    def _selected(self, event: Select.Changed) -> None:
        if self.owns(event.select):
            event.stop()
            assert isinstance(self.node, BooleanNode)
            value = None if event.value is Select.NULL else bool(event.value)
            if self.node.checked is not value:
                self.node.checked = value
                self.edited()


class EnumField(FieldView):
    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, EnumNode)
        options = [(choice.label, i) for i, choice in enumerate(node.choices)]
        value: Any = Select.NULL if node.selected is None else node.selected
        yield RemovableSelect(
            options, prompt="(not sent)", value=value, disabled=node.spec.read_only, compact=True
        )

    @on(Select.Changed)
    def _selected(self, event: Select.Changed) -> None:
        if self.owns(event.select):
            event.stop()
            assert isinstance(self.node, EnumNode)
            index = event.value if isinstance(event.value, int) else None
            if self.node.selected != index:
                self.node.selected = index
                self.edited()


class ConstField(FieldView):
    def editor(self) -> ComposeResult:
        assert isinstance(self.node, ConstNode)
        yield Static(Content.styled(dumps(self.node.const), "$text-accent"), classes="const-value")


class MultiField(FieldView):
    """A multi-select of enum values (sent in the order they were picked)."""

    DEFAULT_CSS = "MultiField SelectionList { height: auto; max-height: 10; max-width: 80; }"

    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, MultiNode)
        choices = ((c.label, i, i in node.selected) for i, c in enumerate(node.choices))
        yield SelectionList[int](*choices, compact=True)

    @on(SelectionList.SelectedChanged)
    def _picked(self, event: SelectionList.SelectedChanged[int]) -> None:
        if self.owns(event.selection_list):
            event.stop()
            node = self.node
            assert isinstance(node, MultiNode)
            chosen = set(event.selection_list.selected)
            order = [i for i in node.selected if i in chosen] + sorted(chosen - set(node.selected))
            if order != node.selected:
                node.selected, node.touched = order, True
                self.edited()


class JsonField(FieldView):
    """A JSON editor for a sub-tree the form cannot show as fields."""

    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, JsonNode)
        if node.reason:
            yield Static(Content.styled(f"JSON: {node.reason}", "$text-muted"))
        # Tab leaves the editor (indenting with it trapped focus: there was no way out by keyboard)
        yield TextArea(node.text, tab_behavior="focus", soft_wrap=True, compact=True)

    @on(TextArea.Changed)
    def _typed(self, event: TextArea.Changed) -> None:
        if self.owns(event.text_area):
            event.stop()
            assert isinstance(self.node, JsonNode)
            if self.node.text != event.text_area.text:
                self.node.set_text(event.text_area.text)
                self.edited()


class NullableField(FieldView):
    """An explicit null toggle over the value's own field."""

    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, NullableNode)
        with Horizontal(classes="field-row"):
            if node.is_null:
                yield Static(Content.styled("null", "$text-muted"), classes="null-shown")
            else:
                yield field_view(node.inner, bare=True)
            yield Checkbox("null", node.is_null, classes="null-toggle", compact=True)

    @on(Checkbox.Changed)
    def _toggled(self, event: Checkbox.Changed) -> None:
        if self.owns(event.checkbox) and event.checkbox.has_class("null-toggle"):
            event.stop()
            assert isinstance(self.node, NullableNode)
            if self.node.is_null is not event.value:
                self.node.set_null(event.value)
                self.edited(structural=True)


class VariantField(FieldView):
    """`oneOf`/`anyOf`: choose the option, then fill its fields."""

    def editor(self) -> ComposeResult:
        node = self.node
        assert isinstance(node, VariantNode)
        options = [(label, i) for i, (label, _) in enumerate(node.options)]
        yield RemovableSelect(
            options, value=node.chosen, allow_blank=False, classes="variant-select", compact=True
        )
        yield field_view(node.current, bare=True)

    @on(Select.Changed)
    def _chosen(self, event: Select.Changed) -> None:
        if self.owns(event.select) and event.select.has_class("variant-select"):
            event.stop()
            assert isinstance(self.node, VariantNode)
            if isinstance(event.value, int) and event.value != self.node.chosen:
                self.node.choose(event.value)
                self.edited(structural=True)


def field_view(node: Node, *, bare: bool = False) -> FieldView:
    return view_class(node)(node, bare=bare)


def view_class(node: Node) -> type[FieldView]:
    """The field view that shows a node of this kind."""
    from mcpx.tui.forms.schema_groups import ArrayField, ObjectField

    kinds: dict[str, type[FieldView]] = {
        "string": TextField,
        "number": TextField,
        "boolean": BooleanField,
        "enum": EnumField,
        "const": ConstField,
        "multi": MultiField,
        "json": JsonField,
        "nullable": NullableField,
        "variant": VariantField,
        "object": ObjectField,
        "array": ArrayField,
    }
    return kinds.get(node.kind, FieldView)
