"""`FormModel`: a JSON Schema as a tree of fields, free of any UI (the TUI's form and the elicitation
screen render it).

    model = FormModel(tool["inputSchema"])
    model.root                 # an ObjectNode: walk its fields and render one widget per kind
    model.value()              # the arguments object to send
    model.load({"a": 1})       # the other way (a raw JSON view switching back to the form)
    model.issues()             # typed-text problems and jsonschema errors, each with a field path

Kinds (`node.kind`): string, number, boolean, enum, const, multi, array, object, variant, nullable, json.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from mcpx.schema.build import SchemaBuilder
from mcpx.schema.composite import ArrayNode, NullableNode, ObjectNode, VariantNode
from mcpx.schema.nodes import (
    MISSING,
    BooleanNode,
    Choice,
    ConstNode,
    EnumNode,
    JsonNode,
    MultiNode,
    Node,
    NumberNode,
    Path,
    Row,
    Spec,
    StringNode,
)
from mcpx.schema.validate import Issue, validate, validator_for

__all__ = [
    "MISSING",
    "ArrayNode",
    "BooleanNode",
    "Choice",
    "ConstNode",
    "EnumNode",
    "FormModel",
    "Issue",
    "JsonNode",
    "MultiNode",
    "Node",
    "NullableNode",
    "NumberNode",
    "ObjectNode",
    "Path",
    "Row",
    "Spec",
    "StringNode",
    "VariantNode",
]

_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


class FormModel:
    """The form of one schema (a tool's inputSchema, an elicitation's requestedSchema)."""

    def __init__(self, schema: Any) -> None:
        self.schema: dict[str, Any] = schema if isinstance(schema, dict) else dict(_OBJECT)
        self.builder = SchemaBuilder(self.schema)
        self.root: Node = self.builder.build(self.schema, Spec({}), ())
        if isinstance(self.root, ObjectNode):
            self.root.expand()
        self._validator: Any = None

    def value(self) -> Any:
        """The JSON value to send (an object for a tool's arguments; `{}` when nothing is filled)."""
        value = self.root.value()
        if value is MISSING:
            # `{"type": "object"}` with no properties (a tool that takes no arguments, or any) is a JSON
            # editor: left empty it is still an object, `{}`, as the schema asks
            object_schema = isinstance(self.root, ObjectNode) or self.schema.get("type") == "object"
            return {} if object_schema else None
        return value

    def load(self, value: Any) -> None:
        """Show `value` in the form: what does not fit a field's kind lands in a JSON editor for it."""
        fresh = self.builder.build(self.schema, Spec({}), (), defaults=False)
        if not fresh.load(value):
            json_node = JsonNode(Spec(self.schema), "the value does not fit the schema")
            json_node.load(value)
            fresh = json_node
        self.root = fresh

    def reset(self) -> None:
        """Back to the schema's defaults."""
        self.root = self.builder.build(self.schema, Spec({}), ())
        if isinstance(self.root, ObjectNode):
            self.root.expand()

    def nodes(self) -> list[Node]:
        return list(self.root.walk())

    def issues(self) -> list[Issue]:
        """Problems of the typed text first (a number field holding "abc"), then of the value."""
        local = [Issue(node.path, node.local_error, "text") for node in self.root.walk() if node.local_error]
        if self._validator is None:
            try:
                self._validator = validator_for(self.schema)
            except Exception as exc:
                return [*local, Issue((), f"the schema cannot be used for validation: {exc}", "schema")]
        seen = {issue.path for issue in local}
        chosen = {node.path: node.chosen for node in self.root.walk() if isinstance(node, VariantNode)}
        schema_issues = validate(self.schema, self.value(), self._validator, chosen)
        return local + [issue for issue in schema_issues if issue.path not in seen]

    def issues_by_path(self) -> dict[Path, list[str]]:
        grouped: dict[Path, list[str]] = defaultdict(list)
        for issue in self.issues():
            grouped[issue.path].append(issue.message)
        return dict(grouped)
