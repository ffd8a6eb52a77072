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
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Static

from mcpx.tui.catalogue.item_browser import BADGES, item_name
from mcpx.tui.context import InspectContext
from mcpx.tui.forms.form_keys import OWNS_LETTERS, keep_letters, shown_focusable
from mcpx.tui.results.app_view import app_link_section, app_only
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
#: seconds the highlight must rest on an item before its call panel (the form) is built: building one takes
#: ~30 widgets and a layout (a quarter of a second of CPU), too much for every step of a held-down ↓
PANEL_DELAY = 0.12


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
    import json

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


class ItemDetail(VerticalScroll, can_focus=True):
    """The detail pane of the browser's highlighted item."""

    HELP: ClassVar[str] = """\
The highlighted item in full: description, annotations, icons, input and output schemas, `_meta`, and
any other field the server sent (nothing is hidden, unknown fields included).

Inside its form the form owns the keys: letters type, they never reach the app's one-letter keys.
**Escape** leaves the field (focus stays here); **Escape** again goes back to the catalogue.
"""
    BINDING_GROUP_TITLE = "Detail"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "leave",
            "Back",
            id="leave-form",
            tooltip="Leave the field; from the pane, back to the catalogue",
        ),
    ]

    class Left(Message):
        """Escape with focus on the pane itself: the user wants the catalogue again."""

        def __init__(self, detail: ItemDetail) -> None:
            super().__init__()
            self.detail = detail

        @property
        def control(self) -> ItemDetail:
            return self.detail

    COMPONENT_CLASSES: ClassVar[set[str]] = {"item-detail--heading"}
    DEFAULT_CSS = """
    ItemDetail > .item-detail--heading { color: $text-accent; text-style: bold; }
    ItemDetail > #detail-description-all { height: auto; }
    """

    selection: reactive[Selection | None] = reactive(None, init=False)
    """(kind, item) highlighted in the browser, or None."""

    def __init__(self, context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: handed to the panel that calls, reads or gets the item
        self.context = context
        self._panel_timer: Timer | None = None
        #: the selected item's panel is still to be built (the highlight has not rested yet)
        self._panel_due = False
        #: bumped per selection: a timer armed after a repaint is for the selection it was armed for
        self._panel_generation = 0
        self._panel: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Static("Select a tool, resource, template or prompt on the left.", id="detail-title")
        yield Static("", id="detail-description")
        yield Vertical(id="detail-description-all")
        yield Vertical(id="call-form", classes=OWNS_LETTERS)
        yield Static("", id="detail-body")

    def watch_selection(self, selection: Selection | None) -> None:
        title = self.query_one("#detail-title", Static)
        description = self.query_one("#detail-description", Static)
        body = self.query_one("#detail-body", Static)
        self._schedule_call_panel(selection)
        if selection is None:
            title.update("Select a tool, resource, template or prompt on the left.")
            description.update("")
            body.update("")
            return
        kind, item = selection
        title.update(self._title(kind, item))
        text = getattr(item, "description", None)
        shown, cut = description_preview(text.strip()) if isinstance(text, str) else ("", None)
        rendered = Text(printable(shown, multiline=True)) if text else Text("(no description)", style="dim")
        if cut is not None:
            rendered.append("\n\n" + cut, style="italic")
        description.update(rendered)
        whole = self.query_one("#detail-description-all", Vertical)
        if whole.children:  # an empty removal still costs a pass of the screen's layout
            whole.remove_children()
        if cut is not None:
            whole.mount(Button("Show the whole description", id="detail-show-description", compact=True))
        body.update(Group(*self._sections(kind, item)))
        self.scroll_home(animate=False)

    @on(Button.Pressed, "#detail-show-description")
    def _show_description(self, event: Button.Pressed) -> None:
        """The whole description in a view that draws only its visible lines (Line API)."""
        event.stop()
        from mcpx.tui.results.plain_text_view import PlainTextView

        selection = self.selection
        text = getattr(selection[1], "description", None) if selection is not None else None
        if not isinstance(text, str):
            return
        whole = self.query_one("#detail-description-all", Vertical)
        whole.remove_children()
        view = PlainTextView(text, id="detail-description-text")
        whole.mount(view)
        view.focus()

    def _schedule_call_panel(self, selection: Selection | None) -> None:
        """The previous item's panel goes at once (its button must not call the wrong tool); the new one is
        built once the highlight rests (PANEL_DELAY), or at once when asked for (`show_call_panel`).

        The rest is counted from the highlight's repaint, not from the key: on a busy machine a step took
        longer than PANEL_DELAY to paint, so each step of a held ↓ built a panel the next step threw away."""
        if self._panel_timer is not None:
            self._panel_timer.stop()
            self._panel_timer = None
        form = self.query_one("#call-form", Vertical)
        if form.children:
            form.remove_children()
        self._panel = None
        self._panel_due = selection is not None
        self._panel_generation += 1
        if selection is not None:
            self.call_after_refresh(self._arm_panel_timer, self._panel_generation)

    def _arm_panel_timer(self, generation: int) -> None:
        if generation == self._panel_generation and self._panel_due and self.is_attached:
            self._panel_timer = self.set_timer(PANEL_DELAY, self.show_call_panel, name="call-panel")

    def show_call_panel(self) -> None:
        """Build the selected item's call panel now if it is still waiting for the highlight to rest."""
        if not self._panel_due:
            return
        self._panel_due = False
        if self._panel_timer is not None:
            self._panel_timer.stop()
            self._panel_timer = None
        panel = self.call_panel(*self.selection) if self.selection is not None else None
        self._panel = panel
        if panel is not None:
            self.query_one("#call-form", Vertical).mount(panel)

    async def open_form(self) -> Widget | None:
        """Focus the first field on screen of the item's panel, once it has composed (else its first
        button); the widget focused, or None when the panel has nothing to focus."""
        import asyncio

        from mcpx.tui.forms.schema_form import SchemaForm

        self.show_call_panel()  # at once: the user asked for it (no waiting for the highlight to rest)
        panel = self._panel
        for _ in range(200):  # the panel mounts and composes over a few refreshes (2 s at most)
            if panel is not self._panel:
                return None  # another item was chosen meanwhile
            if panel is not None and panel.is_mounted and shown_focusable(panel):
                break
            await asyncio.sleep(0.01)
        else:
            return None
        assert panel is not None
        forms = panel.query(SchemaForm)
        if forms:
            return await forms.first().focus_first()
        shown = shown_focusable(panel)
        first = next((w for w in shown if not isinstance(w, Button)), None) or shown[0]
        first.focus()
        return first

    def holds_typed_input(self) -> bool:
        """True when the item's form holds something the user typed (a restart or quit would lose it)."""
        from textual.widgets import Input

        from mcpx.tui.forms.argument_field import ArgumentField
        from mcpx.tui.forms.schema_form import SchemaForm

        panel = self._panel
        if panel is None or not panel.is_attached:
            return False
        if any(form.touched for form in panel.query(SchemaForm)):
            return True
        return any(box.value for field in panel.query(ArgumentField) for box in field.query(Input))

    def on_key(self, event: events.Key) -> None:
        # the form owns its keys: a letter on one of its buttons never reaches the app's letters
        for form in self.query("#call-form").results(Vertical):
            keep_letters(form, event)

    def action_leave(self) -> None:
        focused = self.app.focused
        if focused is not None and focused is not self and self in focused.ancestors:
            self.focus(scroll_visible=False)  # out of the field, still in the pane
        else:
            self.post_message(self.Left(self))

    def call_panel(self, kind: ItemKind, item: Any) -> Widget | None:
        """What `#call-form` holds for the item: the panel that calls, reads or gets it."""
        raw: dict[str, Any] = item.raw if isinstance(getattr(item, "raw", None), dict) else {}
        if kind == "tools" and isinstance(raw.get("name"), str):
            from mcpx.tui.catalogue.tool_call import ToolCallPanel

            return ToolCallPanel(raw, self.context)
        if kind == "resources" and isinstance(raw.get("uri"), str):
            from mcpx.tui.catalogue.resource_panel import ResourcePanel

            return ResourcePanel(raw["uri"], self.context)
        if kind == "resourceTemplates" and isinstance(raw.get("uriTemplate"), str):
            from mcpx.tui.catalogue.template_panel import TemplatePanel

            return TemplatePanel(raw["uriTemplate"], self.context)
        if kind == "prompts" and isinstance(raw.get("name"), str):
            from mcpx.tui.catalogue.prompt_panel import PromptPanel

            return PromptPanel(raw, self.context)
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
        if kind == "tools" and app_only(getattr(item, "raw", None)):
            parts += ["  ", (" app only ", "$accent reverse")]
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
        app = app_link_section(raw) if kind == "tools" else None
        if app is not None:
            sections += [self._heading("App (MCP Apps)"), app]
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
