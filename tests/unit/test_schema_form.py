"""The UI-free form model (mcpx.schema.form) on real tool schemas and on every construct it renders.

The corpus under tests/unit/schemas/ holds real `tools/list` answers (each file names its origin):
server-everything, the official Python SDK's generated schemas, the GitHub MCP server's tool snapshots
and the filesystem server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpx.schema.form import (
    ArrayNode,
    EnumNode,
    FormModel,
    JsonNode,
    MultiNode,
    Node,
    NullableNode,
    NumberNode,
    ObjectNode,
    StringNode,
    VariantNode,
)
from mcpx.schema.validate import validator_for

CORPUS = sorted((Path(__file__).parent / "schemas").glob("*.json"))


def _schemas() -> list[Any]:
    out = []
    for path in CORPUS:
        for tool in json.loads(path.read_text())["tools"]:
            for key in ("inputSchema", "outputSchema"):
                if key in tool:
                    out.append(pytest.param(tool[key], id=f"{path.stem}:{tool['name']}:{key}"))
    return out


def _expand(node: Node, depth: int = 0) -> None:
    """Open every optional object and add one item to every array, a few levels down."""
    if depth > 6:
        return
    if isinstance(node, ObjectNode):
        node.expand()
        for child in list(node.fields.values()):
            _expand(child, depth + 1)
    elif isinstance(node, ArrayNode) and not node.items:
        _expand(node.add(), depth + 1)
    elif isinstance(node, VariantNode):
        _expand(node.current, depth + 1)
    elif isinstance(node, NullableNode):
        _expand(node.inner, depth + 1)


def test_the_corpus_is_there() -> None:
    assert {p.stem for p in CORPUS} >= {
        "server_everything",
        "python_sdk",
        "github_mcp_server",
        "server_filesystem",
    }
    assert len(_schemas()) > 100


@pytest.mark.parametrize("schema", _schemas())
def test_every_real_schema_builds_validates_and_round_trips(schema: dict[str, Any]) -> None:
    model = FormModel(schema)
    _expand(model.root)
    value = model.value()
    assert isinstance(value, dict)
    model.issues()  # never raises
    again = FormModel(schema)
    again.load(value)
    assert again.value() == value
    assert json.dumps(again.value()) == json.dumps(value)  # same key order too


def test_typed_text_stays_typed() -> None:
    model = FormModel({"type": "object", "properties": {"code": {"type": "string"}, "n": {"type": "number"}}})
    root = model.root
    assert isinstance(root, ObjectNode)
    code, n = root.fields["code"], root.fields["n"]
    assert isinstance(code, StringNode) and isinstance(n, NumberNode)
    code.set_text("012")
    n.set_text("1.50")
    assert model.value() == {"code": "012", "n": 1.5}
    assert isinstance(model.value()["n"], float)
    n.set_text("12")
    assert model.value()["n"] == 12 and isinstance(model.value()["n"], int)
    n.set_text("abc")  # sent as typed (send anyway), flagged before the schema speaks
    assert model.value()["n"] == "abc"
    assert model.issues_by_path()[("n",)] == ["not a number"]
    n.set_text("1.50")
    again = FormModel(model.schema)
    again.load(model.value())
    assert again.value() == {"code": "012", "n": 1.5}


def test_empty_optional_fields_are_left_out_and_required_ones_reported_beside_the_field() -> None:
    model = FormModel(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "required": ["a"],
        }
    )
    assert model.value() == {}
    assert model.issues_by_path() == {("a",): ["required"]}
    model.load({"a": "", "b": ""})  # an empty string loaded is an empty string sent
    assert model.value() == {"a": "", "b": ""}
    assert model.issues() == []


def test_nullable_enum_from_pydantic_and_type_lists() -> None:
    schema = {
        "type": "object",
        "properties": {
            "colour": {
                "anyOf": [{"enum": ["red", "green"], "type": "string"}, {"type": "null"}],
                "default": None,
            },
            "size": {"type": ["integer", "null"]},
            "mode": {
                "oneOf": [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}, {"type": "null"}]
            },
        },
    }
    model = FormModel(schema)
    root = model.root
    assert isinstance(root, ObjectNode)
    colour, size, mode = root.fields["colour"], root.fields["size"], root.fields["mode"]
    assert isinstance(colour, NullableNode) and isinstance(colour.inner, EnumNode) and colour.is_null
    assert isinstance(size, NullableNode) and isinstance(size.inner, NumberNode) and size.inner.integer
    assert isinstance(mode, EnumNode)
    assert [(c.value, c.label) for c in mode.choices] == [("a", "Alpha"), ("b", "Beta"), (None, "null")]
    assert model.value() == {"colour": None}
    colour.set_null(False)
    colour.inner.load("green")
    size.set_null(True)
    mode.load(None)
    assert model.value() == {"colour": "green", "size": None, "mode": None}
    assert model.issues() == []


def test_titled_enums_enum_names_and_multi_select_as_elicitation_sends_them() -> None:
    schema = {
        "type": "object",
        "properties": {
            "legacy": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
            "langs": {"type": "array", "items": {"type": "string", "enum": ["py", "rs"]}, "minItems": 1},
            "titled": {
                "type": "array",
                "items": {"anyOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]},
            },
        },
        "required": ["langs"],
    }
    model = FormModel(schema)
    root = model.root
    assert isinstance(root, ObjectNode)
    legacy, langs, titled = root.fields["legacy"], root.fields["langs"], root.fields["titled"]
    assert isinstance(legacy, EnumNode) and [c.label for c in legacy.choices] == ["Small", "Medium"]
    assert isinstance(langs, MultiNode) and isinstance(titled, MultiNode)
    assert [c.label for c in titled.choices] == ["Ex", "Why"]
    assert model.issues_by_path() == {("langs",): ["required"]}
    langs.toggle(1)
    langs.toggle(0)
    titled.toggle(1)
    assert model.value() == {"langs": ["rs", "py"], "titled": ["y"]}
    assert model.issues() == []


def test_recursive_refs_expand_on_demand_only() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}},
                "required": ["name", "child"],
            }
        },
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "required": ["tree"],
    }
    model = FormModel(schema)
    root = model.root
    assert isinstance(root, ObjectNode)
    tree = root.fields["tree"]
    assert isinstance(tree, ObjectNode) and tree.present
    child = tree.fields["child"]
    assert isinstance(child, ObjectNode) and not child.present and not child.built
    assert model.value() == {"tree": {}}
    assert ("tree", "child") in model.issues_by_path()
    child.expand()
    assert isinstance(child.fields["child"], ObjectNode) and not child.fields["child"].built
    deep = {"tree": {"name": "a", "child": {"name": "b", "child": {"name": "c", "child": {}}}}}
    model.load(deep)
    assert model.value() == deep


def test_one_of_variants_load_the_matching_option_and_keep_what_was_typed() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {
            "Circle": {
                "type": "object",
                "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                "required": ["kind", "r"],
            },
            "Rect": {
                "type": "object",
                "properties": {"kind": {"const": "rect"}, "w": {"type": "number"}},
                "required": ["kind", "w"],
            },
        },
        "properties": {
            "shape": {"oneOf": [{"$ref": "#/definitions/Circle"}, {"$ref": "#/definitions/Rect"}]}
        },
        "required": ["shape"],
    }
    model = FormModel(schema)
    root = model.root
    assert isinstance(root, ObjectNode)
    shape = root.fields["shape"]
    assert isinstance(shape, VariantNode)
    assert [label for label, _ in shape.options] == ["Circle", "Rect"]
    model.load({"shape": {"kind": "rect", "w": 2}})
    shape = model.root.fields["shape"]  # type: ignore[attr-defined]
    assert isinstance(shape, VariantNode) and shape.chosen == 1
    assert model.value() == {"shape": {"kind": "rect", "w": 2}}
    shape.choose(0)
    circle = shape.current
    assert isinstance(circle, ObjectNode)
    circle.fields["r"].load(3)
    assert model.value() == {"shape": {"kind": "circle", "r": 3}}
    shape.choose(1)
    assert model.value() == {"shape": {"kind": "rect", "w": 2}}
    assert type(validator_for(schema)).__name__ == "Draft7Validator"
    assert type(validator_for({"type": "object"})).__name__ == "Draft202012Validator"


def test_additional_properties_rows_read_only_and_unknown_values() -> None:
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "readOnly": True, "default": "srv-1"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "when": {"type": "string", "format": "email"},
        },
        "additionalProperties": False,
    }
    model = FormModel(schema)
    root = model.root
    assert isinstance(root, ObjectNode)
    labels = root.fields["labels"]
    assert isinstance(labels, ObjectNode) and not labels.present
    row = labels.add_row()
    labels.rename_row(row, "team")
    assert row.node.path == ("labels", "team")
    row.node.load("core")
    assert model.value() == {"labels": {"team": "core"}}  # readOnly: shown (its default) but not sent
    assert isinstance(root.fields["id"], StringNode) and root.fields["id"].text == "srv-1"
    root.fields["when"].load("not-an-address")
    assert model.issues_by_path() == {("when",): ["'not-an-address' is not a 'email'"]}
    # what does not fit a field lands in a JSON editor for that field, and is sent back unchanged
    model.load({"labels": {"team": 7}, "when": ["x"], "extra": {"a": 1}})
    assert model.value() == {"labels": {"team": 7}, "when": ["x"], "extra": {"a": 1}}
    kinds = {n.path: n.kind for n in model.nodes()}
    assert kinds[("labels", "team")] == "json" and kinds[("when",)] == "json" and kinds[("extra",)] == "json"
    assert any(issue.path == () for issue in model.issues())  # additionalProperties: false


def test_arrays_of_objects_add_remove_move_and_paths_follow() -> None:
    schema = {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {"type": "object", "properties": {"old": {"type": "string"}}, "required": ["old"]},
                "maxItems": 2,
                "uniqueItems": True,
            }
        },
    }
    model = FormModel(schema)
    edits = model.root.fields["edits"]  # type: ignore[attr-defined]
    assert isinstance(edits, ArrayNode)
    for text in ("a", "b", "a"):
        item = edits.add()
        assert isinstance(item, ObjectNode)
        item.fields["old"].load(text)
    assert model.value() == {"edits": [{"old": "a"}, {"old": "b"}, {"old": "a"}]}
    keywords = {i.keyword for i in model.issues()}
    assert {"maxItems", "uniqueItems"} <= keywords
    edits.move(2, 0)
    edits.remove(1)
    assert model.value() == {"edits": [{"old": "a"}, {"old": "b"}]}
    assert [n.path for n in edits.items] == [("edits", 0), ("edits", 1)]
    assert edits.items[1].fields["old"].path == ("edits", 1, "old")  # type: ignore[attr-defined]
    item = edits.add()
    assert model.issues_by_path()[("edits", 2, "old")] == ["required"]


def test_strange_schemas_never_raise() -> None:
    for schema in (
        None,
        {"type": "object", "properties": {"x": {"$ref": "https://example.com/remote.json"}}},
        {"type": "object", "properties": {"x": {"$ref": "#/nowhere"}, "y": False, "z": True}},
        {"type": "object", "properties": {"x": {"type": "strange"}}},
        {"type": "object", "properties": {"t": {"type": "array", "prefixItems": [{"type": "string"}]}}},
        {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"minLength": 2}]}}},
        {"type": "object", "properties": {"x": {"$ref": "#/properties/x"}}},
        {"type": "object", "properties": {"x": {"type": "integer", "minimum": "zero"}}},
    ):
        model = FormModel(schema)
        _expand(model.root)
        model.value()
        model.issues()
    broken = FormModel({"type": "object", "properties": {"x": {"type": "integer", "minimum": "zero"}}})
    broken.root.fields["x"].load(3)  # type: ignore[attr-defined]
    assert broken.issues()  # reported, not raised
    model = FormModel({"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}})
    assert isinstance(model.root.fields["x"], JsonNode)  # type: ignore[attr-defined]


def test_a_variant_mismatch_is_reported_as_the_chosen_options_own_fields() -> None:
    schema = {
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "title": "Circle",
                        "properties": {"r": {"type": "number"}},
                        "required": ["r"],
                    },
                    {
                        "type": "object",
                        "title": "Square",
                        "properties": {"side": {"type": "number", "minimum": 1}},
                        "required": ["side"],
                    },
                ]
            }
        },
        "required": ["shape"],
    }
    model = FormModel(schema)
    shape = model.root.fields["shape"]  # type: ignore[attr-defined]
    assert isinstance(shape, VariantNode)
    assert model.issues_by_path() == {("shape", "r"): ["required"]}
    shape.choose(1)
    shape.current.fields["side"].load(0)  # type: ignore[attr-defined]
    assert model.issues_by_path() == {("shape", "side"): ["0 is less than the minimum of 1"]}


def test_an_object_schema_without_properties_left_empty_is_an_empty_object_and_valid() -> None:
    """Many servers declare a tool with no arguments as `{"type": "object"}`: its form (a JSON editor)
    left empty sends `{}`, which the schema accepts (it used to be None, and the call was refused)."""
    for schema in ({"type": "object"}, {"type": "object", "additionalProperties": False}):
        model = FormModel(schema)
        assert model.value() == {}
        assert model.issues() == []
    assert FormModel({}).value() is None  # no type: nothing is assumed


FORMATS = {  # format: (a valid value, an invalid one)
    "email": ("a@example.com", "not-an-email"),
    "idn-email": ("用户@例子.广告", "no at sign"),
    "uri": ("https://example.com/a?b=1", "not a uri"),
    "uri-reference": ("../a/b", "http://[bad"),
    "iri": ("https://例子.广告/路径", "例子 no scheme"),
    "iri-reference": ("/路径?q=1", "http://[bad"),
    "uri-template": ("https://x/{id}", "https://x/{id"),
    "date-time": ("2026-11-24T23:10:00Z", "2026-11-24 late"),
    "date": ("2026-11-24", "2026-13-40"),
    "time": ("23:10:00Z", "25:99"),
    "duration": ("P1Y2M3DT4H5M6S", "P1H"),
    "hostname": ("example.com", "-bad-.com"),
    "idn-hostname": ("例子.广告", "a..b"),
    "ipv4": ("10.0.0.1", "10.0.0.256"),
    "ipv6": ("::1", "::g"),
    "uuid": ("9f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f", "9f0c1d2e"),
    "json-pointer": ("/a/b~1c", "a/b"),
    "relative-json-pointer": ("1/a", "/a"),
    "regex": ("^a+$", "(unclosed"),
}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_the_spec_names_is_checked(fmt: str) -> None:
    from mcpx.schema.validate import validate

    good, bad = FORMATS[fmt]
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": fmt}}}
    assert validate(schema, {"v": good}) == []
    issues = validate(schema, {"v": bad})
    assert [i.path for i in issues] == [("v",)] and issues[0].keyword == "format"
