"""The structural diff behind replay and diff, its paths, and the --ignore dialect."""

from __future__ import annotations

import pytest

from mcpx.record.jsondiff import Keyed, PatternError, compile_pattern, diff, format_path, split_ignored


def wheres(a: object, b: object) -> list[str]:
    return [c.describe() for c in diff(a, b)]


def test_equal_values_have_no_changes() -> None:
    value = {"a": [1, {"b": None}], "c": "x", "d": 1.5}
    assert diff(value, value) == []
    assert diff(1, 1.0) == []  # one JSON number


def test_changes_added_and_removed_have_paths() -> None:
    before = {"result": {"a": 1, "gone": True, "list": [1, 2, 3]}}
    after = {"result": {"a": 2, "new": "x", "list": [1, 5]}}
    assert wheres(before, after) == [
        "$.result.a: 1 → 2",
        "$.result.gone: removed (was true)",
        "$.result.list[1]: 2 → 5",
        "$.result.list[2]: removed (was 3)",
        '$.result.new: added "x"',
    ]


def test_types_are_compared_strictly() -> None:
    assert wheres({"v": True}, {"v": 1}) == ["$.v: true → 1"]
    assert wheres({"v": "1"}, {"v": 1}) == ['$.v: "1" → 1']
    assert wheres({"v": None}, {"v": {}}) == ["$.v: null → {}"]


def test_arrays_of_named_objects_are_matched_by_name_not_position() -> None:
    before = {"tools": [{"name": "a", "d": 1}, {"name": "b"}, {"name": "gone"}]}
    after = {"tools": [{"name": "b"}, {"name": "new"}, {"name": "a", "d": 2}]}
    assert wheres(before, after) == [
        "$.tools[name=a].d: 1 → 2",
        '$.tools[name=gone]: removed (was {"name":"gone"})',
        '$.tools[name=new]: added {"name":"new"}',
    ]
    resources = diff({"r": [{"uri": "x://1", "n": 1}]}, {"r": [{"uri": "x://1", "n": 2}]})
    assert resources[0].path == ("r", Keyed("uri", "x://1"), "n")


def test_duplicate_names_fall_back_to_positions() -> None:
    assert wheres(
        {"l": [{"name": "a", "v": 1}, {"name": "a"}]}, {"l": [{"name": "a", "v": 2}, {"name": "a"}]}
    ) == ["$.l[0].v: 1 → 2"]


def test_json_inside_strings_is_compared_as_json() -> None:
    before = {"text": '{"count": 3, "items": ["a"]}'}
    after = {"text": '{"items": ["a"], "count": 4}'}
    assert wheres(before, after) == ["$.text.count: 3 → 4"]
    assert diff({"text": '{"a": 1}'}, {"text": '{"a":1}'}) == []  # only the spacing differs
    assert wheres({"text": "{not json"}, {"text": "{not json!"}) == ['$.text: "{not json" → "{not json!"']
    assert wheres({"text": '{"a": 1}'}, {"text": '{"a": 1}'}) == []
    assert len(diff({"t": '{"a": 1}'}, {"t": '{"a": 2}'}, parse_strings=False)) == 1


def test_paths_quote_keys_that_are_not_identifiers() -> None:
    assert format_path(("a", "odd key", 3, Keyed("name", "x"), "io.modelcontextprotocol/x")) == (
        '$.a["odd key"][3][name=x]["io.modelcontextprotocol/x"]'
    )


@pytest.mark.parametrize(
    ("pattern", "ignored"),
    [
        ("$.result.content[0].text.at", ["$.result.content[0].text.at"]),
        ("result.content[*].text.at", ["$.result.content[0].text.at"]),
        ("$..at", ["$.result.content[0].text.at", "$.result.structuredContent.at"]),
        ("$.result.structuredContent", ["$.result.structuredContent.at"]),
        ("$['result']['structuredContent'].*", ["$.result.structuredContent.at"]),
        ("$.result.tools[name=echo]", ["$.result.tools[name=echo].description"]),
        ("$.result.tools[*].description", ["$.result.tools[name=echo].description"]),
        ("$.result.tools[0]", []),  # keyed elements are not positions
        ("$.nothing", []),
    ],
)
def test_ignore_patterns(pattern: str, ignored: list[str]) -> None:
    before = {
        "result": {
            "content": [{"type": "text", "text": '{"at": 1, "v": 1}'}],
            "structuredContent": {"at": 1},
            "tools": [{"name": "echo", "description": "a"}],
        }
    }
    after = {
        "result": {
            "content": [{"type": "text", "text": '{"at": 2, "v": 1}'}],
            "structuredContent": {"at": 2},
            "tools": [{"name": "echo", "description": "b"}],
        }
    }
    changes = diff(before, after)
    kept, dropped = split_ignored(changes, [compile_pattern(pattern)])
    assert sorted(c.where for c in dropped) == sorted(ignored)
    assert len(kept) + len(dropped) == len(changes) == 3


@pytest.mark.parametrize("bad", ["$.a[", "$.a]b", "$[foo"])
def test_patterns_that_cannot_be_read_say_so(bad: str) -> None:
    with pytest.raises(PatternError, match="is not a path"):
        compile_pattern(bad)
