"""Config discovery across hosts (home and project roots pointed at temporary directories), and the
names an agent sees with what hosts reject."""

from __future__ import annotations

import json
from pathlib import Path

from mcpx.workspace.agent_view import agent_tools, approx_tokens, definition_size
from mcpx.workspace.discovery import Places, claude_desktop_path, discover, from_file


def put(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_every_host_file_is_found_with_its_host(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "work" / "project"
    project.mkdir(parents=True)
    places = Places(home=home, cwd=project / "sub", platform="linux", environ={})
    one = {"mcpServers": {"a": {"command": "a"}}}
    put(home / ".config" / "Claude" / "claude_desktop_config.json", one)
    put(
        home / ".claude.json",
        {
            "mcpServers": {"user": {"command": "u"}},
            "projects": {
                str(project): {"mcpServers": {"local": {"type": "http", "url": "http://x/mcp"}}},
                "/elsewhere": {"mcpServers": {"other": {"command": "o"}}},
            },
        },
    )
    put(project / "sub" / ".mcp.json", {"mcpServers": {"shared": {"command": "s", "args": ["${env:NOPE}"]}}})
    put(home / ".cursor" / "mcp.json", {"mcpServers": {"cur": {"url": "https://c/mcp"}}})
    put(project / "sub" / ".cursor" / "mcp.json", {"mcpServers": {"curp": {"command": "cp"}}})
    put(project / "sub" / ".vscode" / "mcp.json", {"servers": {"vs": {"type": "stdio", "command": "v"}}})
    rows = discover(places)
    assert [(r.name, r.host) for r in rows] == [
        ("a", "Claude Desktop"),
        ("user", "Claude Code (user)"),
        ("local", f"Claude Code (local: {project})"),
        ("shared", "Claude Code (project)"),
        ("cur", "Cursor"),
        ("curp", "Cursor (project)"),
        ("vs", "VS Code (project)"),
    ]
    by_name = {r.name: r for r in rows}
    assert by_name["local"].transport == "http" and by_name["local"].remote
    assert by_name["vs"].transport == "stdio"
    assert by_name["shared"].spec is not None and by_name["shared"].spec.command == ["s", ""]
    assert by_name["a"].source == str(home / ".config" / "Claude" / "claude_desktop_config.json")


def test_claude_desktop_path_per_platform(tmp_path: Path) -> None:
    mac = Places(home=tmp_path, cwd=tmp_path, platform="darwin", environ={})
    win = Places(home=tmp_path, cwd=tmp_path, platform="win32", environ={"APPDATA": str(tmp_path / "R")})
    xdg = Places(home=tmp_path, cwd=tmp_path, platform="linux", environ={"XDG_CONFIG_HOME": "/x"})
    assert claude_desktop_path(mac).parts[-4:] == (
        "Library",
        "Application Support",
        "Claude",
        "claude_desktop_config.json",
    )
    assert claude_desktop_path(win) == tmp_path / "R" / "Claude" / "claude_desktop_config.json"
    assert claude_desktop_path(xdg) == Path("/x/Claude/claude_desktop_config.json")


def test_broken_files_and_entries_are_rows_with_reasons(tmp_path: Path) -> None:
    places = Places(home=tmp_path, cwd=tmp_path / "p", platform="linux", environ={})
    put(tmp_path / ".cursor" / "mcp.json", "{not json")
    put(tmp_path / ".claude.json", "[1, 2]")
    put(tmp_path / "p" / ".mcp.json", {"mcpServers": {"bad": {"type": "carrier-pigeon", "url": "x"}}})
    rows = discover(places)
    assert [(r.host, r.spec is None) for r in rows] == [
        ("Claude Code", True),
        ("Claude Code (project)", True),
        ("Cursor", True),
    ]
    assert "not valid JSON" in (rows[2].problem or "")
    assert "carrier-pigeon" in (rows[1].problem or "")
    assert rows[2].transport == "?"
    missing = from_file(tmp_path / "nope.json")
    assert len(missing) == 1 and "does not exist" in (missing[0].problem or "")


def test_nothing_configured_is_an_empty_list(tmp_path: Path) -> None:
    assert discover(Places(home=tmp_path, cwd=tmp_path, platform="linux", environ={})) == []


def test_agent_view_flags_what_hosts_reject() -> None:
    ok = {"name": "echo", "description": "Echo.", "inputSchema": {"type": "object"}}
    tools = agent_tools(
        [
            ("files", [ok, {"name": "read", "inputSchema": {"type": "object"}}, {"name": "read"}]),
            ("files_echo", [{"name": "x", "description": "d", "inputSchema": {"type": "array"}}]),
            ("my.server", [{"name": "a" * 60, "description": "long", "inputSchema": {"type": "object"}}]),
            ("my_server", [{"name": "a" * 60, "description": "long", "inputSchema": {"type": "object"}}]),
        ]
    )
    flags = {(t.server, t.tool[:6]): t.flags for t in tools}
    assert tools[0].name == "mcp__files__echo" and tools[0].flags == ()
    assert [t.flags for t in tools if t.tool == "read"] == [
        ("duplicate", "no-description"),
        ("duplicate", "no-description", "schema-not-object"),
    ]
    assert flags[("files_echo", "x")] == ("schema-not-object",)
    assert flags[("my.server", "aaaaaa")] == ("collision", "too-long", "bad-characters")
    assert flags[("my_server", "aaaaaa")] == ("collision", "too-long")
    dotted = next(t for t in tools if t.server == "my.server")
    assert dotted.collides_with == (("my_server", "a" * 60),)
    assert any("'.'" in line for line in dotted.explain())


def test_same_name_from_two_files_collides() -> None:
    tool = {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
    tools = agent_tools([("gh", [tool]), ("gh", [tool])])
    assert [t.flags for t in tools] == [("collision",), ("collision",)]


def test_definition_size_counts_what_an_agent_receives() -> None:
    tool = {"name": "t", "description": "d", "inputSchema": {"type": "object"}, "_meta": {"x": "y" * 100}}
    chars, tokens = definition_size([tool])
    assert chars == len('{"name":"t","description":"d","inputSchema":{"type":"object"}}')
    assert tokens == approx_tokens(chars) == (chars + 3) // 4
