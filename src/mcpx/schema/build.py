"""From a JSON Schema (draft 2020-12 or draft-07) to a tree of field nodes.

`SchemaBuilder.build()` picks a node kind per sub-schema: const, enum (plain, titled `oneOf`/`anyOf` of
`const`+`title`, legacy `enumNames`), nullable (`type` lists with "null", `anyOf` with a null option),
`oneOf`/`anyOf` variants, strings, numbers, booleans, arrays (of enums: a multi-select), objects; `$ref`
is followed and `allOf` of objects merged. Anything else becomes a JSON editor for that sub-tree.
"""

from __future__ import annotations

from typing import Any

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
    Spec,
    StringNode,
    dumps,
)
from mcpx.schema.refs import Schema, is_null, label_of, merge_all_of, resolve, types_of, why_unresolved

#: deeper than this, a sub-tree is a JSON editor (a schema nesting itself through required fields)
MAX_DEPTH = 48
_ANNOTATIONS = ("title", "description", "default", "readOnly", "writeOnly", "deprecated", "x-mcp-header")


def _label(value: Any) -> str:
    return value if isinstance(value, str) else dumps(value)


class SchemaBuilder:
    """Builds nodes for sub-schemas of one root schema (the one `$ref`s point into)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._validators: dict[int, Any] = {}

    def fits(self, schema: Schema, value: Any) -> bool:
        """Whether `value` is valid against `schema`, a sub-schema of the root (its `$ref`s resolve)."""
        from mcpx.schema.validate import validator_for

        try:
            key = id(schema)
            if key not in self._validators:
                self._validators[key] = validator_for(schema, self.root)
            return bool(self._validators[key].is_valid(value))
        except Exception:  # a schema jsonschema cannot read fits nothing
            return False

    def build(self, schema: Any, spec: Spec, refs: tuple[str, ...] = (), *, defaults: bool = True) -> Node:
        resolved, refs = resolve(self.root, schema, refs)
        if resolved is None:
            spec.schema = schema if isinstance(schema, dict) else {}
            return JsonNode(spec, f"{why_unresolved(self.root, schema)}: type the value as JSON")
        if "allOf" in resolved:
            merged = merge_all_of(self.root, resolved)
            if merged is None:
                spec.schema = resolved
                return JsonNode(spec, "allOf of schemas that are not objects")
            resolved = merged
        spec.schema = resolved
        if "default" in resolved:
            spec.default = resolved["default"]
        if len(spec.path) > MAX_DEPTH:
            # a schema thousands of levels deep would build (and draw) a field per level: the rest is
            # one JSON field, and the sentence says where the whole schema is
            return JsonNode(
                spec,
                f"nested deeper than {MAX_DEPTH} levels: from here the value is typed as JSON "
                "(the whole schema is in the tool's detail, and in the traffic log's tools/list answer)",
            )
        node = self._make(resolved, spec, refs)
        if defaults and spec.default is not MISSING:
            node.load(spec.default)
        return node

    def _make(self, schema: Schema, spec: Spec, refs: tuple[str, ...]) -> Node:
        if "const" in schema:
            return ConstNode(spec, schema["const"])
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            names = schema.get("enumNames")
            if isinstance(names, list) and len(names) == len(enum):
                choices = [Choice(v, str(n)) for v, n in zip(enum, names, strict=True)]
            else:
                choices = [Choice(v, _label(v)) for v in enum]
            return EnumNode(spec, choices)
        for keyword in ("oneOf", "anyOf"):
            options = schema.get(keyword)
            if isinstance(options, list) and options:
                return self._union(schema, keyword, options, spec, refs)
        types = types_of(schema)
        concrete = [t for t in types if t != "null"]
        if "null" in types and concrete:
            inner_spec = Spec(schema, spec.path, spec.name, spec.required)
            one = {**schema, "type": concrete[0] if len(concrete) == 1 else concrete}
            return NullableNode(spec, self._make(one, inner_spec, refs))
        if len(concrete) > 1:
            options = [(t, {**schema, "type": t}) for t in concrete]
            return VariantNode(spec, self, refs, options)
        kind = concrete[0] if concrete else None
        if kind is None:
            if isinstance(schema.get("properties"), dict):
                kind = "object"
            elif "items" in schema:
                kind = "array"
            elif types == ["null"]:
                return ConstNode(spec, None)
        if kind == "string":
            return StringNode(spec)
        if kind in ("number", "integer"):
            return NumberNode(spec, integer=kind == "integer")
        if kind == "boolean":
            return BooleanNode(spec)
        if kind == "array":
            return self._array(schema, spec, refs)
        if kind == "object":
            return self._object(schema, spec, refs)
        return JsonNode(spec, "any JSON value" if not schema.keys() - set(_ANNOTATIONS) else "")

    def _object(self, schema: Schema, spec: Spec, refs: tuple[str, ...]) -> Node:
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        if not isinstance(props, dict) and not isinstance(extra, dict) and extra is not True:
            return JsonNode(spec, "an object without properties")
        recursive = len(refs) != len(set(refs))
        present = (spec.path == () or spec.required or spec.default is not MISSING) and not recursive
        return ObjectNode(spec, self, refs, present=present)

    def _array(self, schema: Schema, spec: Spec, refs: tuple[str, ...]) -> Node:
        items = schema.get("items", True)
        if isinstance(schema.get("prefixItems"), list) or isinstance(items, list):
            return JsonNode(spec, "a tuple (prefixItems)")
        resolved, _ = resolve(self.root, items)
        if resolved is not None:
            choices = self._choices(resolved)
            if choices is not None:
                return MultiNode(spec, choices)
        return ArrayNode(spec, self, refs, items)

    def _choices(self, schema: Schema) -> list[Choice] | None:
        """A list of values to pick from, if the schema is one (enum, or options that are all consts)."""
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            names = schema.get("enumNames")
            if isinstance(names, list) and len(names) == len(enum):
                return [Choice(v, str(n)) for v, n in zip(enum, names, strict=True)]
            return [Choice(v, _label(v)) for v in enum]
        for keyword in ("oneOf", "anyOf"):
            options = schema.get(keyword)
            if isinstance(options, list) and options:
                consts = [resolve(self.root, o)[0] for o in options]
                if all(isinstance(c, dict) and "const" in c for c in consts):
                    return [
                        Choice(c["const"], str(c.get("title") or _label(c["const"])))
                        for c in consts
                        if c is not None
                    ]
        return None

    def _union(
        self, schema: Schema, keyword: str, options: list[Any], spec: Spec, refs: tuple[str, ...]
    ) -> Node:
        base = {k: v for k, v in schema.items() if k not in (keyword, "default")}
        nullable = any(is_null(resolve(self.root, o)[0]) for o in options)
        rest = [o for o in options if not is_null(resolve(self.root, o)[0])]
        if not rest:
            return ConstNode(spec, None)
        choices = self._choices({keyword: rest})
        if choices is not None:
            if nullable:
                choices.append(Choice(None, "null"))
            return EnumNode(spec, choices)
        shape = {k: v for k, v in base.items() if k not in _ANNOTATIONS}
        merged = [(label_of(self.root, o, i), self._with_base(shape, o)) for i, o in enumerate(rest)]
        inner_spec = Spec(schema, spec.path, spec.name, spec.required)
        if len(merged) == 1:
            inner = self.build(merged[0][1], inner_spec, refs, defaults=False)
            told = {k: schema[k] for k in _ANNOTATIONS if k in schema and k != "default"}
            inner.spec.schema = {**inner.spec.schema, **told}
        else:
            inner = VariantNode(inner_spec, self, refs, merged)
        return NullableNode(spec, inner) if nullable else inner

    def _with_base(self, shape: Schema, option: Any) -> Any:
        """An option with the union's own keywords (shared properties, type) merged in."""
        if not shape:
            return option
        resolved, _ = resolve(self.root, option)
        if resolved is None:
            return option
        merged = {**shape, **resolved}
        if isinstance(shape.get("properties"), dict) and isinstance(resolved.get("properties"), dict):
            merged["properties"] = {**shape["properties"], **resolved["properties"]}
        if isinstance(shape.get("required"), list) and isinstance(resolved.get("required"), list):
            merged["required"] = list(dict.fromkeys([*shape["required"], *resolved["required"]]))
        return merged
