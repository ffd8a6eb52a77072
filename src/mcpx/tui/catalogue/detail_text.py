"""What the detail pane says about a catalogue item, as Rich renderables and Content (no widgets).

The title line with its badges, a bounded preview of a description (a server may send 10 MB of it), JSON
pretty-printed within bounds of size and depth, and the sections under the description: problems, facts,
a prompt's arguments, the MCP Apps link, annotations, icons, schemas, `_meta` and any other field.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.content import Content

from mcpx.tui.catalogue.item_browser import BADGES, item_name
from mcpx.tui.results.app_view import app_link_section, app_only
from mcpx.tui.session_state import ItemKind
from mcpx.tui.widgets.event_list_view import printable

_SHOWN_FIELDS = {
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "_meta",
    "icons",
}
SINGULAR = {
    "tools": "tool",
    "resources": "resource",
    "resourceTemplates": "resource template",
    "prompts": "prompt",
}


#: a description longer than this (characters or lines) shows a preview and a button for the rest
PREVIEW_CHARS = 4_000
PREVIEW_LINES = 40
#: a JSON section whose pretty text is longer than this shows its first lines only
JSON_CHARS = 100_000
JSON_LINES = 400


def size_text(chars: int) -> str:
    if chars >= 2**20:
        return f"{chars / 2**20:.1f} MB"
    return f"{chars / 2**10:.0f} KB" if chars >= 2**10 else f"{chars} characters"


def description_preview(text: str) -> tuple[str, str | None]:
    """The part of a description laid out on screen, and a sentence saying what was cut (or None).

    A server may send a 10 MB description: laying it out whole took 20 s and half a gigabyte, so a long
    one shows its first lines here and the whole text opens in a view that draws only what is visible."""
    head = text[: PREVIEW_CHARS + 1]
    lines = head.split("\n")
    if len(text) <= PREVIEW_CHARS and len(lines) <= PREVIEW_LINES:
        return text, None
    shown = "\n".join(line[:400] for line in lines[:PREVIEW_LINES])[:PREVIEW_CHARS]
    total_lines = text.count("\n") + 1
    note = (
        f"The description is {size_text(len(text))} ({total_lines:,} lines); its beginning is shown. "
        "Press “Show the whole description” to read all of it."
    )
    return shown, note


#: JSON nested deeper than this is not shown (no schema a person reads is; the traffic log has it all)
MAX_DEPTH = 200


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` nests lists/objects more than `limit` deep (iteratively: no recursion to exhaust)."""
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (dict, list)):
            if depth >= limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            todo.extend((child, depth + 1) for child in children)
    return False


def pretty_json(value: Any) -> RenderableType:
    """Syntax-highlighted JSON (indent 2) of an already-parsed value; a huge or very deep one is cut to
    its first lines with a sentence saying so (the whole is in the traffic log's raw frame)."""
    try:
        # depth is bounded here, not left to a RecursionError: json.dumps with an indent recurses in Python,
        # which 3.10/3.11 stop near 1,000 levels and 3.12+ do not (a 3,000-deep schema rendered there)
        if _deeper_than(value, MAX_DEPTH):
            raise RecursionError
        text = json.dumps(value, indent=2, default=repr, ensure_ascii=False)
    except RecursionError:
        return Text(
            "(nested too deeply to show here: the whole JSON is in the traffic log — open the listing's "
            "response with t, then Enter, and r for the raw frame)",
            style="italic",
        )
    except (TypeError, ValueError):
        return Text(repr(value)[:JSON_CHARS])
    if len(text) <= JSON_CHARS and text.count("\n") < JSON_LINES:
        return JSON(text)
    head = "\n".join(text[:JSON_CHARS].split("\n")[:JSON_LINES])
    note = Text(
        f"\n… {size_text(len(text))} of JSON in all; the first {head.count(chr(10)) + 1} lines are shown. "
        "The whole is in the traffic log: open the listing's response (t, then Enter; r for the raw frame).",
        style="italic",
    )
    return Group(Text(head), note)


