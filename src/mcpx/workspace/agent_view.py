"""The tools as an agent host presents them to a model: `mcp__{server}__{tool}`, and what hosts reject.

Hosts namespace every tool with its server's name and send the model only names matching
`^[A-Za-z0-9_-]{1,64}$` (the Anthropic and OpenAI tool-name rule); names outside it are mangled (other
characters become `_`) or refused. Flags, per tool:

    collision          another tool ends up with the same name (after mangling)
    too-long           the full name is over 64 characters
    bad-characters     characters outside [A-Za-z0-9_-] in the full name
    duplicate          the server lists this tool name more than once
    no-description     no description (or an empty one): the model guesses from the name
    schema-not-object  inputSchema is missing or not {"type": "object", …}

Also: the size of a server's tool definitions, what an agent pays in context for it. Characters are those
of the tools as listed (name, title, description, inputSchema, outputSchema, annotations — compact JSON);
tokens are approximated as characters / 4, the usual rule of thumb for English and JSON with the
Claude and GPT tokenizers (expect ±25 %; no tokenizer is loaded).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MAX_NAME = 64
CHARS_PER_TOKEN = 4
_BAD = re.compile(r"[^A-Za-z0-9_-]")
#: the fields of a tool that a host sends to the model
SENT_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
FLAG_TEXT = {
    "collision": "collides with another tool's name",
    "too-long": f"longer than {MAX_NAME} characters",
    "bad-characters": "characters outside [A-Za-z0-9_-]",
    "duplicate": "listed more than once by its server",
    "no-description": "no description",
    "schema-not-object": "input schema is not an object",
}


@dataclass(frozen=True, slots=True)
class AgentTool:
    """One tool under the name an agent sees, with what a host would object to."""

    server: str
    tool: str
    name: str
    description: str
    flags: tuple[str, ...]
    #: for a collision: the other (server, tool) pairs sharing the name
    collides_with: tuple[tuple[str, str], ...] = ()

    def explain(self) -> list[str]:
        lines = []
        for flag in self.flags:
            text = FLAG_TEXT[flag]
            if flag == "collision" and self.collides_with:
                text += ": " + ", ".join(f"{s}/{t}" for s, t in self.collides_with)
            elif flag == "too-long":
                text += f" ({len(self.name)})"
            elif flag == "bad-characters":
                text += ": " + " ".join(repr(c) for c in sorted(set(_BAD.findall(self.name))))
            lines.append(text)
        return lines


def agent_name(server: str, tool: str) -> str:
    return f"mcp__{server}__{tool}"


def mangled(name: str) -> str:
    return _BAD.sub("_", name)


def agent_tools(servers: Iterable[tuple[str, Sequence[Mapping[str, Any] | Any]]]) -> list[AgentTool]:
    """Every tool of every server (name, raw tool dicts) as an agent sees them, flagged."""
    rows: list[tuple[int, str, str, str, str, list[str]]] = []
    for index, (server, tools) in enumerate(servers):
        names = Counter(str(t.get("name", "")) for t in tools if isinstance(t, Mapping))
        for tool in tools:
            if not isinstance(tool, Mapping):
                continue
            tool_name = str(tool.get("name", ""))
            full = agent_name(server, tool_name)
            flags: list[str] = []
            if len(full) > MAX_NAME:
                flags.append("too-long")
            if _BAD.search(full):
                flags.append("bad-characters")
            if names[tool_name] > 1:
                flags.append("duplicate")
            description = tool.get("description")
            if not isinstance(description, str) or not description.strip():
                flags.append("no-description")
            schema = tool.get("inputSchema")
            if not isinstance(schema, Mapping) or schema.get("type") != "object":
                flags.append("schema-not-object")
            text = description.strip() if isinstance(description, str) else ""
            rows.append((index, server, tool_name, full, text, flags))
    owners: dict[str, list[tuple[int, str, str]]] = {}
    for index, server, tool_name, full, _, _ in rows:
        owners.setdefault(mangled(full), []).append((index, server, tool_name))
    result = []
    for index, server, tool_name, full, text, flags in rows:
        # the same server listing a name twice is a duplicate; another server (or another config's
        # server of the same name) ending up with the same name is a collision
        collides = tuple((s, t) for i, s, t in owners[mangled(full)] if i != index)
        if collides:
            flags.insert(0, "collision")
        result.append(AgentTool(server, tool_name, full, text, tuple(flags), collides))
    return result


def definition_size(tools: Sequence[Mapping[str, Any] | Any]) -> tuple[int, int]:
    """(characters, approximate tokens) of the tool definitions an agent receives from one server."""
    chars = 0
    for tool in tools:
        if isinstance(tool, Mapping):
            sent = {k: tool[k] for k in SENT_FIELDS if k in tool}
            chars += len(json.dumps(sent, ensure_ascii=False, separators=(",", ":")))
    return chars, approx_tokens(chars)


def approx_tokens(chars: int) -> int:
    return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
