"""MCP's own words that several floors spell: the log levels and the four lists a server may offer.

Each is one `Literal` with its values derived (`get_args`), so a face, the demo server and the checks read
the same spelling instead of typing it out again. A leaf with no imports of mcpx: the CLI and the demo
read it without loading pydantic.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

#: the levels of `logging/setLevel` and `notifications/message`, least severe first (the spec's order)
LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LOG_LEVELS: tuple[LogLevel, ...] = get_args(LogLevel)

#: the lists, named as the result's key of their items (`resourceTemplates`, never `templates`)
ListName = Literal["tools", "resources", "resourceTemplates", "prompts"]
LIST_NAMES: tuple[ListName, ...] = get_args(ListName)


class ListSpec(NamedTuple):
    """How one list is asked for and announced."""

    #: the request that lists it, page by page
    method: str
    #: the server capability that announces it
    capability: str
    #: the notification that says it changed
    changed: str
    #: the field that names one item (what makes two items the same)
    item_key: str


LISTS: dict[ListName, ListSpec] = {
    "tools": ListSpec("tools/list", "tools", "notifications/tools/list_changed", "name"),
    "resources": ListSpec("resources/list", "resources", "notifications/resources/list_changed", "uri"),
    "resourceTemplates": ListSpec(
        "resources/templates/list", "resources", "notifications/resources/list_changed", "uriTemplate"
    ),
    "prompts": ListSpec("prompts/list", "prompts", "notifications/prompts/list_changed", "name"),
}
#: list method → the list it returns (`tools/list` → `tools`)
LIST_OF_METHOD: dict[str, ListName] = {spec.method: name for name, spec in LISTS.items()}

__all__ = ["LISTS", "LIST_NAMES", "LIST_OF_METHOD", "LOG_LEVELS", "ListName", "ListSpec", "LogLevel"]
