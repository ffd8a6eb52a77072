"""Save as test without a screen: a call's name and expectation, and the `server:` a new collection gets
(it must reach the same server from the collection's folder, and never carry env values)."""

from __future__ import annotations

import sys
from pathlib import Path

from mcpx.collection.model import load_collection
from mcpx.target import ServerSpec, resolve_target
from mcpx.tui.testing.save_test import call_as_test, save_call, server_entry, unique_name


def test_names_are_unique_and_short() -> None:
    assert unique_name("ping", {}) == "ping"
    assert unique_name("add", {"a": 2}, taken=['add {"a":2}']) == 'add {"a":2} (2)'
    long = unique_name("echo", {"text": "x" * 100})
    assert len(long) < 50 and long.endswith("…")


def test_an_error_answer_expects_its_code() -> None:
    test = call_as_test("div", {"a": 1, "b": 0}, None, error_code=-32602, error="division by zero")
    assert test == {"name": 'div {"a":1,"b":0}', "call": "div", "arguments": {"a": 1, "b": 0},
                    "expect": {"error": -32602}}  # fmt: skip


def test_the_server_a_new_collection_names(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    script = tmp_path / "src" / "server.py"
    script.write_text("")
    spec = resolve_target(str(script), ["--verbose"], env={"API_TOKEN": "s3cret"})
    assert server_entry(spec, tmp_path / "src") == "./server.py --verbose"
    assert server_entry(spec, tmp_path / "tests") == "../src/server.py --verbose"
    uv = ServerSpec(command=["uv", "run", str(script)], cwd=str(tmp_path / "src"))
    assert server_entry(uv, tmp_path / "src") == "uv run ./server.py"
    assert server_entry(ServerSpec(url="https://u:p@example.invalid/mcp"), tmp_path).startswith("https://")
    assert "p@" not in server_entry(ServerSpec(url="https://u:p@example.invalid/mcp"), tmp_path)
    demo = resolve_target("demo")
    assert server_entry(demo, tmp_path) == "demo"


def test_saved_tests_load_and_append(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text("")
    spec = resolve_target(str(script))
    path = tmp_path / "server.mcpx.yaml"
    first = save_call(
        path, call_as_test("add", {"a": 2, "b": 3}, {"content": [{"type": "text", "text": "5"}]}), spec
    )
    second = save_call(path, call_as_test("add", {"a": 2, "b": 3}, {"content": [], "isError": True},
                                          taken=[first.name]), spec)  # fmt: skip
    assert first.created and not second.created
    collection = load_collection(path)
    assert collection.server is not None and collection.server.spec().command == [sys.executable, str(script)]
    assert [(t.name, t.expect) for t in collection.tests] == [
        ('add {"a":2,"b":3}', {"isError": False, "text": "5"}),
        ('add {"a":2,"b":3} (2)', {"isError": True, "text": ""}),
    ]
