"""Reading JSON Schemas as servers send them: local `$ref`s, `allOf` merges, type lists, labels.

Nothing here raises on a strange schema: what cannot be read returns None and the caller falls back to a
JSON editor for that sub-tree.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

#: keywords that only describe (merged freely when a `$ref` has siblings)
Schema = dict[str, Any]
_NULL: Schema = {"type": "null"}


def pointer(root: Any, ref: str) -> Any:
    """The sub-schema a local reference (`#`, `#/$defs/x`, `#/definitions/x`) points at, or None."""
    if not ref.startswith("#"):
        return None
    fragment = unquote(ref[1:])
    if fragment == "":
        return root
    if not fragment.startswith("/"):
        return _anchor(root, fragment)
    node = root
    for token in fragment[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _anchor(root: Any, name: str) -> Any:
    """A plain-name fragment (`$anchor` in 2020-12, `$id: "#name"` in draft-07)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("$anchor") == name or node.get("$id") == f"#{name}":
                return node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def resolve(root: Any, schema: Any, seen: tuple[str, ...] = ()) -> tuple[Schema | None, tuple[str, ...]]:
    """Follow `$ref` (with its siblings merged over the target) until a schema without one.

    Returns the schema (None when a reference cannot be followed) and the refs followed on the way,
    appended to `seen` — callers use it to expand recursive schemas on demand only.
    """
    if schema is True:
        return {}, seen
    if not isinstance(schema, dict):
        return None, seen
    hops = 0
    while "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str) or hops > 32:
            return None, seen
        target = pointer(root, ref)
        if target is True:
            target = {}
        if not isinstance(target, dict):
            return None, seen
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
        seen = (*seen, ref)
        hops += 1
    return schema, seen


def why_unresolved(root: Any, schema: Any) -> str:
    """Why `resolve` gave up on `schema`, in words for the form: a cycle of `$ref`s, or one that points
    nowhere (the chain is named, so the user can find it in the schema)."""
    if not isinstance(schema, dict):
        return "a false schema"
    chain: list[str] = []
    while isinstance(schema, dict) and "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            return "a $ref that is not a string"
        if ref in chain:
            loop = " → ".join([*chain[chain.index(ref) :], ref])
            return f"a $ref cycle that never reaches a schema ({loop})"
        chain.append(ref)
        schema = pointer(root, ref)
        if len(chain) > 32:
            return f"a chain of more than 32 $refs ({chain[0]} → …)"
    if schema is True or isinstance(schema, dict):
        return "a $ref mcpx cannot follow"
    return f"a $ref that points at nothing in the schema ({chain[-1] if chain else '?'})"


def types_of(schema: Schema) -> list[str]:
    """The `type` keyword as a list (empty when absent or unreadable)."""
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    return []


def is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and (
        types_of(schema) == ["null"] or ("const" in schema and schema["const"] is None and len(schema) <= 3)
    )


def merge_all_of(root: Any, schema: Schema) -> Schema | None:
    """`allOf` folded into one schema when every part is a plain object schema; None otherwise."""
    parts = schema.get("allOf")
    if not isinstance(parts, list):
        return schema
    merged: Schema = {k: v for k, v in schema.items() if k != "allOf"}
    properties: dict[str, Any] = dict(merged.get("properties") or {})
    required: list[Any] = list(merged.get("required") or [])
    for part in parts:
        resolved, _ = resolve(root, part)
        if resolved is None or "allOf" in resolved or any(k in resolved for k in ("oneOf", "anyOf")):
            return None
        if resolved.get("type", "object") != "object" and not (set(resolved) <= _ANNOTATIONS):
            return None
        properties.update(resolved.get("properties") or {})
        required += [r for r in resolved.get("required") or [] if r not in required]
        for key, value in resolved.items():
            if key not in ("properties", "required"):
                merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged


_ANNOTATIONS = {
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
}


def label_of(root: Any, schema: Any, index: int) -> str:
    """A short name for a `oneOf`/`anyOf` option: its title, its `$ref` name, its const or its type."""
    if isinstance(schema, dict):
        if isinstance(schema.get("title"), str):
            return str(schema["title"])
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return ref.rsplit("/", 1)[-1]
        resolved, _ = resolve(root, schema)
        if resolved is not None:
            if isinstance(resolved.get("title"), str):
                return str(resolved["title"])
            props = resolved.get("properties")
            if isinstance(props, dict):  # a discriminated union names itself by its const property
                for name, prop in props.items():
                    if isinstance(prop, dict) and isinstance(prop.get("const"), str):
                        return f"{name}={prop['const']}"
            types = types_of(resolved)
            if types:
                return " | ".join(types)
            if "const" in resolved:
                return repr(resolved["const"])
    return f"option {index + 1}"
