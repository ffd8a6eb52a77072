"""Collection files: read leniently with sentences and lines, written without disturbing the user's text."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcpx.collection.model import CollectionError, load_collection, parse_collection
from mcpx.collection.writer import append_test, update_expectations

ISSUE_EXAMPLE = """\
server: ./server.py            # any TARGET (with args after --), or {config: FILE, server: NAME}
era: auto                      # optional, as --protocol-era
tests:
  - name: adds two numbers
    call: add                  # a tool name …
    arguments: {a: 2, b: 3}
    expect: {isError: false, text: "5", maxMs: 500}
  - name: lists the add tool
    method: tools/list         # … or any method with params
    expect: {json: {"$.tools[*].name": {contains: add}}}
"""


def write(tmp_path: Path, text: str, name: str = "c.mcpx.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_issue_example_reads(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text("", encoding="utf-8")
    collection = load_collection(write(tmp_path, ISSUE_EXAMPLE))
    assert collection.warnings == [] and collection.era == "auto"
    first, second = collection.tests
    assert (first.name, first.method, first.params, first.line) == (
        "adds two numbers", "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, 4
    )  # fmt: skip
    assert first.expect == {"isError": False, "text": "5", "maxMs": 500} and first.problems == []
    assert (second.method, second.params, second.line) == ("tools/list", None, 8)
    spec = collection.server.spec()
    # the script beside the collection, started there, wherever mcpx runs from
    assert spec.command == [sys.executable, str(tmp_path / "server.py")]
    assert spec.cwd == str(tmp_path)


def test_server_forms(tmp_path: Path) -> None:
    def server(text: str):
        return parse_collection(f"server: {text}\n", tmp_path / "x.mcpx.yaml").server

    words = server("'npx -y @modelcontextprotocol/server-everything -- --flag'")
    assert (words.target, words.args) == ("npx", ["-y", "@modelcontextprotocol/server-everything", "--flag"])
    listed = server("[python, srv.py, --, --port, '3']")
    assert (listed.target, listed.args) == ("python", ["srv.py", "--port", "3"])
    config = server("{config: mcp.json, server: calc}")
    assert (config.kind, config.config, config.server) == ("config", "mcp.json", "calc")
    recording = server("{recording: s.mcpx.jsonl}")
    assert recording.recording_path() == tmp_path / "s.mcpx.jsonl"
    full = server("{target: https://example.com/mcp, headers: {X-A: b}, transport: http}")
    assert full.spec().url == "https://example.com/mcp" and full.spec().headers == {"X-A": "b"}


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("tests: [\n  - a\n", "c.mcpx.yaml:2: not valid YAML: expected the node content, but found '-'"),
        ("", "the collection is empty"),
        ("- a\n", "a collection is a mapping with server and tests, not a list"),
        ("tests: []\n", "no server"),
        ("server: x\nera: new\n", "c.mcpx.yaml:2: era must be legacy, auto or modern, not 'new'"),
        ("server: x\ntests: {a: 1}\n", "c.mcpx.yaml:2: tests must be a list of tests"),
        ("server: {url: x}\n", "server has unknown keys: url"),
    ],
)
def test_unusable_files_are_one_sentence_with_the_line(tmp_path: Path, text: str, sentence: str) -> None:
    with pytest.raises(CollectionError) as caught:
        load_collection(write(tmp_path, text))
    assert sentence in caught.value.message


def test_a_wrong_test_keeps_its_place_with_its_problems(tmp_path: Path) -> None:
    text = """\
server: x
colour: blue
tests:
  - name: fine
    call: echo
  - name: fine
    call: echo
    arguments: [1]
    elicit: maybe
    sample: '@missing.json'
    expect: {isError: 1}
  - just a string
  - name: neither
