"""`mcpx call`'s text output: what a person wants to read, not the whole frame.

A tool result prints its content (text as text; an image, audio or blob as one line saying what it is)
and then its structured result; a resource read prints its contents the same way; a prompt prints its
messages. `_meta` (a modern server puts its identity and base64 icons there on every result) and other
envelope fields are left out. Everything else prints as indented JSON without the top-level `_meta`.
`--format json` is the place for everything, byte for byte.

Server text passes through `escape_controls` once, here, where it meets the terminal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mcpx.wire.controls import escape_controls

# schema/content.py (what a content block is) is imported where a block is read: a list or any other
# JSON result never needs it, and it costs each `mcpx call` ~2 ms to import

#: a `data:` URL longer than this is shown as its media type and size
_DATA_URL_SHOWN = 80


def result_text(method: str, result: Any) -> str:
    """The text format of `result`, the answer to `method` (ends without a newline)."""
    if isinstance(result, Mapping):
        if method == "tools/call" and isinstance(result.get("content"), list):
            return escape_controls(_tool_result(result))
        if method == "resources/read" and isinstance(result.get("contents"), list):
            return escape_controls("\n".join(_resource(item) for item in result["contents"]))
        if method == "prompts/get" and isinstance(result.get("messages"), list):
            return escape_controls(_prompt(result))
        result = {key: value for key, value in result.items() if key != "_meta"}
    return escape_controls(_json(result))


def _json(value: Any) -> str:
    return json.dumps(_shorten_data_urls(value), indent=2, ensure_ascii=False)


def _shorten_data_urls(value: Any) -> Any:
    """`data:` URLs (icons in every list) as their type and size: base64 is no reading for a person."""
    if isinstance(value, str):
        if value.startswith("data:") and len(value) > _DATA_URL_SHOWN and "," in value:
            head, _, data = value.partition(",")
            return f"{head},… ({_size(len(data) * 3 // 4) or 'empty'})"
        return value
    if isinstance(value, Mapping):
        return {key: _shorten_data_urls(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shorten_data_urls(item) for item in value]
    return value


def _tool_result(result: Mapping[str, Any]) -> str:
    parts = [_block(block) for block in result["content"]]
    structured = result.get("structuredContent")
    if structured is not None and not _shown_already(structured, result["content"]):
        parts.append("structured result:\n" + _json(structured))
    if not parts:
        parts.append("(no content)")
    return "\n".join(parts)


def _shown_already(structured: Any, content: list[Any]) -> bool:
    """True when the text content already says what `structured` holds: the spec's serialized-JSON twin
    of it, or the SDKs' wrapping of a plain return value as `{"result": text}`."""
    from mcpx.schema.content import content_kind

    texts = [b["text"] for b in content if content_kind(b)[0] == "text"]
    if len(texts) != 1:
        return False
    if isinstance(structured, Mapping) and len(structured) == 1 and list(structured.values()) == texts:
        return True
    try:
        return bool(json.loads(texts[0]) == structured)
    except ValueError:
        return False


def _block(block: Any) -> str:
    from mcpx.schema.content import content_kind

    kind, reason = content_kind(block)
    if kind == "text":
        return str(block["text"])
    if kind in ("image", "audio"):
        return f"[{_media(kind, block['data'], block.get('mimeType'))}]"
    if kind == "resource_link":
        name = block.get("name") or block.get("title")
        facts = [str(block.get("mimeType") or ""), _size(block.get("size"))]
        return f"[resource link {block['uri']}{f' ({name})' if name else ''}{_facts(facts)}]"
    if kind == "resource":
        resource = block["resource"]
        mime = str(resource.get("mimeType") or "")
        return f"[embedded resource {resource.get('uri', '?')}{_facts([mime])}]\n{_resource(resource)}"
    if kind == "invalid":
        return f"[invalid content block: {reason}] {json.dumps(block, ensure_ascii=False)}"
    return json.dumps(block, ensure_ascii=False)  # a type this mcpx does not know: as sent, one line


def _resource(item: Any) -> str:
    """One entry of a read's `contents` (or an embedded resource): its text, or a line saying what it is."""
    if not isinstance(item, Mapping):
        return json.dumps(item, ensure_ascii=False)
    uri = item.get("uri", "?")
    if isinstance(item.get("text"), str):
        return str(item["text"])
    if "blob" in item:
        mime = item.get("mimeType")
        kind = str(mime).split("/")[0] if str(mime).startswith(("image/", "audio/")) else ""
        return f"[{uri}: {_media(kind, item['blob'], mime)}]"
    return json.dumps(item, ensure_ascii=False)


def _media(kind: str, data: Any, mime: Any) -> str:
    from mcpx.schema.content import audio_info, decode_base64, image_info

    raw, problem = decode_base64(data)
    info = image_info(raw) if kind == "image" else audio_info(raw) if kind == "audio" else None
    facts = [str(mime or "?"), _size(len(raw))]
    if info is not None and info.width and info.height:
        facts.append(f"{info.width}×{info.height}")
    if info is not None and info.duration:
        facts.append(f"{info.duration:.1f} s")
    if problem:
        facts.append(problem)
    label = kind or "blob"
    return f"{label} {', '.join(f for f in facts if f)}"


def _size(size: Any) -> str:
    if not isinstance(size, int) or isinstance(size, bool):
        return ""
    if size < 1000:
        return f"{size} bytes"
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"


def _facts(facts: list[str]) -> str:
    shown = [f for f in facts if f]
    return f", {', '.join(shown)}" if shown else ""


def _prompt(result: Mapping[str, Any]) -> str:
    lines = []
    if isinstance(result.get("description"), str):
        lines.append(result["description"])
    for message in result["messages"]:
        if not isinstance(message, Mapping):
            lines.append(json.dumps(message, ensure_ascii=False))
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        lines.append(f"{message.get('role', '?')}: " + "\n".join(_block(b) for b in blocks))
    return "\n".join(lines)
