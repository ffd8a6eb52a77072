"""The validators and the argument maker behind `mcpx check`, without a server."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpx.check.arguments import CannotGenerate, errors_of, generate, invalid
from mcpx.check.model import all_checks, select
from mcpx.check.shapes import (
    content_problem,
    contents_problem,
    dialect_problem,
    header_problems,
    template_problem,
)

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def test_headers_on_primitive_properties_reached_through_properties_are_valid() -> None:
    schema = {
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "where": {
                "type": "object",
                "properties": {"zone": {"type": ["integer", "null"], "x-mcp-header": "Zone"}},
            },
            # a property may be called x-mcp-header; it is not an annotation
            "x-mcp-header": {"type": "string"},
        },
    }
    assert header_problems(schema) == (2, [])


@pytest.mark.parametrize(
    ("schema", "clue"),
    [
        ({"properties": {"n": {"type": "number", "x-mcp-header": "N"}}}, "not integer, string or boolean"),
        ({"properties": {"n": {"x-mcp-header": "N"}}}, "not integer, string or boolean"),
        ({"properties": {"n": {"type": {"odd": 1}, "x-mcp-header": "N"}}}, "not integer, string or boolean"),
        ({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}, "not a non-empty string"),
        ({"properties": {"a": {"type": "string", "x-mcp-header": "Two Words"}}}, "not an HTTP token"),
        ({"properties": {"a": {"type": "string", "x-mcp-header": "A:B"}}}, "not an HTTP token"),
        ({"properties": {"a": {"type": "string", "x-mcp-header": "Ünï"}}}, "not an HTTP token"),
        (
            {
                "properties": {
                    "a": {"type": "string", "x-mcp-header": "Id"},
                    "b": {"type": "string", "x-mcp-header": "ID"},
                }
            },
            "case-insensitively",
        ),
        (
            {"properties": {"l": {"type": "array", "items": {"type": "string", "x-mcp-header": "L"}}}},
            "reachable",
        ),
        ({"properties": {"o": {"anyOf": [{"type": "string", "x-mcp-header": "O"}]}}}, "reachable"),
        (
            {
                "$defs": {"d": {"type": "string", "x-mcp-header": "D"}},
                "properties": {"d": {"$ref": "#/$defs/d"}},
            },
            "reachable",
        ),
        ({"type": "object", "x-mcp-header": "Root"}, "reachable"),
    ],
)
def test_invalid_headers_are_named(schema: dict, clue: str) -> None:
    count, problems = header_problems(schema)
    assert count == 1 or clue == "case-insensitively"
    assert problems and clue in problems[0]


@pytest.mark.parametrize(
    "template",
    [
        "file:///{path}",
        "notes://{topic}",
        "https://x.test{/a,b}{?q,r*}{&s}{#frag}",
        "x://{+rest}{.ext}{;p:3}",
    ],
)
def test_rfc6570_templates_pass(template: str) -> None:
    assert template_problem(template) is None


@pytest.mark.parametrize(
    ("template", "clue"),
    [
        ("notes://{topic", "not a valid RFC 6570"),
        ("notes://topic}", "not a valid RFC 6570"),
        ("notes://{}", "not a valid RFC 6570"),
        ("notes://{a,,b}", "not a valid RFC 6570"),
        ("notes://{x:0}", "not a valid RFC 6570"),
        ("notes://my topic/{id}", "' '"),
        ("notes://a|b/{id}", "'|'"),
        ("notes://100%/{id}", "percent-encoded"),
    ],
)
def test_broken_templates_say_why(template: str, clue: str) -> None:
    problem = template_problem(template)
    assert problem is not None and clue in problem


def test_schemas_are_judged_in_their_own_dialect() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "definitions": {}}
    assert dialect_problem(draft7, object_type=True) == (None, True)
    assert dialect_problem({"$schema": "https://example.com/mine", "type": "object"}, object_type=True) == (
        None,
        False,
    )
    problem, known = dialect_problem(
        {"type": "object", "properties": {"a": {"type": "strnig"}}}, object_type=True
    )
    assert known and problem is not None and "Draft202012" in problem and "properties/a/type" in problem
    assert 'not "object"' in (dialect_problem({"type": "array"}, object_type=True)[0] or "")
    assert dialect_problem({"type": "array"}, object_type=False) == (None, True)
    assert "not a JSON Schema object" in (dialect_problem(None, object_type=True)[0] or "")


def test_content_blocks() -> None:
    good = [
        {"type": "text", "text": "hi"},
        {"type": "image", "data": PIXEL, "mimeType": "image/png"},
        {"type": "audio", "data": "", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "test://x", "name": "x"},
        {"type": "resource", "resource": {"uri": "test://x", "blob": PIXEL}},
    ]
    assert [content_problem(b) for b in good] == [None] * len(good)
    assert "base64" in (content_problem({"type": "image", "data": "no!", "mimeType": "image/png"}) or "")
    assert "not one of" in (content_problem({"type": "video"}) or "")
    assert "exactly one of text and blob" in (
        contents_problem({"uri": "a", "text": "t", "blob": PIXEL}) or ""
    )
    assert "no string uri" in (contents_problem({"text": "t"}) or "")


def test_arguments_are_the_smallest_valid_instance() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Who": {
                "type": "object",
                "properties": {"age": {"type": "integer", "minimum": 18}},
                "required": ["age"],
            }
        },
        "properties": {
            "who": {"$ref": "#/$defs/Who"},
            "when": {"type": "string", "format": "date-time"},
            "mode": {"enum": ["fast", "slow"]},
            "count": {"type": "integer", "exclusiveMinimum": 5, "maximum": 9},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 6}, "minItems": 1},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
            "optional": {"type": "string"},
        },
        "required": ["who", "when", "mode", "count", "tags", "maybe"],
    }
    arguments = generate(schema)
    assert arguments == {
        "who": {"age": 18},
        "when": "2025-01-01T00:00:00Z",
        "mode": "fast",
        "count": 6,
        "tags": ["mcpxxx"],
        "maybe": False,
    }
    assert errors_of(schema, arguments) == []


def test_schemas_mcpx_cannot_satisfy_are_refused() -> None:
    with pytest.raises(CannotGenerate):
        generate(
            {
                "type": "object",
                "properties": {"id": {"type": "string", "pattern": "^[0-9]+$"}},
                "required": ["id"],
            }
        )
    with pytest.raises(CannotGenerate):
        generate({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}, "required": ["a"]})


def test_invalid_arguments_are_found_when_they_can_be() -> None:
    made = invalid({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    assert made == ({}, "required 'text' left out")
    made = invalid({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert made is not None and made[0] == {"n": "mcpx: not a integer"}
    assert invalid({"type": "object"}) is None
    # a property whose $ref leads nowhere is passed over, not a crash
    made = invalid({"properties": {"a": {"$ref": "#/nowhere"}, "b": {"type": "string"}}, "required": ["b"]})
    assert made == ({}, "required 'b' left out")


def test_select_by_id_prefix_or_group() -> None:
    checks = all_checks()
    assert [c.id for c in select(checks, ["jsonrpc.id-echo"])] == ["jsonrpc.id-echo", "jsonrpc.id-echo-large"]
    lifecycle = select(checks, ["lifecycle"])
    assert lifecycle and all(c.id.startswith(("legacy.", "modern.")) for c in lifecycle)
    assert not [
        c for c in select(checks, skip=["behaviour", "catalogue"]) if c.group in ("behaviour", "catalogue")
    ]


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
_keyword = st.sampled_from(
    ["type", "properties", "required", "items", "enum", "const", "default", "minimum", "maximum", "minItems",
     "minLength", "anyOf", "oneOf", "allOf", "$ref", "format", "additionalProperties", "x-mcp-header"]
)  # fmt: skip
_schemas = st.recursive(
    st.dictionaries(_keyword, _json, max_size=4),
    lambda inner: st.dictionaries(
        _keyword, inner | _json | st.dictionaries(st.text(max_size=2), inner, max_size=2)
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(_schemas)
def test_odd_schemas_never_crash_the_argument_maker_or_the_validators(schema: dict) -> None:
    try:
        arguments = generate(schema)
    except CannotGenerate:
        pass
    else:
        assert errors_of(schema, arguments) == []
    invalid(schema)
    header_problems(schema)
    dialect_problem(schema, object_type=True)