"""
    collection = load_collection(write(tmp_path, text))
    assert collection.warnings == [
        f"{tmp_path / 'c.mcpx.yaml'}:2: unknown key 'colour' ignored",
        f"{tmp_path / 'c.mcpx.yaml'}:6: another test is named 'fine'",
    ]
    good, bad, string, neither = collection.tests
    assert good.problems == []
    assert bad.problems[0] == "arguments must be a mapping"
    assert (
        "elicit must be accept-defaults, decline, cancel, a mapping or @file.json, not 'maybe'"
        in bad.problems
    )
    assert any(p.startswith("sample: cannot read JSON from") for p in bad.problems)
    assert "expect.isError must be true or false, not 1" in bad.problems
    assert (string.name, string.problems) == ("test 3", ["a test must be a mapping"])
    assert neither.problems == ["a test needs call (a tool) or method"]


def test_answers_files_are_read_beside_the_collection(tmp_path: Path) -> None:
    (tmp_path / "answers.json").write_text('{"name": "Ada"}', encoding="utf-8")
    text = (
        "server: x\ntests:\n  - {name: a, call: t, elicit: '@answers.json', sample: decline, fresh: true}\n"
    )
    (test,) = load_collection(write(tmp_path, text)).tests
    assert (test.elicit, test.sample, test.fresh, test.problems) == ({"name": "Ada"}, "decline", True, [])


def test_append_keeps_comments_order_and_style(tmp_path: Path) -> None:
    path = write(tmp_path, ISSUE_EXAMPLE + "# the end\n")
    new = append_test(
        path, {"expect": {"text": "hi"}, "name": "echoes", "call": "echo", "arguments": {"text": "hi"}}
    )
    assert new.startswith(ISSUE_EXAMPLE)  # every byte the user wrote, before the new test
    assert new.endswith(
        '    expect: {json: {"$.tools[*].name": {contains: add}}}\n'
        "  - name: echoes\n"
        "    call: echo\n"
        "    arguments: {text: hi}\n"
        "    expect: {text: hi}\n"
        "# the end\n"
    )
    assert [t.name for t in parse_collection(new, path).tests] == [
        "adds two numbers",
        "lists the add tool",
        "echoes",
    ]


@pytest.mark.parametrize("tests", ["", "tests:\n", "tests: []\n", "tests: [{name: a, call: b}]\n"])
def test_append_to_a_collection_with_no_block_list(tmp_path: Path, tests: str) -> None:
    path = write(tmp_path, "# calc\nserver: ./s.py\n" + tests)
    new = append_test(path, {"name": "n", "call": "c"})
    assert new.startswith("# calc\nserver: ./s.py\n")
    names = [t.name for t in parse_collection(new, path).tests]
    assert names == (["a", "n"] if "name: a" in tests else ["n"])


def test_append_creates_a_missing_collection(tmp_path: Path) -> None:
    path = tmp_path / "new.mcpx.yaml"
    append_test(path, {"name": "n", "call": "c", "expect": {"text": "x"}}, server="./s.py")
    collection = parse_collection(path.read_text(encoding="utf-8"), path)
    assert collection.server.target == "./s.py" and collection.tests[0].expect == {"text": "x"}
    with pytest.raises(CollectionError, match="does not exist"):
        append_test(tmp_path / "other.mcpx.yaml", {"name": "n", "call": "c"})


def test_update_replaces_only_the_expectations(tmp_path: Path) -> None:
    text = """\
server: x   # the server
tests:
  - name: one
    call: a
    expect:            # pinned
      text: "5"
      maxMs: 10
    # a comment after the test
  - name: two
    call: b
  - name: three   # stays
    call: c
    expect: {text: old}
"""
    path = write(tmp_path, text)
    new = update_expectations(
        path, {0: {"text": "6", "maxMs": 10}, 1: {"isError": False, "text": "b"}, 2: {"text": "new"}}
    )
    assert (
        new
        == """\
server: x   # the server
tests:
  - name: one
    call: a
    expect: {text: '6', maxMs: 10}
    # a comment after the test
  - name: two
    call: b
    expect: {isError: false, text: b}
  - name: three   # stays
    call: c
    expect: {text: new}
"""
    )
    assert path.read_text(encoding="utf-8") == new
    # a test written as one flow mapping stays one
    flow = write(
        tmp_path,
        "server: x\ntests:\n  - {name: a, call: b, expect: {text: old}}  # short\n  - {name: c, call: d}\n",
        "flow.mcpx.yaml",
    )
    assert update_expectations(flow, {0: {"text": "new"}, 1: {"isError": True}}) == (
        "server: x\ntests:\n  - {name: a, call: b, expect: {text: new}}  # short\n"
        "  - {name: c, call: d, expect: {isError: true}}\n"
    )
    long = {"structuredContent": {"rows": [{"id": i, "name": f"row {i}"} for i in range(3)]}}
    update_expectations(path, {2: long})
    assert load_collection(path).tests[2].expect == long


def test_a_server_of_a_config_file_beside_the_collection(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text(
        '{"mcpServers": {"calc": {"command": "calc-server", "args": ["--fast"]}, "other": {"command": "x"}}}',
        encoding="utf-8",
    )
    collection = load_collection(write(tmp_path, "server: {config: mcp.json, server: calc}\n"))
    spec = collection.server.spec()
    assert spec.command == ["calc-server", "--fast"] and spec.cwd == str(tmp_path)
    with pytest.raises(
        CollectionError, match=r"defines 2 servers; name one: \{config: …, server: NAME\}: calc, other"
    ):
        load_collection(write(tmp_path, "server: {config: mcp.json}\n")).server.spec()
