"""Field nodes that hold other nodes: objects, arrays, `oneOf`/`anyOf` variants and nullable values.

Children are built on demand through a `Builder` (see build.py): an optional object's fields only when
it is first expanded, a variant's fields only when it is chosen, array items when added — so a recursive
schema unfolds one level per request and never forever.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from mcpx.schema.nodes import MISSING, JsonNode, Node, Path, Row, Spec
from mcpx.schema.refs import Schema


class Builder(Protocol):
    def build(self, schema: Any, spec: Spec, refs: tuple[str, ...], *, defaults: bool = True) -> Node: ...

    def fits(self, schema: Schema, value: Any) -> bool: ...


def _load_or_json(builder: Builder, node: Node, value: Any) -> Node:
    """`node` holding `value`, or a JSON editor holding it when the node's kind cannot."""
    if node.load(value):
        return node
    spec = Spec(node.spec.schema, node.spec.path, node.spec.name, node.spec.required)
    fallback = JsonNode(spec, "the value does not fit the schema's fields")
    fallback.load(value)
    return fallback


class ObjectNode(Node):
    """Named fields (collapsible), plus key/value rows for `additionalProperties`."""

    kind = "object"

    def __init__(
        self,
        spec: Spec,
        builder: Builder,
        refs: tuple[str, ...],
        *,
        present: bool,
    ) -> None:
        super().__init__(spec)
        self.builder = builder
        self.refs = refs
        schema = spec.schema
        props = schema.get("properties")
        self.properties: dict[str, Any] = props if isinstance(props, dict) else {}
        required = schema.get("required")
        self.required_names = (
            {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
        )
        extra = schema.get("additionalProperties")
        if extra is None and isinstance(schema.get("patternProperties"), dict):
            extra = next(iter(schema["patternProperties"].values()), None)
        #: the schema of key/value rows the user may add (None: the object offers none)
        self.additional: Any = extra if isinstance(extra, dict) or extra is True else None
        self.present = present
        self.rows: list[Row] = []
        self._fields: dict[str, Node] | None = None

    @property
    def fields(self) -> dict[str, Node]:
        if self._fields is None:
            self._fields = {name: self._build_field(name, True) for name in self.properties}
        return self._fields

    @property
    def built(self) -> bool:
        return self._fields is not None

    def _build_field(self, name: str, defaults: bool) -> Node:
        spec = Spec({}, (*self.path, name), name, name in self.required_names)
        return self.builder.build(self.properties[name], spec, self.refs, defaults=defaults)

    def expand(self) -> None:
        """Include this (optional) object and build its fields."""
        self.present = True
        _ = self.fields

    def children(self) -> Iterator[tuple[str | int, Node]]:
        if self._fields is not None:
            yield from self._fields.items()
        for row in self.rows:
            yield row.key, row.node

    def add_row(self, key: str = "") -> Row:
        schema = self.additional if self.additional is not None else True
        node = self.builder.build(schema, Spec({}, (*self.path, key), key), self.refs)
        row = Row(key, node)
        self.rows.append(row)
        self.present = True
        return row

    def rename_row(self, row: Row, key: str) -> None:
        row.key = key
        row.node.spec.name = key
        row.node.relocate((*self.path, key))

    def remove_row(self, row: Row) -> None:
        self.rows.remove(row)

    def value(self) -> Any:
        if not self.present:
            return MISSING
        out: dict[str, Any] = {}
        for name, node in self.fields.items():
            if node.spec.read_only:
                continue
            value = node.value()
            if value is not MISSING:
                out[name] = value
        for row in self.rows:
            value = row.node.value()
            if row.key and value is not MISSING:
                out[row.key] = value
        return out

    def load(self, value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        self.present = True
        self.rows = []
        fields: dict[str, Node] = {}
        for name in self.properties:
            node = self._build_field(name, False)
            if name in value:
                node = _load_or_json(self.builder, node, value[name])
            elif node.spec.read_only and self._fields is not None and name in self._fields:
                node = self._fields[name]  # shown, never sent: keep what the schema said
            fields[name] = node
        self._fields = fields
        for key, item in value.items():
            if key not in self.properties:
                row = self.add_row(key)
                row.node = _load_or_json(self.builder, row.node, item)
        return True


class ArrayNode(Node):
    """A list of items of one schema: add, remove, move."""

    kind = "array"

    def __init__(self, spec: Spec, builder: Builder, refs: tuple[str, ...], item_schema: Any) -> None:
        super().__init__(spec)
        self.builder = builder
        self.refs = refs
        self.item_schema = item_schema
        self.items: list[Node] = []

    def children(self) -> Iterator[tuple[str | int, Node]]:
        yield from enumerate(self.items)

    def _item(self, index: int, defaults: bool = True) -> Node:
        spec = Spec({}, (*self.path, index), None, True)
        return self.builder.build(self.item_schema, spec, self.refs, defaults=defaults)

    def add(self) -> Node:
        node = self._item(len(self.items))
        self.items.append(node)
        self.touched = True
        return node

    def remove(self, index: int) -> None:
        del self.items[index]
        self.touched = True
        self._renumber()

    def move(self, index: int, to: int) -> None:
        if not (0 <= index < len(self.items) and 0 <= to < len(self.items)):
            return
        self.items.insert(to, self.items.pop(index))
        self._renumber()

    def _renumber(self) -> None:
        for i, node in enumerate(self.items):
            node.relocate((*self.path, i))

    def value(self) -> Any:
        if not self.items and not self.touched and not self.spec.required:
            return MISSING
        values = [node.value() for node in self.items]
        # an item is always sent: an empty text is "", anything else left empty is null
        return [
            ("" if node.kind == "string" else None) if v is MISSING else v
            for node, v in zip(self.items, values, strict=True)
        ]

    def load(self, value: Any) -> bool:
        if not isinstance(value, list):
            return False
        self.items = [_load_or_json(self.builder, self._item(i, False), v) for i, v in enumerate(value)]
        self.touched = True
        return True


class VariantNode(Node):
    """`oneOf`/`anyOf`: a selector of options, then the chosen option's fields (each kept when switching)."""

    kind = "variant"

    def __init__(
        self, spec: Spec, builder: Builder, refs: tuple[str, ...], options: list[tuple[str, Any]]
    ) -> None:
        super().__init__(spec)
        self.builder = builder
        self.refs = refs
        self.options = options
        self.chosen = 0
        self._nodes: dict[int, Node] = {}

    def _build(self, index: int, defaults: bool = True) -> Node:
        spec = Spec({}, self.path, self.spec.name, self.spec.required)
        return self.builder.build(self.options[index][1], spec, self.refs, defaults=defaults)

    @property
    def current(self) -> Node:
        if self.chosen not in self._nodes:
            self._nodes[self.chosen] = self._build(self.chosen)
        return self._nodes[self.chosen]

    def choose(self, index: int) -> None:
        if 0 <= index < len(self.options):
            self.chosen = index
            _ = self.current

    def relocate(self, path: Path) -> None:
        self.spec.path = path
        for node in self._nodes.values():
            node.relocate(path)

    def walk(self) -> Iterator[Node]:
        yield self
        yield from self.current.walk()

    def value(self) -> Any:
        return self.current.value()

    def load(self, value: Any) -> bool:
        fitting = [i for i, (_, schema) in enumerate(self.options) if self.builder.fits(schema, value)]
        for index in fitting + [i for i in range(len(self.options)) if i not in fitting]:
            node = self._build(index, False)
            if node.load(value):
                self._nodes[index] = node
                self.chosen = index
                return True
        return False


class NullableNode(Node):
    """A value or an explicit null (`type: [..., "null"]`, or `anyOf` with a null option)."""

    kind = "nullable"

    def __init__(self, spec: Spec, inner: Node) -> None:
        super().__init__(spec)
        self.inner = inner
        self.is_null = False

    def relocate(self, path: Path) -> None:
        self.spec.path = path
        self.inner.relocate(path)

    def walk(self) -> Iterator[Node]:
        yield self
        if not self.is_null:
            yield from self.inner.walk()

    def set_null(self, is_null: bool) -> None:
        self.is_null = is_null
        if not is_null and isinstance(self.inner, ObjectNode):
            self.inner.expand()

    def value(self) -> Any:
        return None if self.is_null else self.inner.value()

    def load(self, value: Any) -> bool:
        if value is None:
            self.is_null = True
            return True
        if self.inner.load(value):
            self.is_null = False
            return True
        return False
