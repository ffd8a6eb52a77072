"""`mcpx call`'s text format (mcpx.cli.result_text): content as text, media as one line, the structured
result, no `_meta`; `--format json` is tested with the CLI (it keeps everything)."""

from __future__ import annotations

import base64
import json
import struct
import zlib

from mcpx.cli.result_text import result_text

SERVER_META = {
    "io.modelcontextprotocol/serverInfo": {
        "name": "demo",
        "icons": [{"src": "data:image/png;base64," + "A" * 4000, "mimeType": "image/png"}],
    }
}


def png(width: int, height: int) -> str:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")
    return base64.b64encode(raw).decode()


def test_a_tool_result_is_its_text_and_its_structured_result_without_meta() -> None:
    result = {
        "content": [{"type": "text", "text": "2 + 3 = 5"}],
        "structuredContent": {"sum": 5},
        "_meta": SERVER_META,
        "resultType": "complete",
    }
    assert result_text("tools/call", result) == '2 + 3 = 5\nstructured result:\n{\n  "sum": 5\n}'


def test_a_structured_result_the_text_already_shows_is_not_repeated() -> None:
    twin = {"content": [{"type": "text", "text": '{"sum": 5}'}], "structuredContent": {"sum": 5}}
    assert result_text("tools/call", twin) == '{"sum": 5}'
    wrapped = {"content": [{"type": "text", "text": "hello"}], "structuredContent": {"result": "hello"}}
    assert result_text("tools/call", wrapped) == "hello"
    other = {"content": [{"type": "text", "text": "hello"}], "structuredContent": {"result": "bye"}}
    assert result_text("tools/call", other) == 'hello\nstructured result:\n{\n  "result": "bye"\n}'


def test_media_are_one_line_each_and_links_and_embedded_resources_say_what_they_are() -> None:
    result = {
        "content": [
            {"type": "image", "data": png(32, 16), "mimeType": "image/png"},
            {
                "type": "audio",
                "data": base64.b64encode(b"ID3" + b"\0" * 2000).decode(),
                "mimeType": "audio/mpeg",
            },
            {
                "type": "resource_link",
                "uri": "file:///a.md",
                "name": "a",
                "mimeType": "text/markdown",
                "size": 1200,
            },
            {
                "type": "resource",
                "resource": {"uri": "demo://c.json", "mimeType": "application/json", "text": "{}"},
            },
            {
                "type": "resource",
                "resource": {"uri": "demo://b.bin", "blob": "AAEC", "mimeType": "application/zip"},
            },
            {"type": "hologram", "depth": 3},
        ]
    }
    lines = result_text("tools/call", result).splitlines()
    assert lines == [
        "[image image/png, 45 bytes, 32×16]",
        "[audio audio/mpeg, 2.0 kB]",
        "[resource link file:///a.md (a), text/markdown, 1.2 kB]",
        "[embedded resource demo://c.json, application/json]",
        "{}",
        "[embedded resource demo://b.bin, application/zip]",
        "[demo://b.bin: blob application/zip, 3 bytes]",
        '{"type": "hologram", "depth": 3}',
    ]
    assert all(len(line) < 100 for line in lines), "no base64 reaches the text format"


def test_a_resource_read_prints_its_text_and_a_line_per_blob() -> None:
    result = {
        "contents": [
            {"uri": "demo://readme", "mimeType": "text/markdown", "text": "# Hi\nthere"},
            {"uri": "demo://logo", "mimeType": "image/png", "blob": png(2, 3)},
        ],
        "_meta": SERVER_META,
    }
    assert (
        result_text("resources/read", result) == "# Hi\nthere\n[demo://logo: image image/png, 45 bytes, 2×3]"
    )


def test_a_prompt_prints_its_description_and_messages_by_role() -> None:
    result = {
        "description": "A greeting",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Greet Ann."}},
            {"role": "assistant", "content": {"type": "image", "data": png(1, 1), "mimeType": "image/png"}},
        ],
    }
    assert result_text("prompts/get", result) == (
        "A greeting\nuser: Greet Ann.\nassistant: [image image/png, 45 bytes, 1×1]"
    )


def test_other_results_are_indented_json_without_meta_and_with_data_urls_shortened() -> None:
    result = {
        "tools": [{"name": "t", "icons": [{"src": "data:image/png;base64," + "A" * 400}]}],
        "_meta": SERVER_META,
    }
    text = result_text("tools/list", result)
    assert json.loads(text) == {
        "tools": [{"name": "t", "icons": [{"src": "data:image/png;base64,… (300 bytes)"}]}]
    }
    assert text.startswith('{\n  "tools"')


def test_an_error_result_and_an_empty_one_still_print_something() -> None:
    assert result_text("tools/call", {"content": [], "isError": True}) == "(no content)"
    assert (
        result_text("tools/call", {"content": [{"type": "text", "text": "boom"}], "isError": True}) == "boom"
    )


def test_server_text_is_escaped_for_the_terminal() -> None:
    text = result_text("tools/call", {"content": [{"type": "text", "text": "a\x1b]52;c;x\x07b\rc"}]})
    assert text == "a\\x1b]52;c;x\\x07b\\rc"
