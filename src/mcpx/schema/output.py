"""A tool result's `structuredContent` checked against the tool's `outputSchema`, field by field.

`output_mismatches()` returns a list of (path, message) — empty when the result conforms — and never
raises: an invalid schema, an unresolvable `$ref` or a value nested too deep is one more entry.
The draft comes from the schema's `$schema` (2020-12 when absent, as the spec says).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Mismatch = tuple[str, str]
#: at most this many mismatches are listed (a 10 MB array of wrong items would list them all)
MAX_MISMATCHES = 200
MESSAGE_LIMIT = 240


def json_path(parts: Iterable[Any]) -> str:
    """`$.days[0].high` from a jsonschema error's path."""
    path = "$"
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            path += f".{part}"
        else:
            path += f"[{part!r}]"
    return path


def output_mismatches(
    output_schema: Any, structured: Any, *, present: bool = True, is_error: bool = False
) -> list[Mismatch]:
    """Where `structured` (the result's `structuredContent`) breaks `output_schema`.

    `present` is False when the result had no `structuredContent` at all: a tool that declares an output
    schema must send one (unless the result is an error, where the spec asks nothing).
    """
    if not isinstance(output_schema, Mapping):
        return [] if output_schema is None else [("(schema)", "outputSchema is not an object")]
    if not present:
        if is_error:
            return []
        return [("$", "no structuredContent, but the tool declares an outputSchema")]
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    try:
        cls = validator_for(output_schema, default=Draft202012Validator)
        cls.check_schema(output_schema)
    except SchemaError as exc:
        return [("(schema)", _short(f"the outputSchema is not a valid JSON Schema: {exc.message}"))]
    except Exception as exc:
        return [("(schema)", _short(f"the outputSchema cannot be used: {exc}"))]
    mismatches: list[Mismatch] = []
    try:
        errors = sorted(
            cls(output_schema).iter_errors(structured), key=lambda e: list(map(str, e.absolute_path))
        )
        for error in errors:
            if len(mismatches) >= MAX_MISMATCHES:
                mismatches.append(("…", f"{len(errors) - MAX_MISMATCHES} more not listed"))
                break
            mismatches.append((json_path(error.absolute_path), _short(error.message)))
    except RecursionError:
        mismatches.append(("$", "nested too deep to validate"))
    except Exception as exc:
        mismatches.append(("(schema)", _short(f"validation failed: {type(exc).__name__}: {exc}")))
    return mismatches


def _short(message: str) -> str:
    return message if len(message) <= MESSAGE_LIMIT else message[: MESSAGE_LIMIT - 1] + "…"
