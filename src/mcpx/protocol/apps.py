"""MCP Apps (the `io.modelcontextprotocol/ui` extension): tools that come with an interface.

A tool links its UI in `_meta.ui.resourceUri` (older servers: `_meta["ui/resourceUri"]`), a `ui://`
resource whose content is HTML (`text/html;profile=mcp-app`) with its own `_meta.ui` (`csp` — the
domains it may reach —, `permissions`, `domain`, `prefersBorder`). `_meta.ui.visibility` says who may call
a tool: `["model", "app"]` by default; `["app"]` tools are for the interface only.

A client declares it can show apps with `capabilities.extensions["io.modelcontextprotocol/ui"] =
{"mimeTypes": ["text/html;profile=mcp-app"]}` (`mcpx call --advertise-apps`): servers may list app tools
only to such clients. mcpx shows apps' links and metadata and lets the user save or open the HTML; it
does not run them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

APPS_EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME = "text/html;profile=mcp-app"


def capability() -> dict[str, Any]:
    """What a client that can show apps declares under `extensions`."""
    return {"mimeTypes": [APP_MIME]}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _raw(tool: Any) -> dict[str, Any]:
    if isinstance(tool, dict):
        return tool
    dump = getattr(tool, "model_dump", None)
    return dump(by_alias=True) if callable(dump) else {}


@dataclass(frozen=True, slots=True)
class AppLink:
    """A tool's interface: which resource, and who may call the tool."""

    tool: str
    resource_uri: str | None
    visibility: tuple[str, ...]

    @property
    def app_only(self) -> bool:
        return self.visibility == ("app",)


def app_link(tool: Any) -> AppLink | None:
    """The tool's UI link and visibility, or None for a tool with neither."""
    raw = _raw(tool)
    meta = _dict(raw.get("_meta"))
    ui = _dict(meta.get("ui"))
    uri = ui.get("resourceUri") if isinstance(ui.get("resourceUri"), str) else meta.get("ui/resourceUri")
    visibility = ui.get("visibility")
    seen = tuple(v for v in visibility if isinstance(v, str)) if isinstance(visibility, list) else ()
    if not isinstance(uri, str) and not seen:
        return None
    return AppLink(str(raw.get("name", "")), uri if isinstance(uri, str) else None, seen or ("model", "app"))


def app_resource_facts(content: Any) -> dict[str, Any]:
    """What a `ui://` resource's content says of itself: MIME type, size in bytes, and its `_meta.ui`
    (CSP domains, permissions, domain, border preference)."""
    item = _dict(content)
    text = item.get("text")
    size = len(text.encode("utf-8")) if isinstance(text, str) else None
    ui = _dict(_dict(item.get("_meta")).get("ui"))
    return {
        "uri": item.get("uri"),
        "mimeType": item.get("mimeType"),
        "size": size,
        "is_app": item.get("mimeType") == APP_MIME,
        "csp": ui.get("csp"),
        "permissions": ui.get("permissions"),
        "domain": ui.get("domain"),
        "prefersBorder": ui.get("prefersBorder"),
    }
