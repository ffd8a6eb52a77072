"""`ItemDetail`: everything about the highlighted tool, resource, template or prompt.

Description, annotations as badges, icons, input and output schemas pretty-printed, `_meta`, and the
rest of the raw definition. `#call-form` is where calling lives: the schema form, the call button and
the result mount there (an empty container until then). What the pane says is `detail_text`.

The panel is built once the highlight rests on an item (PANEL_DELAY). A tool's panel left idle is
parked — hidden, its keys refused — while the highlight moves from tool to tool, and the next tool whose
form has the same shape gets it retargeted (retexted in place) instead of a new one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Static

from mcpx.tui.catalogue.detail_text import description_preview, item_sections, item_title
from mcpx.tui.context import InspectContext
from mcpx.tui.forms.form_keys import OWNS_LETTERS, keep_letters, shown_focusable
from mcpx.tui.session_state import ItemKind
from mcpx.tui.widgets.event_list_view import foreground, printable

if TYPE_CHECKING:
    from mcpx.tui.catalogue.tool_call import ToolCallPanel

Selection = tuple[ItemKind, Any]
#: seconds the highlight must rest on an item before its call panel (the form) is built: building one takes
#: ~20 widgets and layouts (~0.2 s of CPU; retargeting a tool's panel ~40 ms), too much for every step of
#: a held-down ↓
PANEL_DELAY = 0.12


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
        #: the last tool's panel, hidden while the highlight moves from tool to tool (`_park_or_drop`)
        self._parked: ToolCallPanel | None = None

    @property
    def shown_panel(self) -> Widget | None:
        """The selected item's call panel once built (or retargeted) for it, else None."""
        return self._panel

    def compose(self) -> ComposeResult:
        yield Static("Select a tool, resource, template or prompt on the left.", id="detail-title")
        yield Static("", id="detail-description")
        with Vertical(id="detail-description-all"):
            # composed once, shown when a description is cut: a mount on a selection costs the screen
            # another layout pass, and the first item's detail a frame or two later than its list
            button = Button("Show the whole description", id="detail-show-description", compact=True)
            button.display = False
            yield button
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
        title.update(item_title(kind, item))
        text = getattr(item, "description", None)
        shown, cut = description_preview(text.strip()) if isinstance(text, str) else ("", None)
        rendered = Text(printable(shown, multiline=True)) if text else Text("(no description)", style="dim")
        if cut is not None:
            rendered.append("\n\n" + cut, style="italic")
        description.update(rendered)
        for view in self.query("#detail-description-text"):  # the last item's whole text, if opened
            view.remove()
        self.query_one("#detail-show-description", Button).display = cut is not None
        body.update(Group(*item_sections(kind, item, foreground(self, "item-detail--heading"))))
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
        event.button.display = False
        for view in self.query("#detail-description-text"):
            view.remove()
        view = PlainTextView(text, id="detail-description-text")
        self.query_one("#detail-description-all", Vertical).mount(view)
        view.focus()

    def _schedule_call_panel(self, selection: Selection | None) -> None:
        """The previous item's panel goes at once (its button must not call the wrong tool); the new one is
        built once the highlight rests (PANEL_DELAY), or at once when asked for (`show_call_panel`).

        The rest is counted from the highlight's repaint, not from the key: on a busy machine a step took
        longer than PANEL_DELAY to paint, so each step of a held ↓ built a panel the next step threw away."""
        if self._panel_timer is not None:
            self._panel_timer.stop()
            self._panel_timer = None
        self._park_or_drop(selection)
        self._panel_due = selection is not None
        self._panel_generation += 1
        if selection is not None:
            self.call_after_refresh(self._arm_panel_timer, self._panel_generation)

    def _park_or_drop(self, selection: Selection | None) -> None:
        """A tool's panel, idle, is parked (hidden, its keys refused) while the highlight moves to a tool
        whose form has the same shape: it is shown by retexting these widgets once the highlight rests
        (`ToolCallPanel.retarget`, a fraction of a build). Any other panel is removed at once (a held ↓
        through tools of several shapes parks the last one that fitted, until one does not)."""
        form = self.query_one("#call-form", Vertical)
        panel = self._panel or self._parked
        self._panel = None
        self._parked = None
        if panel is None and not form.children:
            return  # the first item: the panel's module loads with the first panel, after the first paint
        from mcpx.tui.catalogue.tool_call import ToolCallPanel

        tool = self._tool_raw(*selection) if selection is not None else None
        fits = isinstance(panel, ToolCallPanel) and tool is not None and panel.fits(tool)
        if isinstance(panel, ToolCallPanel) and fits and panel.parent is form:
            if not panel.parked:
                panel.park()
            self._parked = panel
        for child in list(form.children):  # an empty removal still costs a pass of the screen's layout
            if child is not self._parked:
                child.remove()

    def _arm_panel_timer(self, generation: int) -> None:
        if generation == self._panel_generation and self._panel_due and self.is_attached:
            self._panel_timer = self.set_timer(PANEL_DELAY, self.show_call_panel, name="call-panel")

    def show_call_panel(self) -> None:
        """Build the selected item's call panel now if it is still waiting for the highlight to rest (or
        retarget the parked one, when the item is a tool of the same form shape)."""
        if not self._panel_due:
            return
        self._panel_due = False
        if self._panel_timer is not None:
            self._panel_timer.stop()
            self._panel_timer = None
        parked, self._parked = self._parked, None
        selection = self.selection
        if parked is not None:
            tool = self._tool_raw(*selection) if selection is not None else None
            if tool is not None and parked.retarget(tool):
                self._panel = parked
                return
            parked.remove()
        panel = self.call_panel(*selection) if selection is not None else None
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

    @staticmethod
    def _tool_raw(kind: ItemKind, item: Any) -> dict[str, Any] | None:
        """The raw definition of a tool that can be called (it has a name), else None."""
        raw = getattr(item, "raw", None)
        return raw if kind == "tools" and isinstance(raw, dict) and isinstance(raw.get("name"), str) else None

    def call_panel(self, kind: ItemKind, item: Any) -> Widget | None:
        """What `#call-form` holds for the item: the panel that calls, reads or gets it."""
        raw: dict[str, Any] = item.raw if isinstance(getattr(item, "raw", None), dict) else {}
        if self._tool_raw(kind, item) is not None:
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
