"""The headers a Streamable HTTP POST mirrors from its message in the handshake-free era (2026-07-28).

Every POST names its message in headers so that a gateway can route it without reading the body:
`MCP-Protocol-Version` (the version in the request's `_meta`), `Mcp-Method`, `Mcp-Name` (the tool or
prompt name, the resource URI) and one `Mcp-Param-{Name}` for each tool argument whose inputSchema
property is annotated `"x-mcp-header": "{Name}"`. A value that is not plain visible ASCII travels as
`=?base64?…?=`. A tool whose annotations break the spec's rules cannot be called correctly over HTTP;
`header_annotation_problem` says why, and clients leave such tools out of what they list.

Pure functions: the client, which knows the tools, calls them; the transport sends what they give.
"""

from __future__ import annotations

import base64
import re
from collections import deque
from collections.abc import Iterator
from typing import Any

ANNOTATION = "x-mcp-header"
PARAM_PREFIX = "Mcp-Param-"
#: methods whose target is mirrored into `Mcp-Name`, and the param that names it
NAMED_BY = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
#: RFC 9110 §5.6.2 tchar: what a header name may be made of
TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
HEADER_TYPES = frozenset({"string", "integer", "boolean"})
_SAFE = re.compile(r"[\x20-\x7e]*")
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.DOTALL)

# JSON Schema keywords whose values are subschemas. Only `properties` keeps a property statically
# reachable; crossing any other leaves the chain. Data keywords (default, enum, const, examples) and
# `$ref` are never entered: an annotation there is no annotation, and a $ref is never fetched.
_ONE = frozenset(
    {
        "items",
        "additionalItems",
        "contains",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    }
)
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_NAMED = frozenset({"patternProperties", "$defs", "definitions", "dependentSchemas"})


def encode_value(value: str) -> str:
    """A header value as the spec writes it: as is when it is plain visible ASCII without edge spaces
    (and does not itself look like the sentinel), else `=?base64?{base64 of its UTF-8}?=`."""
    if _SAFE.fullmatch(value) and value == value.strip(" ") and not _SENTINEL.fullmatch(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


def render(value: Any) -> str | None:
    """An argument as header text (booleans `true`/`false`, integers in decimal), or None: no header."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    try:
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            # 42.0 for an integer property is the integer 42; JSON numbers have no other spelling to keep
            return str(int(value)) if value.is_integer() else repr(value)
    except (ValueError, OverflowError):  # beyond Python's digit limit, or infinite: no header at all
        return None
    return value if isinstance(value, str) else None


def _annotated(schema: Any) -> Iterator[tuple[tuple[str, ...] | None, dict[str, Any]]]:
    """Each subschema carrying `x-mcp-header`, with its path of property names — None when the way
    there crossed anything but `properties` — in document order."""
    todo: deque[tuple[tuple[str, ...] | None, Any]] = deque([((), schema)])
    while todo:
        path, node = todo.popleft()
        if not isinstance(node, dict):
            continue
        if ANNOTATION in node:
            yield path, node
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                todo.extend(((*path, name) if path is not None else None, sub) for name, sub in value.items())
            elif key in _NAMED and isinstance(value, dict):
                todo.extend((None, sub) for sub in value.values())
            elif key in _LIST and isinstance(value, list):
                todo.extend((None, sub) for sub in value)
            elif key in _ONE:
                todo.append((None, value))


def header_annotation_problem(schema: Any) -> str | None:
    """What makes a tool's `x-mcp-header` annotations invalid (its first problem), or None.

    The rules (2026-07-28, tools and Streamable HTTP): a non-empty header-name token, without spaces,
    colons, control or non-ASCII characters; on a string, integer or boolean property (never number)
    reached from the root through `properties` alone; unique in the schema, ignoring case.
    """
    seen: dict[str, str] = {}
    for path, node in _annotated(schema):
        value = node[ANNOTATION]
        if not path:
            return (
                f"{ANNOTATION} {value!r} is not on a property reached from the root through `properties` "
                "alone (it is at the root, or under items, a combinator, $defs or a condition)"
            )
        where = ".".join(path)
        if not isinstance(value, str) or not value:
            return f"{ANNOTATION} of property {where!r} is {value!r}, not a non-empty header name"
        if not TOKEN.fullmatch(value):
            return (
                f"{ANNOTATION} {value!r} of property {where!r} is not a valid header name (no spaces, "
                "colons, control or non-ASCII characters)"
            )
        declared = node.get("type")
        kinds = declared if isinstance(declared, list) else [declared]
        real = [kind for kind in kinds if kind != "null"]
        if not real or any(not isinstance(kind, str) or kind not in HEADER_TYPES for kind in real):
            return (
                f"{ANNOTATION} {value!r} is on property {where!r} of type {declared!r}; only string, "
                "integer and boolean properties may carry one"
            )
        if value.lower() in seen:
            return (
                f"{ANNOTATION} {value!r} of property {where!r} repeats the one of {seen[value.lower()]!r} "
                "(header names ignore case)"
            )
        seen[value.lower()] = where
    return None


def param_headers(schema: Any, arguments: Any) -> dict[str, str]:
    """`Mcp-Param-{Name}` for each annotated argument present (absent or null: no header)."""
    headers: dict[str, str] = {}
    if not isinstance(arguments, dict):
        return headers
    for path, node in _annotated(schema):
        name = node[ANNOTATION]
        if not path or not isinstance(name, str) or not TOKEN.fullmatch(name):
            continue  # an invalid annotation names no header (such tools are not listed)
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        text = render(value)
        if text is not None:
            headers[PARAM_PREFIX + name] = encode_value(text)
    return headers


def message_headers(version: str, method: str, params: Any, input_schema: Any = None) -> dict[str, str]:
    """Every header that mirrors one message: version, method, the name it targets, tool arguments.

    `input_schema` is the called tool's, for `tools/call` (None when it is not known: no `Mcp-Param-*`).
    """
    # the version and method are plain tokens in every message the spec defines; a raw frame may hold
    # anything, and a header that cannot be sent would be worse than one the server refuses
    headers = {"MCP-Protocol-Version": encode_value(version), "Mcp-Method": encode_value(method)}
    key = NAMED_BY.get(method)
    if key is not None and isinstance(params, dict) and isinstance(params.get(key), str):
        headers["Mcp-Name"] = encode_value(params[key])
    if method == "tools/call" and input_schema is not None and isinstance(params, dict):
        headers.update(param_headers(input_schema, params.get("arguments")))
    return headers
