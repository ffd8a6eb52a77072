"""Validators for the shapes the checks judge: JSON Schemas in their dialect, `x-mcp-header` annotations,
RFC 6570 templates, content blocks and resource contents. Each returns what is wrong, in words."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

#: RFC 9110 §5.6.2 tchar
TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
HEADER_TYPES = {"integer", "string", "boolean"}
#: RFC 6570 §2.1: characters that may not appear as literals outside expressions
NOT_LITERAL = re.compile(r"""[\x00-\x20"'<>\\^`{|}\x7f]""")
BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
CONTENT_TYPES = ("text", "image", "audio", "resource_link", "resource")


def dialect_problem(schema: Any, *, object_type: bool) -> tuple[str | None, bool]:
    """(what is wrong, whether the dialect is one mcpx can validate). `object_type` asks for type "object"."""
    if not isinstance(schema, dict):
        return f"is {type(schema).__name__}, not a JSON Schema object", True
    if object_type and schema.get("type") != "object":
        if "type" not in schema:
            return 'has no "type" (it must be "object")', True
        return f'has type {json.dumps(schema["type"])}, not "object"', True
    import jsonschema
    from jsonschema.validators import validator_for

    declared = schema.get("$schema")
    if declared is not None and not isinstance(declared, str):
        return f"has a $schema that is not a string ({declared!r})", True
    cls = validator_for(schema, default=None) if declared is not None else jsonschema.Draft202012Validator
    if cls is None:
        return None, False
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        return (
            f"is not valid {cls.__name__.removesuffix('Validator')}: {where or '(root)'}: {exc.message}",
            True,
        )
    return None, True


def header_problems(schema: Any) -> tuple[int, list[str]]:
    """(how many x-mcp-header annotations, what is wrong with them) for one inputSchema."""
    if not isinstance(schema, dict):
        return 0, []
    found: list[tuple[tuple[str, ...], Any, dict[str, Any]]] = []
    _collect(schema, (), found)
    problems: list[str] = []
    seen: dict[str, str] = {}
    for path, value, owner in found:
        where = "/".join(path) or "(root)"
        reachable = (
            len(path) >= 2
            and all(path[i] == "properties" for i in range(0, len(path), 2))
            and len(path) % 2 == 0
        )
        if not reachable:
            problems.append(
                f"x-mcp-header at {where} is not on a property reachable through properties alone"
            )
            continue
        if not isinstance(value, str) or not value:
            problems.append(f"x-mcp-header at {where} is {value!r}, not a non-empty string")
            continue
        if not TOKEN.fullmatch(value):
            problems.append(f"x-mcp-header {value!r} at {where} is not an HTTP token (1*tchar)")
            continue
        kinds = owner.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        real = [k for k in kinds if k != "null"]
        if not real or any(not isinstance(k, str) or k not in HEADER_TYPES for k in real):
            problems.append(
                f"x-mcp-header {value!r} is on a property of type {owner.get('type')!r}, "
                "not integer, string or boolean"
            )
            continue
        if value.lower() in seen:
            problems.append(
                f"x-mcp-header {value!r} at {where} repeats {seen[value.lower()]!r} (case-insensitively)"
            )
            continue
        seen[value.lower()] = value
    return len(found), problems


def _collect(
    node: Any, path: tuple[str, ...], found: list[tuple[tuple[str, ...], Any, dict[str, Any]]]
) -> None:
    if isinstance(node, dict):
        # a map of names to schemas (properties, $defs, …) may name a property "x-mcp-header"
        is_map = bool(path) and path[-1] in SCHEMA_MAPS
        if not is_map and "x-mcp-header" in node:
            found.append((path, node["x-mcp-header"], node))
        for key, value in node.items():
            if is_map or key != "x-mcp-header":
                _collect(value, (*path, str(key)), found)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _collect(value, (*path, str(index)), found)


def template_problem(template: str) -> str | None:
    """What makes `template` not an RFC 6570 URI template (None when it is one)."""
    import uri_template

    if not uri_template.validate(template):
        return "not a valid RFC 6570 template (an unclosed brace, an empty or malformed expression)"
    literal = re.sub(r"\{[^}]*\}", "", template)
    bad = NOT_LITERAL.search(literal)
    if bad:
        return f"the literal character {bad.group()!r} is not allowed outside an expression"
    if BAD_PERCENT.search(literal):
        return "a % that does not start a percent-encoded octet"
    return None


def _base64(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def content_problem(block: Any) -> str | None:
    """What is wrong with one content block of a tool result (None when it is well formed)."""
    if not isinstance(block, dict):
        return f"a content block is {type(block).__name__}, not an object"
    kind = block.get("type")
    if kind not in CONTENT_TYPES:
        return f"content block type {kind!r} is not one of {', '.join(CONTENT_TYPES)}"
    if kind == "text" and not isinstance(block.get("text"), str):
        return "a text block has no string text"
    if kind in ("image", "audio"):
        if not _base64(block.get("data")):
            return f"an {kind} block's data is not base64"
        if not isinstance(block.get("mimeType"), str):
            return f"an {kind} block has no mimeType"
    if kind == "resource_link" and not (
        isinstance(block.get("uri"), str) and isinstance(block.get("name"), str)
    ):
        return "a resource_link block needs a string uri and name"
    if kind == "resource":
        return contents_problem(block.get("resource"))
    return None


def contents_problem(item: Any) -> str | None:
    """What is wrong with one resource contents item (text or blob)."""
    if not isinstance(item, dict):
        return "a resource contents item is not an object"
    if not isinstance(item.get("uri"), str):
        return "a resource contents item has no string uri"
    has_text, has_blob = "text" in item, "blob" in item
    if has_text == has_blob:
        return f"resource contents {item.get('uri')!r} must have exactly one of text and blob"
    if has_text and not isinstance(item["text"], str):
        return f"resource contents {item.get('uri')!r} has text that is not a string"
    if has_blob and not _base64(item["blob"]):
        return f"resource contents {item.get('uri')!r} has a blob that is not base64"
    if "mimeType" in item and not isinstance(item["mimeType"], str):
        return f"resource contents {item.get('uri')!r} has a mimeType that is not a string"
    return None
