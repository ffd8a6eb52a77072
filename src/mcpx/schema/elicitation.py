"""Elicitation's restricted form schemas (flat objects of primitives), free of any UI.

`fill()` builds the content of an `accept` answer from the schema's defaults (SEP-1034) and the user's
answers, and says which required fields are still missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Filled:
    content: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def fill(schema: Any, answers: dict[str, Any] | None = None) -> Filled:
    """Defaults first, then answers; required fields with neither are `missing`."""
    answers = answers or {}
    filled = Filled()
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        properties = {}
    required = schema.get("required") if isinstance(schema, dict) else None
    required_names = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    for name, prop in properties.items():
        if name in answers:
            filled.content[name] = answers[name]
        elif isinstance(prop, dict) and "default" in prop:
            filled.content[name] = prop["default"]
    filled.missing = [name for name in required_names if name not in filled.content]
    filled.unknown = [name for name in answers if name not in properties]
    return filled


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """One field of a restricted elicitation schema, described for a person."""

    name: str
    #: e.g. "string (email)", "integer 1–100", "one of: a, b", "several of (1–3): x, y"
    kind: str
    title: str | None
    description: str | None
    required: bool
    #: (value, label) pairs for enums, in order; empty for other kinds
    options: tuple[tuple[str, str], ...] = ()


def options(prop: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """The choices of an enum field: plain `enum`, titled `oneOf`/`anyOf` consts, legacy `enumNames`;
    for arrays, of their `items`."""
    source = prop.get("items") if prop.get("type") == "array" else prop
    if not isinstance(source, dict):
        return ()
    for key in ("oneOf", "anyOf"):
        variants = source.get(key)
        if isinstance(variants, list):
            return tuple(
                (str(v["const"]), str(v.get("title", v["const"])))
                for v in variants
                if isinstance(v, dict) and "const" in v
            )
    values = source.get("enum")
    if not isinstance(values, list):
        return ()
    names = source.get("enumNames")
    if isinstance(names, list) and len(names) == len(values):
        return tuple((str(v), str(n)) for v, n in zip(values, names, strict=True))
    return tuple((str(v), str(v)) for v in values)


def _bounds(low: Any, high: Any, unit: str = "") -> str:
    if low is None and high is None:
        return ""
    if high is None:
        return f" ≥ {low}{unit}"
    if low is None:
        return f" ≤ {high}{unit}"
    return f" {low}–{high}{unit}"


def _kind(prop: dict[str, Any]) -> str:
    kind = prop.get("type")
    choices = options(prop)
    if kind == "array":
        return f"several of{_bounds(prop.get('minItems'), prop.get('maxItems'))}: " + ", ".join(
            label for _, label in choices
        )
    if choices:
        return "one of: " + ", ".join(label for _, label in choices)
    if kind == "string":
        fmt = prop.get("format")
        text = f"string ({fmt})" if isinstance(fmt, str) else "string"
        return text + _bounds(prop.get("minLength"), prop.get("maxLength"), " chars")
    if kind in ("number", "integer"):
        return str(kind) + _bounds(prop.get("minimum"), prop.get("maximum"))
    return str(kind) if isinstance(kind, str) else "any"


def describe_fields(schema: Any) -> list[FieldInfo]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    required = schema.get("required") if isinstance(schema, dict) else None
    required_names = set(required) if isinstance(required, list) else set()
    fields: list[FieldInfo] = []
    for name, prop in (properties or {}).items() if isinstance(properties, dict) else ():
        prop = prop if isinstance(prop, dict) else {}
        title, description = prop.get("title"), prop.get("description")
        fields.append(
            FieldInfo(
                name=str(name),
                kind=_kind(prop),
                title=title if isinstance(title, str) else None,
                description=description if isinstance(description, str) else None,
                required=name in required_names,
                options=options(prop),
            )
        )
    return fields


def problems(schema: Any, content: Any) -> list[str]:
    """What is wrong with `content` as an answer to `schema` (formats checked), as sentences."""
    if not isinstance(content, dict):
        return ["the content must be a JSON object of field names to values"]
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    schema = schema if isinstance(schema, dict) else {}
    try:
        validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
        errors = sorted(validator.iter_errors(content), key=lambda e: list(e.absolute_path))
    except SchemaError as exc:
        return [f"the requested schema is not valid JSON Schema: {exc.message}"]
    found = []
    for error in errors:
        where = ".".join(str(p) for p in error.absolute_path)
        found.append(f"{where}: {error.message}" if where else str(error.message))
    return found
