"""Validation with `jsonschema`, errors as data keyed by the path of the field they belong to.

The validator class follows the schema's `$schema` (draft-07, 2019-09, 2020-12, …; 2020-12 when absent);
every format the JSON Schema spec names is checked: jsonschema's own checkers with the libraries of its
`format-nongpl` extra that cost little to import (rfc3339-validator, rfc3986-validator, fqdn, idna,
jsonpointer, uri-template), and three of mcpx's own where that extra would cost seconds or a date library
at import time: `duration` (RFC 3339 appendix A), `iri` and `iri-reference` (RFC 3987: an IRI is valid
when its URI mapping is). A schema jsonschema cannot read gives one issue at the root, never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from mcpx.schema.nodes import Path

#: RFC 3339 appendix A: P(dates [T times] | T times | weeks), each part in order, none repeated
_DURATION = re.compile(
    r"P(?:(?:\d+Y(?:\d+M(?:\d+D)?)?|\d+M(?:\d+D)?|\d+D)(?:T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S))?"
    r"|T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)|\d+W)",
    re.ASCII,
)


def _is_duration(value: object) -> bool:
    return not isinstance(value, str) or _DURATION.fullmatch(value) is not None


def _iri_check(rule: str) -> Any:
    def check(value: object) -> bool:
        if not isinstance(value, str):
            return True
        try:
            from rfc3986_validator import validate_rfc3986
        except ImportError:  # pragma: no cover - a dependency; without it the format goes unchecked
            return True
        # RFC 3987 §3.1: an IRI maps to a URI by percent-encoding the UTF-8 of every non-ASCII character
        mapped = "".join(c if c.isascii() else quote(c, safe="") for c in value)
        return bool(validate_rfc3986(mapped, rule=rule))

    return check


_OWN_FORMATS = {
    "duration": _is_duration,
    "iri": _iri_check("URI"),
    "iri-reference": _iri_check("URI_reference"),
}
_CHECKERS: dict[type, Any] = {}


def format_checker(cls: type) -> Any:
    """jsonschema's format checker for validator class `cls`, with mcpx's own formats where it has none."""
    checker = _CHECKERS.get(cls)
    if checker is None:
        from jsonschema import FormatChecker

        checker = FormatChecker(())
        checker.checkers = dict(cls.FORMAT_CHECKER.checkers)  # type: ignore[attr-defined]
        for name, func in _OWN_FORMATS.items():
            checker.checkers.setdefault(name, (func, ()))
        _CHECKERS[cls] = checker
    return checker


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem: where (the path of the field, `()` for the whole object) and what."""

    path: Path
    message: str
    keyword: str = ""


def validator_for(schema: Any, root: Any = None) -> Any:
    """A jsonschema validator for `schema` (a sub-schema of `root`, whose `$ref`s it may use)."""
    from jsonschema import Draft202012Validator, validators
    from referencing import Registry, Resource
    from referencing.jsonschema import specification_with

    root = schema if root is None else root
    cls = validators.validator_for(root if isinstance(root, dict) else {}, default=Draft202012Validator)
    if root is schema:
        return cls(schema, format_checker=format_checker(cls))
    try:
        spec = specification_with(cls.META_SCHEMA.get("$schema", ""))
    except Exception:  # a dialect `referencing` does not know: refs into the root will not resolve
        return cls(schema, format_checker=format_checker(cls))
    resource = Resource.from_contents(root, default_specification=spec)
    registry: Registry[Any] = Registry().with_resource("urn:mcpx:root", resource)
    resolver = registry.resolver(base_uri="urn:mcpx:root")
    return cls(schema, format_checker=format_checker(cls), _resolver=resolver)


def _message(error: Any) -> str:
    message = str(error.message)
    if error.validator == "required":
        return "required"
    if error.validator in ("oneOf", "anyOf") and len(message) > 120:
        return (
            f"matches none of the {error.validator} options"
            if error.validator == "anyOf"
            else ("must match exactly one oneOf option")
        )
    return message if len(message) <= 200 else message[:199] + "…"


def validate(
    schema: Any, value: Any, validator: Any = None, chosen: Mapping[Path, int] | None = None
) -> list[Issue]:
    """Every problem of `value` against `schema`, each at the path of its field.

    A missing required property is reported at the property's own path, so the form shows it beside
    the empty field. `chosen` maps the path of a `oneOf`/`anyOf` to the option the user picked: a
    mismatch there is reported as that option's own problems, field by field.
    """
    try:
        validator = validator if validator is not None else validator_for(schema)
        errors = list(validator.iter_errors(value))
    except Exception as exc:  # a schema jsonschema cannot read, a $ref it cannot follow
        return [Issue((), f"the schema cannot be used for validation: {exc}", "schema")]
    issues: list[Issue] = []
    _collect(errors, chosen or {}, issues)
    return issues


def _collect(errors: list[Any], chosen: Mapping[Path, int], issues: list[Issue]) -> None:
    for error in errors:
        path: Path = tuple(error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            names = error.validator_value if isinstance(error.validator_value, list) else []
            for name in names:
                if isinstance(name, str) and name not in error.instance and repr(name) in error.message:
                    issues.append(Issue((*path, name), "required", "required"))
                    break
            else:
                issues.append(Issue(path, str(error.message), "required"))
            continue
        if error.validator in ("oneOf", "anyOf") and path in chosen and error.context:
            option = [
                e
                for e in error.context
                if e.relative_schema_path and e.relative_schema_path[0] == chosen[path]
            ]
            if option:
                _collect(option, chosen, issues)
                continue
        issues.append(Issue(path, _message(error), str(error.validator)))
