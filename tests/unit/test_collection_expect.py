"""Expectations against answers, field by field (pure: no server)."""

from __future__ import annotations

from mcpx.collection.expect import Answer, ErrorAnswer, check_expect, contains, evaluate
from mcpx.collection.record import expectation_from, updated


def tool_answer(
    text: str = "5", *, structured: object = None, is_error: bool = False, ms: float = 3.0
) -> Answer:
    result: dict[str, object] = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if structured is not None:
        result["structuredContent"] = structured
    return Answer("tools/call", result, elapsed_ms=ms)


def wheres(expect: dict, answer: Answer) -> list[str]:
    return [d.where for d in evaluate(expect, answer)]


def test_a_matching_answer_has_no_difference() -> None:
    expect = {"isError": False, "text": "5", "contains": "5", "matches": r"^\d$", "maxMs": 500}
    assert wheres(expect, tool_answer()) == []


def test_each_wrong_field_is_one_difference() -> None:
    found = list(evaluate({"isError": True, "text": "6", "contains": ["5", "x"], "maxMs": 1}, tool_answer()))
    assert [(d.where, d.expected, d.actual) for d in found] == [
        ("isError", True, False),
        ("text", "6", "5"),
        ("contains", "x", "5"),
        ("maxMs", 1, 3.0),
    ]
    assert 'expected "6", got "5"' in found[1].describe()


def test_structured_content_equality_lists_each_field() -> None:
    answer = tool_answer(structured={"city": "Paris", "temp": 21.5, "tags": ["a"]})
    found = list(
        evaluate({"structuredContent": {"city": "Paris", "temp": 20, "wind": 3, "tags": ["a"]}}, answer)
    )
    assert [(d.where, d.note) for d in found] == [
        ("structuredContent.temp", ""),
        ("structuredContent.wind", "removed"),
    ]
    # 1 and 1.0 are the same JSON number, true is not 1
    assert wheres({"structuredContent": {"n": 1}}, tool_answer(structured={"n": 1.0})) == []
    assert wheres({"structuredContent": {"n": 1}}, tool_answer(structured={"n": True})) != []


def test_json_paths_compare_one_node_or_the_list_of_many() -> None:
    answer = Answer("tools/list", {"tools": [{"name": "add"}, {"name": "echo"}]})
    assert wheres({"json": {"$.tools[*].name": ["add", "echo"]}}, answer) == []
    assert wheres({"json": {"$.tools[*].name": {"contains": "add"}}}, answer) == []
    assert wheres({"json": {"$.tools[*].name": {"contains": ["add", "sub"]}}}, answer) == [
        "json $.tools[*].name"
    ]
    assert (
        wheres({"json": {"$.tools[0].name": "add", "$.tools[1]": {"contains": {"name": "echo"}}}}, answer)
        == []
    )
    assert wheres({"json": {"$.tools[0].name": {"matches": "^a"}}}, answer) == []
    assert wheres({"json": {"$.nothing": {"exists": False}, "$.tools": {"exists": True}}}, answer) == []
    missing = list(evaluate({"json": {"$.nothing": 1}}, answer))
    assert missing[0].note == "nothing there"
    # a filter selects by value
    assert wheres({"json": {"$.tools[?@.name == 'echo'].name": ["echo"]}}, answer) == []


def test_errors_are_expected_or_reported() -> None:
    failed = Answer("tools/call", None, ErrorAnswer(-32602, "Unknown tool: nope"))
    assert wheres({"error": -32602}, failed) == []
    assert wheres({"error": {"code": -32602, "message": {"contains": "Unknown"}}}, failed) == []
    assert [(d.where, d.actual) for d in evaluate({"error": -32601}, failed)] == [("error.code", -32602)]
    # not expected: the error is the difference, and nothing else is compared
    assert [d.note for d in evaluate({"text": "5"}, failed)] == ["the request failed"]
    # expected but the call succeeded: the tool's text says what came instead
    assert [(d.note, d.actual) for d in evaluate({"error": -32602}, tool_answer("hello"))] == [
        ("the request succeeded", "hello")
    ]


