"""`ItemDetail`: everything about the highlighted tool, resource, template or prompt.

Description, annotations as badges, icons, input and output schemas pretty-printed, `_meta`, and the
rest of the raw definition. `#call-form` is where calling lives: the schema form, the call button and
the result mount there (an empty container until then).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, Static

from mcpx.tui.catalogue.item_browser import BADGES, item_name
from mcpx.tui.session_state import ItemKind
from mcpx.tui.widgets.event_list_view import foreground, printable

Selection = tuple[ItemKind, Any]
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
SINGULAR = {"tools": "tool", "resources": "resource", "templates": "resource template", "prompts": "prompt"}


def pretty_json(value: Any) -> RenderableType:
    """Syntax-highlighted JSON (indent 2) of an already-parsed value."""
    try:
        return JSON.from_data(value, indent=2, default=repr)
    except (TypeError, ValueError):
        return Text(repr(value))


class ItemDetail(VerticalScroll, can_focus=True):
    """The detail pane of the browser's highlighted item."""

    HELP: ClassVar[str] = """\
The highlighted item in full: description, annotations, icons, input and output schemas, `_meta`, and
any other field the server sent (nothing is hidden, unknown fields included).
"""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"item-detail--heading"}
    DEFAULT_CSS = """
    ItemDetail > .item-detail--heading { color: $text-accent; text-style: bold; }
    """

    selection: reactive[Selection | None] = reactive(None, init=False)
    """(kind, item) highlighted in the browser, or None."""

    def compose(self) -> ComposeResult:
        yield Static("Select a tool, resource, template or prompt on the left.", id="detail-title")
        yield Static("", id="detail-description")
        yield Vertical(id="call-form")
        yield Static("", id="detail-body")

    def watch_selection(self, selection: Selection | None) -> None:
        title = self.query_one("#detail-title", Static)
        description = self.query_one("#detail-description", Static)
        body = self.query_one("#detail-body", Static)
        self._mount_call_panel(selection)
        if selection is None:
            title.update("Select a tool, resource, template or prompt on the left.")
            description.update("")
            body.update("")
            return
        kind, item = selection
        title.update(self._title(kind, item))
        text = getattr(item, "description", None)
        description.update(
            Text(printable(text.strip(), multiline=True)) if text else Text("(no description)", style="dim")
        )
        body.update(Group(*self._sections(kind, item)))
        self.scroll_home(animate=False)

    def _mount_call_panel(self, selection: Selection | None) -> None:
        form = self.query_one("#call-form", Vertical)
        form.remove_children()
        panel = self.call_panel(*selection) if selection is not None else None
        if panel is not None:
            form.mount(panel)

    def focus_call_form(self) -> bool:
        """Focus the first field of the item's panel (else its first button); False when it has none."""
        form = self.query_one("#call-form", Vertical)
        focusable = [widget for widget in form.query("*") if widget.focusable]
        first = next((widget for widget in focusable if not isinstance(widget, Button)), None)
        target = first or (focusable[0] if focusable else None)
        if target is None:
            return False
        target.focus()
        return True

    def call_panel(self, kind: ItemKind, item: Any) -> Widget | None:
        """What `#call-form` holds for the item: the panel that calls, reads or gets it."""
        raw: dict[str, Any] = item.raw if isinstance(getattr(item, "raw", None), dict) else {}
        if kind == "tools" and isinstance(raw.get("name"), str):
            from mcpx.tui.catalogue.tool_call import ToolCallPanel

            return ToolCallPanel(raw)
        if kind == "resources" and isinstance(raw.get("uri"), str):
            from mcpx.tui.catalogue.resource_panel import ResourcePanel

            return ResourcePanel(raw["uri"])
        if kind == "templates" and isinstance(raw.get("uriTemplate"), str):
            from mcpx.tui.catalogue.template_panel import TemplatePanel

            return TemplatePanel(raw["uriTemplate"])
        if kind == "prompts" and isinstance(raw.get("name"), str):
            from mcpx.tui.catalogue.prompt_panel import PromptPanel

            return PromptPanel(raw)
        return None

    def _title(self, kind: ItemKind, item: Any) -> Content:
        parts: list[tuple[str, str] | str] = [(printable(item_name(kind, item)), "bold $text-primary")]
        name = getattr(item, "name", None)
        if name and name != item_name(kind, item):
            parts.append((f"  {printable(name)}", "$foreground-muted"))
        parts.append((f"  {SINGULAR[kind]}", "$foreground-muted"))
        annotations = getattr(item, "annotations", None)
        for attr, (label, colour) in BADGES.items():
            if annotations is not None and getattr(annotations, attr, None) is True:
                parts += ["  ", (f" {label} ", f"${colour} reverse")]
        return Content.assemble(*parts)

    def _sections(self, kind: ItemKind, item: Any) -> list[RenderableType]:
        raw: dict[str, Any] = item.raw if isinstance(getattr(item, "raw", None), dict) else {}
        sections: list[RenderableType] = []
        problems = getattr(item, "problems", [])
        if problems:
            sections.append(self._heading("Problems"))
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
            sections.append(self._heading("Arguments"))
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
        if "annotations" in raw:
            sections.append(self._heading("Annotations"))
            sections.append(pretty_json(raw["annotations"]))
        if "icons" in raw:
            sections.append(self._heading("Icons"))
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
            sections.append(self._heading("Input schema"))
            sections.append(pretty_json(raw["inputSchema"]))
        if "outputSchema" in raw:
            sections.append(self._heading("Output schema"))
            sections.append(pretty_json(raw["outputSchema"]))
        if "_meta" in raw:
            sections.append(self._heading("_meta"))
            sections.append(pretty_json(raw["_meta"]))
        rest = {
            k: v
            for k, v in raw.items()
            if k not in _SHOWN_FIELDS | {"uri", "uriTemplate", "mimeType", "size", "arguments"}
        }
        if rest:
            sections.append(self._heading("Other fields"))
            sections.append(pretty_json(rest))
        return sections

    def _heading(self, title: str) -> Text:
        return Text(f"\n{title}", style=foreground(self, "item-detail--heading"))
