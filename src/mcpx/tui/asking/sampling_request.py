"""How a `sampling/createMessage` request reads on screen: messages by role with every content type
(text, image, audio, tool_use, tool_result, resources, anything unknown as JSON), the system prompt,
model preferences, limits, context and tools. Markup strings only; what the server sent is escaped."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson
from textual.markup import escape

#: characters of a text block shown before "…"
TEXT_LIMIT = 4000


def _json(value: Any, limit: int = 600) -> str:
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        text = repr(value)
    return escape(text if len(text) <= limit else text[:limit] + " …")


def _size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    try:
        size = len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return f"{len(data):,} characters, not valid base64"
    return f"{size:,} bytes" if size < 10_000 else f"{size / 1024:,.1f} KiB"


def block(content: Any) -> str:
    """One content block as markup."""
    if not isinstance(content, dict):
        return f"[$text-warning]not a content block:[/] {_json(content)}"
    kind = content.get("type")
    if kind == "text":
        text = str(content.get("text", ""))
        return escape(text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + " …")
    if kind in ("image", "audio"):
        mime = escape(str(content.get("mimeType", "?")))
        return f"[$accent]\\[{kind}][/] {mime}, {_size(content.get('data'))}"
    if kind == "tool_use":
        name = escape(str(content.get("name", "?")))
        return (
            f"[$accent]\\[tool_use][/] [b]{name}[/b] id {escape(str(content.get('id', '?')))}\n"
            f"{_json(content.get('input'))}"
        )
    if kind == "tool_result":
        error = " [$text-error](error)[/]" if content.get("isError") else ""
        inner = content.get("content")
        parts = [block(c) for c in inner] if isinstance(inner, list) else []
        if "structuredContent" in content:
            parts.append(_json(content["structuredContent"]))
        head = f"[$accent]\\[tool_result][/] for {escape(str(content.get('toolUseId', '?')))}{error}"
        return "\n".join([head, *parts])
    if kind == "resource":
        found = content.get("resource")
        resource: dict[str, Any] = found if isinstance(found, dict) else {}
        uri = escape(str(resource.get("uri", "?")))
        body = resource.get("text")
        shown = escape(str(body)[:TEXT_LIMIT]) if body is not None else _size(resource.get("blob"))
        return f"[$accent]\\[resource][/] {uri}\n{shown}"
    if kind == "resource_link":
        return f"[$accent]\\[resource_link][/] {escape(str(content.get('uri', '?')))}"
    return f"[$accent]\\[{escape(str(kind))}][/] {_json(content)}"


def message(raw: Any) -> tuple[str, str]:
    """(role, markup of its content) for one SamplingMessage."""
    if not isinstance(raw, dict):
        return "?", f"[$text-warning]not a message:[/] {_json(raw)}"
    role = str(raw.get("role", "?"))
    content = raw.get("content")
    blocks = content if isinstance(content, list) else [content]
    return role, "\n".join(block(b) for b in blocks)


def settings(params: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, markup) rows: the request's parameters other than messages and the system prompt."""
    rows: list[tuple[str, str]] = [("max tokens", escape(str(params.get("maxTokens", "— (missing)"))))]
    if "temperature" in params:
        rows.append(("temperature", escape(str(params["temperature"]))))
    stops = params.get("stopSequences")
    if stops:
        shown = ", ".join(repr(s) for s in stops) if isinstance(stops, list) else repr(stops)
        rows.append(("stop sequences", escape(shown)))
    if "includeContext" in params:
        rows.append(("include context", escape(str(params["includeContext"]))))
    prefs = params.get("modelPreferences")
    if isinstance(prefs, dict):
        hints = prefs.get("hints")
        names = [str(h.get("name")) for h in hints if isinstance(h, dict)] if isinstance(hints, list) else []
        if names:
            rows.append(("model hints", escape(", ".join(names))))
        for key, label in (
            ("intelligencePriority", "intelligence"),
            ("speedPriority", "speed"),
            ("costPriority", "cost"),
        ):
            if key in prefs:
                rows.append((f"{label} priority", escape(str(prefs[key]))))
    tools = params.get("tools")
    if isinstance(tools, list) and tools:
        lines = []
        for tool in tools:
            if isinstance(tool, dict):
                description = str(tool.get("description") or "").split("\n")[0]
                lines.append(f"[b]{escape(str(tool.get('name', '?')))}[/b] {escape(description)}")
        rows.append(("tools", "\n".join(lines)))
    if "toolChoice" in params:
        rows.append(("tool choice", _json(params["toolChoice"])))
    if "metadata" in params:
        rows.append(("metadata", _json(params["metadata"])))
    known = {
        "messages", "systemPrompt", "maxTokens", "temperature", "stopSequences", "includeContext",
        "modelPreferences", "tools", "toolChoice", "metadata", "_meta",
    }  # fmt: skip
    for key, value in params.items():
        if key not in known:
            rows.append((escape(key), _json(value)))
    return rows


def summary(reply: dict[str, Any]) -> str:
    """A one-line label for a previous reply (plain text)."""
    content = reply.get("content")
    blocks = content if isinstance(content, list) else [content]
    text = " ".join(
        str(b.get("text", "")) if isinstance(b, dict) and b.get("type") == "text" else f"[{b.get('type')}]"
        for b in blocks
        if isinstance(b, dict)
    )
    text = " ".join(text.split())
    return f"{reply.get('model', '?')}: {text[:50]}{'…' if len(text) > 50 else ''}"
