"""Arguments for a tool, made from its `inputSchema`: the smallest instance that validates.

Required properties only (their `default`, `const`, first `enum` value or first example when given, else a
plain value of the type that meets the bounds); local `$ref`s followed; the result is validated with
`jsonschema` in the schema's dialect, so a tool is only called with arguments its own schema accepts.
Also makes arguments that must *not* validate (a required property left out, or of the wrong type), for
checking how a tool reports invalid input.
"""

from __future__ import annotations

from typing import Any

STRING_FORMATS = {
    "date-time": "2025-01-01T00:00:00Z",
    "date": "2025-01-01",
    "time": "00:00:00Z",
    "email": "mcpx@example.com",
    "idn-email": "mcpx@example.com",
    "uri": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "url": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
MAX_DEPTH = 12


class CannotGenerate(Exception):
    """The schema asks for something mcpx cannot make up (a pattern it cannot satisfy, a `not`, …)."""


def validator_for(schema: Any) -> Any:
    """A jsonschema validator for `schema` in its declared dialect (2020-12 when it declares none)."""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def errors_of(schema: Any, instance: Any) -> list[str]:
    """Why `instance` does not validate against `schema` (empty when it does)."""
    try:
        validator = validator_for(schema)
        return [_say(e) for e in validator.iter_errors(instance)][:5]
    except Exception as exc:  # a schema jsonschema cannot even use: say so rather than crash
        return [f"the schema cannot be used to validate ({type(exc).__name__}: {exc})"]


def _say(error: Any) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where or '(root)'}: {error.message}"


def generate(schema: Any) -> dict[str, Any]:
    """Arguments that validate against `schema` (raises `CannotGenerate`)."""
    if not isinstance(schema, dict):
        raise CannotGenerate("the inputSchema is not an object")
    try:
        value = _value(schema, schema, 0)
    except (TypeError, ValueError, AttributeError, RecursionError) as exc:  # a schema of an odd shape
        raise CannotGenerate(f"the inputSchema has an odd shape ({type(exc).__name__}: {exc})") from None
    if not isinstance(value, dict):
        raise CannotGenerate("the inputSchema does not describe an object")
    problems = errors_of(schema, value)
    if problems:
        raise CannotGenerate(f"generated arguments do not validate: {problems[0]}")
    return value


def invalid(schema: Any) -> tuple[dict[str, Any], str] | None:
    """Arguments that do not validate against `schema`, and what is wrong with them (None if none found)."""
    if not isinstance(schema, dict):
        return None
    try:
        valid = generate(schema)
    except CannotGenerate:
        return None
    candidates: list[tuple[dict[str, Any], str]] = []
    required = _required(schema)
    for name in required:
        candidates.append(({k: v for k, v in valid.items() if k != name}, f"required {name!r} left out"))
    properties = _as_dict(schema.get("properties"))
    for name, prop in properties.items():
        try:
            wrong = _wrong_type(_resolve(prop, schema) if isinstance(prop, dict) else {})
        except CannotGenerate:
            continue
        if wrong is not None:
            candidates.append(({**valid, name: wrong}, f"{name!r} given as {type(wrong).__name__}"))
    for arguments, why in candidates:
        if errors_of(schema, arguments):
            return arguments, why
    return None


def _wrong_type(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind in ("string",):
        return {"mcpx": "not a string"}
    if kind in ("integer", "number", "boolean", "array"):
        return "mcpx: not a " + kind
    if kind == "object":
        return ["mcpx: not an object"]
    return None


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` (`#/...`); other refs are left as they are."""
    for _ in range(MAX_DEPTH):
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            return schema
        target: Any = root
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                raise CannotGenerate(f"$ref {ref!r} does not resolve")
            target = target[part]
        if not isinstance(target, dict):
            raise CannotGenerate(f"$ref {ref!r} is not a schema")
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
    raise CannotGenerate("$ref chain too long")


def _value(schema: Any, root: dict[str, Any], depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise CannotGenerate("the schema nests too deeply")
    if schema is True or schema == {}:
        return "mcpx"
    if not isinstance(schema, dict):
        raise CannotGenerate("a subschema is not an object")
    schema = _resolve(schema, root)
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("oneOf", "anyOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            usable = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            return _value(
                {**_without(schema, key), **_as_dict(usable[0] if usable else options[0])}, root, depth + 1
            )
    if isinstance(schema.get("allOf"), list):
        merged = _without(schema, "allOf")
        for part in schema["allOf"]:
            part = _resolve(_as_dict(part), root)
            merged = {
                **merged,
                **part,
                "properties": {**merged.get("properties", {}), **part.get("properties", {})},
            }
            merged["required"] = [*_required(merged), *_required(part)]
        return _value(merged, root, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"] or kind
        kind = kinds[0] if kinds else None
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    return _typed(kind, schema, root, depth)


def _typed(kind: str, schema: dict[str, Any], root: dict[str, Any], depth: int) -> Any:
    if kind == "object":
        properties = _as_dict(schema.get("properties"))
        required = _required(schema)
        return {name: _value(properties.get(name, {}), root, depth + 1) for name in required}
    if kind == "array":
        items = schema.get("items", {})
        count = schema.get("minItems", 0)
        return [_value(items, root, depth + 1) for _ in range(count if isinstance(count, int) else 0)]
    if kind == "string":
        text = STRING_FORMATS.get(str(schema.get("format")), "mcpx")
        low = schema.get("minLength")
        if isinstance(low, int) and len(text) < low:
            text += "x" * (low - len(text))
        return text
    if kind in ("integer", "number"):
        return _number(schema, kind == "integer")
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    raise CannotGenerate(f"unknown type {kind!r}")


def _number(schema: dict[str, Any], integer: bool) -> int | float:
    value: float = 1
    low, high = schema.get("minimum"), schema.get("maximum")
    if isinstance(schema.get("exclusiveMinimum"), (int, float)):
        low = schema["exclusiveMinimum"] + (1 if integer else 0.5)
    if isinstance(schema.get("exclusiveMaximum"), (int, float)):
        high = schema["exclusiveMaximum"] - (1 if integer else 0.5)
    if isinstance(low, (int, float)) and value < low:
        value = low
    if isinstance(high, (int, float)) and value > high:
        value = high
    return int(value) if integer else value


def _required(schema: dict[str, Any]) -> list[str]:
    names = schema.get("required")
    return [r for r in names if isinstance(r, str)] if isinstance(names, list) else []


def _without(schema: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != key}


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