def test_output_schema_is_checked_against_the_declared_schema() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    good = tool_answer(structured={"n": 1})
    good.output_schema = schema
    assert wheres({"outputSchema": True}, good) == []
    bad = tool_answer(structured={"n": "one"})
    bad.output_schema = schema
    assert wheres({"outputSchema": True}, bad) == ["outputSchema $.n"]
    none = tool_answer(structured={"n": 1})
    none.output_schema = None
    assert [d.note for d in evaluate({"outputSchema": True}, none)] == ["the tool declares none"]


def test_the_text_of_resources_and_prompts() -> None:
    read = Answer("resources/read", {"contents": [{"uri": "a", "text": "one"}, {"uri": "b", "text": "two"}]})
    assert read.text == "one\ntwo"
    prompt = Answer(
        "prompts/get", {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}
    )
    assert prompt.text == "hi"
    assert Answer("ping", {}).text == "{}"


def test_containment_is_recursive() -> None:
    assert contains("abc", "b")
    assert contains([{"name": "a", "x": 1}, {"name": "b"}], {"name": "a"})
    assert contains({"a": {"b": [1, 2, 3]}, "c": 1}, {"a": {"b": [3]}})
    assert not contains({"a": {"b": [1]}}, {"a": {"b": [3]}})


def test_bad_expectations_are_sentences() -> None:
    problems = check_expect(
        {"text": False, "maxMs": "fast", "json": {"$..[": 1}, "bogus": 1, "matches": "(", "error": "x"}
    )
    text = "\n".join(problems)
    assert "unknown key 'bogus'" in text
    assert "expect.text must be a string, not false (quote it)" in text
    assert "maxMs must be a number" in text
    assert "is not a JSONPath" in text
    assert "expect.error must be a JSON-RPC error code" in text
    assert check_expect({"json": {"$.a": {"matches": "("}}}) == [
        "expect.json['$.a']: '(' is not a regular expression (missing ), unterminated subpattern at position 0)"
    ]
    assert check_expect(["x"]) == ["expect must be a mapping of expectations, not a list"]


def test_expectations_written_from_answers() -> None:
    assert expectation_from(tool_answer("5")) == {"isError": False, "text": "5"}
    assert expectation_from(tool_answer("{}", structured={"n": 1})) == {
        "isError": False,
        "structuredContent": {"n": 1},
    }
    assert expectation_from(Answer("tools/call", None, ErrorAnswer(-32602, "x"))) == {"error": -32602}
    assert expectation_from(Answer("tools/list", {"tools": []})) == {"json": {"$": {"tools": []}}}


def test_update_refreshes_values_and_keeps_patterns() -> None:
    expect = {
        "text": "5",
        "contains": "5",
        "maxMs": 100,
        "json": {"$.isError": False, "$.content": {"exists": True}},
    }
    new = updated(expect, tool_answer("6"))
    assert new == {
        "text": "6",
        "contains": "5",
        "maxMs": 100,
        "json": {"$.isError": False, "$.content": {"exists": True}},
    }
    assert updated({"text": "6"}, tool_answer("6")) is None
    # from a result to an error and back
    assert updated(
        {"isError": False, "text": "5", "maxMs": 9}, Answer("tools/call", None, ErrorAnswer(-1, "x"))
    ) == {
        "maxMs": 9,
        "error": -1,
    }
    assert updated({"error": -1}, tool_answer("5")) == {"isError": False, "text": "5"}
    # nothing pinned yet (only assertions): the answer's values are added
    assert updated({"maxMs": 100}, tool_answer("5")) == {"isError": False, "text": "5", "maxMs": 100}


def test_simple_paths_are_walked_as_the_jsonpath_engine_would() -> None:
    """Names and indexes are walked without the engine (a fast path): they must select the same nodes."""
    from jsonpath import findall

    from mcpx.collection.paths import select, steps

    value = {"a": {"b": [10, {"c": None}], "x_1": True}, "list": [], "n": 0}
    for path in [
        "$",
        "$.a",
        "$.a.b[0]",
        "$.a.b[-1].c",
        "$.a.b[2]",
        "$.a.b[-3]",
        "$.nope.deeper",
        "$.a.x_1",
        "$.n[0]",
    ]:
        assert steps(path) is not None, path
        assert select(path, value) == findall(path, value), path
    for path in ["$.a.*", "$..c", "$['a']", "$.a.b[0:1]", "a.b"]:
        assert steps(path) is None, path
