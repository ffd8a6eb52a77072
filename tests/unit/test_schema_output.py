"""structuredContent against outputSchema: a list of (path, message), never an exception."""

from __future__ import annotations

from mcpx.schema.output import output_mismatches

WEATHER = {
    "type": "object",
    "properties": {
        "temperature": {"type": "number"},
        "conditions": {"type": "string"},
        "days": {"type": "array", "items": {"type": "object", "required": ["high"]}},
    },
    "required": ["temperature", "conditions"],
}


def test_conforming_result_has_no_mismatch() -> None:
    assert output_mismatches(WEATHER, {"temperature": 3, "conditions": "rain"}) == []


def test_mismatches_are_listed_field_by_field() -> None:
    found = output_mismatches(WEATHER, {"temperature": "3", "days": [{"high": 1}, {}]})
    assert found == [
        ("$", "'conditions' is a required property"),
        ("$.days[1]", "'high' is a required property"),
        ("$.temperature", "'3' is not of type 'number'"),
    ]


def test_missing_structured_content() -> None:
    assert output_mismatches(WEATHER, None, present=False) == [
        ("$", "no structuredContent, but the tool declares an outputSchema")
    ]
    assert output_mismatches(WEATHER, None, present=False, is_error=True) == []
    assert output_mismatches(None, {"any": 1}) == []


def test_broken_schemas_are_reported_not_raised() -> None:
    assert output_mismatches({"type": 5}, {})[0][0] == "(schema)"
    assert output_mismatches({"$ref": "#/$defs/missing"}, {})[0][0] == "(schema)"
    assert output_mismatches([1], {}) == [("(schema)", "outputSchema is not an object")]
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}
    assert output_mismatches(draft7, [1])[0][0] == "$[0]"


def test_deep_values_and_many_errors() -> None:
    deep: object = 1
    for _ in range(5000):
        deep = [deep]
    assert isinstance(output_mismatches({"type": "array", "items": {"$ref": "#"}}, deep), list)
    many = output_mismatches({"type": "array", "items": {"type": "string"}}, list(range(1000)))
    assert len(many) == 201 and many[-1] == ("…", "800 more not listed")
