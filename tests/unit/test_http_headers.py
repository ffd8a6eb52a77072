"""The headers a handshake-free POST mirrors from its message (mcpx.protocol.http_headers): value encoding,
the x-mcp-header rules, and the Mcp-Param headers built from a call's arguments."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpx.protocol.http_headers import (
    encode_value,
    header_annotation_problem,
    message_headers,
    param_headers,
)


def schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def annotated(kind: Any, name: Any) -> dict[str, Any]:
    return {"type": kind, "x-mcp-header": name}


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        ("us-west1", "us-west1"),
        ("us west 1", "us west 1"),  # inner spaces are plain ASCII
        ("", ""),
        ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),  # the spec's own example
        (" padded ", b64(" padded ")),
        ("us-west1 ", b64("us-west1 ")),
        ("line1\nline2", b64("line1\nline2")),
        ("line1\r\nline2", b64("line1\r\nline2")),
        ("\tindented", b64("\tindented")),
        ("=?base64?abc?=", b64("=?base64?abc?=")),  # looks like the sentinel: wrapped, so it decodes back
    ],
)
def test_values_go_plain_or_in_the_base64_sentinel(value: str, sent: str) -> None:
    assert encode_value(value) == sent


def test_the_standard_headers_name_method_version_and_target() -> None:
    call = {"name": "my-hyphenated-tool", "arguments": {}}
    assert message_headers("2026-07-28", "tools/call", call) == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "my-hyphenated-tool",
    }
    read = message_headers("2026-07-28", "resources/read", {"uri": "file:///tmp/ä.txt"})
    assert read["Mcp-Name"] == b64("file:///tmp/ä.txt")
    assert "Mcp-Name" not in message_headers("2026-07-28", "tools/list", {"name": "not a target"})


def test_annotated_arguments_become_param_headers() -> None:
    tool = schema(
        region=annotated("string", "Region"),
        priority=annotated("integer", "Priority"),
        verbose=annotated("boolean", "Verbose"),
        debug=annotated("boolean", "Debug"),
        method_val=annotated("string", "Method"),
        where=schema(city=annotated("string", "City")),
        query={"type": "string"},
        float_val={"type": "number"},
    )
    arguments = {
        "region": "Zürich",
        "priority": 42.0,  # an integral float of an integer property is the integer
        "verbose": False,
        "debug": None,  # null: no header
        "method_val": "x",
        "where": {"city": "Oslo"},
        "query": "SELECT 1",
        "float_val": 3.14,
    }
    assert param_headers(tool, arguments) == {
        "Mcp-Param-Region": b64("Zürich"),
        "Mcp-Param-Priority": "42",
        "Mcp-Param-Verbose": "false",
        "Mcp-Param-Method": "x",  # Mcp-Param-Method, never Mcp-Method
        "Mcp-Param-City": "Oslo",
    }
    assert param_headers(tool, {"where": "not an object", "region": ["a"]}) == {}


INVALID = {
    "empty": schema(value=annotated("string", "")),
    "object": schema(data=annotated("object", "Data")),
    "array": schema(items=annotated("array", "Items")),
    "null": schema(nil=annotated("null", "Nil")),
    "number": schema(score=annotated("number", "Score")),
    "untyped": schema(value={"x-mcp-header": "Value"}),
    "same case twice": schema(a=annotated("string", "Region"), b=annotated("string", "Region")),
    "other case twice": schema(a=annotated("string", "MyField"), b=annotated("string", "myfield")),
    "space": schema(value=annotated("string", "My Region")),
    "colon": schema(value=annotated("string", "Region:Primary")),
    "non-ascii": schema(value=annotated("string", "Région")),
    "control": schema(value=annotated("string", "Region\t1")),
    "not a string": schema(value=annotated("string", 7)),
    "under items": schema(list={"type": "array", "items": annotated("string", "Item")}),
    "under anyOf": {"type": "object", "anyOf": [schema(a=annotated("string", "A"))]},
    "under $defs": {"type": "object", "$defs": {"d": annotated("string", "D")}},
    "at the root": {"type": "string", "x-mcp-header": "Root"},
}


@pytest.mark.parametrize("case", INVALID)
def test_annotations_that_break_the_rules_are_named(case: str) -> None:
    assert header_annotation_problem(INVALID[case]) is not None


@pytest.mark.parametrize(
    "valid",
    [
        schema(region=annotated("string", "Region")),
        schema(region=annotated(["string", "null"], "Region")),  # nullable: null means no header
        schema(outer=schema(inner=annotated("integer", "Inner"))),
        schema(a={"default": {"x-mcp-header": "data, not an annotation"}, "type": "object"}),
        {"type": "object", "properties": {"profile": {"$ref": "http://example.invalid/s.json"}}},
        {"type": "object"},
        None,
    ],
)
def test_valid_or_absent_annotations_pass(valid: Any) -> None:
    assert header_annotation_problem(valid) is None


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "properties", "items", "x-mcp-header", "anyOf", "$defs", "a"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@given(JSON, JSON)
def test_any_json_at_all_is_judged_without_crashing(tool: Any, arguments: Any) -> None:
    header_annotation_problem(tool)
    for name, value in param_headers(tool, arguments).items():
        name.encode("ascii")
        value.encode("ascii")  # every header built can go on the wire
