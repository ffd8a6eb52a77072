"""The inspector's key=value flag languages."""

from __future__ import annotations

import sys

import pytest

from mcpx.cli.options import parse_headers, parse_params, parse_tool_args
from mcpx.errors import UsageError
from mcpx.transports.spec import resolve_target


def test_tool_args_are_json_when_they_parse_else_strings() -> None:
    args = parse_tool_args(["n=3", "flag=true", "s=hello", 'obj={"a": [1]}', "empty="], None)
    assert args == {"n": 3, "flag": True, "s": "hello", "obj": {"a": [1]}, "empty": ""}


def test_tool_args_json_merges_under_tool_arg() -> None:
    assert parse_tool_args(["a=2"], '{"a": 1, "b": 1}') == {"a": 2, "b": 1}
    with pytest.raises(UsageError):
        parse_tool_args(["novalue"], None)
    with pytest.raises(UsageError):
        parse_tool_args(None, "[1]")


def test_headers_and_params() -> None:
    assert parse_headers(["Authorization: Bearer x:y"]) == {"Authorization": "Bearer x:y"}
    with pytest.raises(UsageError):
        parse_headers(["nocolon"])
    with pytest.raises(UsageError):
        parse_params("{bad")


def test_target_rules(tmp_path: object) -> None:
    script = __file__
    assert resolve_target(script, ["--x"]).command == [sys.executable, script, "--x"]
    assert resolve_target("uvx", ["mcp-server-time"]).command == ["uvx", "mcp-server-time"]
    assert resolve_target("npx -y @scope/server").command == ["npx", "-y", "@scope/server"]
    assert resolve_target("https://h/mcp").url == "https://h/mcp"
    with pytest.raises(UsageError, match="does not exist"):
        resolve_target("missing.py")
