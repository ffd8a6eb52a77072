"""What a server offers, as plain data plus the coroutine that serves each item.

A `Tool`, `Resource`, `ResourceTemplate` or `Prompt` knows how it is listed (`describe()`, the wire
form) and how it is served (its handler). Nothing here knows about eras: handlers get a `Context`
(context.py) that hides how the client is asked for input, and return plain MCP results.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpx.demo.core.context import Context

JsonObject = dict[str, Any]
#: a tool handler returns a CallToolResult (without `resultType`), or a string for one text block
ToolHandler = Callable[[JsonObject, "Context"], Awaitable["JsonObject | str"]]
#: a resource reader returns the `contents` list of a ReadResourceResult
ResourceReader = Callable[["Context"], Awaitable[list[JsonObject]]]
TemplateReader = Callable[[dict[str, str], "Context"], Awaitable[list[JsonObject]]]
PromptRenderer = Callable[[dict[str, str], "Context"], Awaitable[JsonObject]]
#: (value typed so far, the other arguments already chosen) → suggestions
Completer = Callable[[str, dict[str, str]], "list[str] | Awaitable[list[str]]"]

NO_ARGUMENTS: JsonObject = {"type": "object", "additionalProperties": False}


class ToolFailure(Exception):  # it is a result, not an error of the server
    """Raise in a tool handler to answer a tool execution error (`isError: true`) with this text."""


def _put(out: JsonObject, key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


@dataclass(slots=True)
class Tool:
    name: str
    handler: ToolHandler
    description: str | None = None
    title: str | None = None
    input_schema: JsonObject = field(default_factory=lambda: dict(NO_ARGUMENTS))
    output_schema: JsonObject | None = None
    annotations: JsonObject | None = None
    icons: list[JsonObject] | None = None
    meta: JsonObject | None = None
    #: check arguments against `input_schema` before the handler runs; a mismatch is a tool execution
    #: error (SEP-1303), so a client sending invalid input on purpose sees what the server thought of it
    validate: bool = True

    def describe(self) -> JsonObject:
        out: JsonObject = {"name": self.name}
        _put(out, "title", self.title)
        _put(out, "description", self.description)
        out["inputSchema"] = self.input_schema
        _put(out, "outputSchema", self.output_schema)
        _put(out, "annotations", self.annotations)
        _put(out, "icons", self.icons)
        _put(out, "_meta", self.meta)
        return out


@dataclass(slots=True)
class Resource:
    uri: str
    name: str
    read: ResourceReader
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: JsonObject | None = None
    icons: list[JsonObject] | None = None

    def describe(self) -> JsonObject:
        out: JsonObject = {"uri": self.uri, "name": self.name}
        _put(out, "title", self.title)
        _put(out, "description", self.description)
        _put(out, "mimeType", self.mime_type)
        _put(out, "size", self.size)
        _put(out, "annotations", self.annotations)
        _put(out, "icons", self.icons)
        return out


_VARIABLE = re.compile(r"\{([A-Za-z0-9_]+)\}")


@dataclass(slots=True)
class ResourceTemplate:
    """An RFC 6570 template. Serving supports simple `{var}` expressions only (enough to match a URI back
    to its variables); the template text itself is listed as written."""

    uri_template: str
    name: str
    read: TemplateReader
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: JsonObject | None = None
    icons: list[JsonObject] | None = None
    complete: dict[str, Completer] = field(default_factory=dict)
    _pattern: re.Pattern[str] | None = None

    def match(self, uri: str) -> dict[str, str] | None:
        if self._pattern is None:
            parts, last = [], 0
            for found in _VARIABLE.finditer(self.uri_template):
                parts.append(re.escape(self.uri_template[last : found.start()]))
                parts.append(f"(?P<{found.group(1)}>[^/?#]+)")
                last = found.end()
            parts.append(re.escape(self.uri_template[last:]))
            self._pattern = re.compile("".join(parts) + r"\Z")
        matched = self._pattern.match(uri)
        return matched.groupdict() if matched else None

    def describe(self) -> JsonObject:
        out: JsonObject = {"uriTemplate": self.uri_template, "name": self.name}
        _put(out, "title", self.title)
        _put(out, "description", self.description)
        _put(out, "mimeType", self.mime_type)
        _put(out, "annotations", self.annotations)
        _put(out, "icons", self.icons)
        return out


@dataclass(slots=True)
class PromptArgument:
    name: str
    description: str | None = None
    required: bool = False
    title: str | None = None
    complete: Completer | None = None

    def describe(self) -> JsonObject:
        out: JsonObject = {"name": self.name}
        _put(out, "title", self.title)
        _put(out, "description", self.description)
        if self.required:
            out["required"] = True
        return out


@dataclass(slots=True)
class Prompt:
    name: str
    render: PromptRenderer
    description: str | None = None
    title: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list)
    icons: list[JsonObject] | None = None

    def describe(self) -> JsonObject:
        out: JsonObject = {"name": self.name}
        _put(out, "title", self.title)
        _put(out, "description", self.description)
        if self.arguments:
            out["arguments"] = [argument.describe() for argument in self.arguments]
        _put(out, "icons", self.icons)
        return out


# -- result helpers ------------------------------------------------------------------------------------
def text(value: str, **annotations: Any) -> JsonObject:
    block: JsonObject = {"type": "text", "text": value}
    if annotations:
        block["annotations"] = annotations
    return block


def text_contents(uri: str, value: str, mime_type: str = "text/plain") -> JsonObject:
    return {"uri": uri, "mimeType": mime_type, "text": value}


def blob_contents(uri: str, data_b64: str, mime_type: str) -> JsonObject:
    return {"uri": uri, "mimeType": mime_type, "blob": data_b64}
