"""Which of an HTTP host's headers `mcpx proxy --listen` passes on to a URL target (mcpx.proxy.forward)."""

from __future__ import annotations

from mcpx.proxy.forward import HeaderFilter, refused_names


def test_no_credential_passes_unless_named() -> None:
    headers = [
        ("Authorization", "Bearer t"),
        ("Cookie", "a=1"),
        ("X-Api-Key", "k"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "echo"),
        ("Mcp-Param-Region", "eu"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("User-Agent", "Claude/1"),
        ("Host", "127.0.0.1:9"),
        ("Origin", "http://localhost"),
        ("Mcp-Session-Id", "proxys"),
        ("Content-Length", "3"),
    ]
    passing = HeaderFilter()
    assert (
        passing(headers)
        == passing(headers)
        == {  # (the second from its memory of the names)
            "Mcp-Method": "tools/call",
            "Mcp-Name": "echo",
            "Mcp-Param-Region": "eu",
            "MCP-Protocol-Version": "2026-07-28",
            "User-Agent": "Claude/1",
        }
    )
    named = HeaderFilter(["authorization", "X-API-KEY", "Origin"])(headers)
    assert named["Authorization"] == "Bearer t" and named["X-Api-Key"] == "k"
    assert "Origin" not in named and "Cookie" not in named  # Origin is never passed, even named


def test_repeated_headers_are_one_list_and_hop_headers_cannot_be_named() -> None:
    assert HeaderFilter(["x-trace"])([("X-Trace", "a"), ("x-trace", "b")]) == {"X-Trace": "a, b"}
    assert refused_names(["X-Tenant", "Host", "mcp-session-id"]) == ["Host", "mcp-session-id"]
