"""Commands mcpx prints for the user to run can be copied and run as printed."""

from __future__ import annotations

import shlex

from mcpx.target import command_line
from mcpx.transports.spec import ServerSpec


def test_server_arguments_follow_a_double_dash_and_are_quoted() -> None:
    spec = ServerSpec(command=["python3", "/srv/server.py", "--port", "8 0"])
    line = command_line("doctor", spec, target="./server.py", server_args=["--port", "8 0"])
    assert line == "mcpx doctor ./server.py -- --port '8 0'"
    assert shlex.split(line) == ["mcpx", "doctor", "./server.py", "--", "--port", "8 0"]


def test_without_the_typed_words_the_resolved_command_is_used() -> None:
    spec = ServerSpec(command=["node", "/opt/x y/index.js", "-v"], cwd="/tmp/a b", transport="stdio")
    words = shlex.split(command_line("check", spec))
    assert words == [
        "mcpx",
        "check",
        "node",
        "--cwd",
        "/tmp/a b",
        "--transport",
        "stdio",
        "--",
        "/opt/x y/index.js",
        "-v",
    ]


def test_a_url_and_a_config_entry() -> None:
    assert (
        command_line("doctor", ServerSpec(url="https://h/mcp?a=1&b=2"))
        == "mcpx doctor 'https://h/mcp?a=1&b=2'"
    )
    entry = ServerSpec(command=["x"], name="my server", source="/home/u/.mcp.json")
    assert command_line("check", entry) == "mcpx check --config /home/u/.mcp.json --server 'my server'"


def test_secret_values_are_never_printed() -> None:
    spec = ServerSpec(
        url="https://h/mcp", headers={"Authorization": "Bearer s3cret"}, env={"TOKEN": "s3cret"}
    )
    assert "s3cret" not in command_line("doctor", spec)
    assert "s3cret" not in command_line("doctor", ServerSpec(url="https://me:s3cret@h/mcp?token=s3cret"))