def item_title(kind: ItemKind, item: Any) -> Content:
    """The detail's first line: the name, the kind, annotations as badges."""
    parts: list[tuple[str, str] | str] = [(printable(item_name(kind, item)), "bold $text-primary")]
    name = getattr(item, "name", None)
    if name and name != item_name(kind, item):
        parts.append((f"  {printable(name)}", "$foreground-muted"))
    parts.append((f"  {SINGULAR[kind]}", "$foreground-muted"))
    annotations = getattr(item, "annotations", None)
    for attr, (label, colour) in BADGES.items():
        if annotations is not None and getattr(annotations, attr, None) is True:
            parts += ["  ", (f" {label} ", f"${colour} reverse")]
    if kind == "tools" and app_only(getattr(item, "raw", None)):
        parts += ["  ", (" app only ", "$accent reverse")]
    return Content.assemble(*parts)


def item_sections(kind: ItemKind, item: Any, heading_style: Style | str = "bold") -> list[RenderableType]:
    """Every section of the detail under the description, each after its heading."""
    raw: dict[str, Any] = item.raw if isinstance(getattr(item, "raw", None), dict) else {}
    sections: list[RenderableType] = []
    problems = getattr(item, "problems", [])
    if problems:
        sections.append(_heading(heading_style, "Problems"))
        sections.append(Text("\n".join(problems), style="bold"))
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="dim")
    facts.add_column()
    for label, key in (
        ("URI", "uri"),
        ("URI template", "uriTemplate"),
        ("MIME type", "mimeType"),
        ("Size", "size"),
    ):
        if key in raw:
            facts.add_row(label, printable(str(raw[key])))
    if facts.row_count:
        sections.append(facts)
    if kind == "prompts":
        sections.append(_heading(heading_style, "Arguments"))
        args = raw.get("arguments") or []
        table = Table(box=None, padding=(0, 2), show_edge=False, header_style="dim")
        table.add_column("name")
        table.add_column("required")
        table.add_column("description")
        for arg in args if isinstance(args, list) else []:
            if isinstance(arg, dict):
                required = "yes" if arg.get("required") else ""
                table.add_row(
                    printable(str(arg.get("name", "?"))),
                    required,
                    printable(str(arg.get("description") or "")),
                )
        sections.append(table if table.row_count else Text("(none)", style="dim"))
    app = app_link_section(raw) if kind == "tools" else None
    if app is not None:
        sections += [_heading(heading_style, "App (MCP Apps)"), app]
    if "annotations" in raw:
        sections.append(_heading(heading_style, "Annotations"))
        sections.append(pretty_json(raw["annotations"]))
    if "icons" in raw:
        sections.append(_heading(heading_style, "Icons"))
        icons = raw["icons"] if isinstance(raw["icons"], list) else []
        lines = []
        for icon in icons:
            if isinstance(icon, dict):
                src = str(icon.get("src", ""))
                shown = src if not src.startswith("data:") else src[:40] + "…"
                extra = " ".join(str(icon[k]) for k in ("mimeType", "sizes", "theme") if k in icon)
                lines.append(f"• {shown} {extra}".rstrip())
        sections.append(Text(printable("\n".join(lines) or "(none)")))
    if "inputSchema" in raw:
        sections.append(_heading(heading_style, "Input schema"))
        sections.append(pretty_json(raw["inputSchema"]))
    if "outputSchema" in raw:
        sections.append(_heading(heading_style, "Output schema"))
        sections.append(pretty_json(raw["outputSchema"]))
    if "_meta" in raw:
        sections.append(_heading(heading_style, "_meta"))
        sections.append(pretty_json(raw["_meta"]))
    rest = {
        k: v
        for k, v in raw.items()
        if k not in _SHOWN_FIELDS | {"uri", "uriTemplate", "mimeType", "size", "arguments"}
    }
    if rest:
        sections.append(_heading(heading_style, "Other fields"))
        sections.append(pretty_json(rest))
    return sections


def _heading(style: Style | str, title: str) -> Text:
    return Text(f"\n{title}", style=style)
