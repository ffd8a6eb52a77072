"""`ItemBrowser`: Tools, Resources, Templates and Prompts in tabs, with counts and one filter for all.

A tab whose capability the server lacks is disabled and says why (in its tooltip and in its list).
Highlighting an item posts `ItemBrowser.ItemSelected`; the app shows it in the detail pane.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input, OptionList, TabbedContent, TabPane
from textual.widgets.option_list import Option

from mcpx.tui.session_state import KINDS, ItemKind, Lists
from mcpx.tui.widgets.event_list_view import printable

TITLES: dict[ItemKind, str] = {
    "tools": "Tools",
    "resources": "Resources",
    "resourceTemplates": "Templates",
    "prompts": "Prompts",
}
#: annotation hint → (badge, theme variable of its colour)
BADGES = {
    "read_only_hint": ("read-only", "text-success"),
    "destructive_hint": ("destructive", "text-error"),
    "idempotent_hint": ("idempotent", "text-primary"),
    "open_world_hint": ("open-world", "text-warning"),
}


def item_name(kind: ItemKind, item: Any) -> str:
    if kind == "tools":
        return str(item.display_name)
    return str(getattr(item, "title", None) or getattr(item, "name", "") or "")


#: rows a list shows at most (Textual's OptionList measures every option: 20,000 cost 0.3 s a key and
#: 2 s a filter keystroke); the last row says how many more there are and that the filter finds them
MAX_SHOWN = 500
#: the part of a description the filter searches (a 10 MB one would cost a copy per keystroke)
HAYSTACK_CHARS = 20_000
#: a long listing's search text is made ahead, this many items a step, `INDEX_PACE` s apart, from
#: `INDEX_AFTER` s after it arrives: made all at once by the first letter typed in the filter, 20,000
#: tools took ~300 ms of CPU; a step is ~10-25 ms, which a key pressed meanwhile waits at most
INDEX_STEP = 2_000
INDEX_AFTER = 1.5
INDEX_PACE = 0.1


def item_haystack(kind: ItemKind, item: Any) -> str:
    description = getattr(item, "description", None)
    if isinstance(description, str):
        description = description[:HAYSTACK_CHARS]
    parts = [getattr(item, "name", ""), getattr(item, "title", None), description]
    parts += [getattr(item, "uri", None), getattr(item, "uri_template", None)]
    return " ".join(str(p) for p in parts if p).lower()


def badges(item: Any) -> list[tuple[str, str]]:
    annotations = getattr(item, "annotations", None)
    if annotations is None:
        return []
    return [badge for attr, badge in BADGES.items() if getattr(annotations, attr, None) is True]


class ItemBrowser(Vertical):
    """The server's catalogue: four tabs of lists and a filter over names and descriptions."""

    BINDING_GROUP_TITLE = "Browser"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash", "focus_filter", "Filter", id="browser-filter", tooltip="Filter by name or description"
        ),
    ]
    HELP: ClassVar[str] = """\
What the server offers. **←/→** on the tabs switch between Tools, Resources, Templates and Prompts; a
greyed tab is a capability the server did not declare (hover it for the reason). **/** filters every
tab by name, title, URI and description (a new filter highlights the first match; **Enter** in the
filter opens it). Highlighting an item shows its detail on the right; **Enter** moves into its form
(call the tool, read the resource, fill the template or the prompt): what is typed right after Enter
goes into the form's first field. **T R M P** show Tools, Resources, teMplates, Prompts from anywhere
outside a form.

Badges come from tool annotations: read-only, destructive, idempotent, open-world.
"""

    catalog: reactive[Lists] = reactive(Lists, init=False)
    """What the server listed, per tab."""
    filter_text: reactive[str] = reactive("", init=False)
    """Lower-cased text every item's name and description must contain."""

    class ItemSelected(Message):
        """An item was highlighted in one of the lists."""

        def __init__(self, browser: ItemBrowser, kind: ItemKind, item: Any) -> None:
            super().__init__()
            self.browser = browser
            self.kind = kind
            self.item = item

        @property
        def control(self) -> ItemBrowser:
            return self.browser

    class ItemOpened(Message):
        """Enter on an item: the user wants its form (call, read, get)."""

        def __init__(self, browser: ItemBrowser, kind: ItemKind, item: Any) -> None:
            super().__init__()
            self.browser = browser
            self.kind = kind
            self.item = item

        @property
        def control(self) -> ItemBrowser:
            return self.browser

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._shown: dict[ItemKind, list[Any]] = {kind: [] for kind in KINDS}
        #: the filter each list was last drawn for (a new filter highlights the first match again)
        self._drawn_for: dict[ItemKind, str] = {}
        #: keys typed after Enter opened an item, before its form took focus (None: not opening one)
        self._typed_ahead: list[events.Key] | None = None
        #: each listing's items with their lower-cased search text, made once per listing (ahead, in
        #: steps, for a long one: `_index_ahead`; what is not made yet, by the first filter that needs it)
        self._haystacks: dict[ItemKind, tuple[object, list[tuple[Any, str]]]] = {}
        self._indexing: Timer | None = None

    def compose(self) -> ComposeResult:
        yield FilterInput(
            placeholder="/ filter tools, resources, prompts…", id="browser-filter", compact=True
        )
        with TabbedContent(id="browser-tabs"):
            for kind in KINDS:
                with TabPane(TITLES[kind], id=f"{kind}-tab"):
                    yield OptionList(id=f"{kind}-list")

    def on_mount(self) -> None:
        self._refresh_all()

    def watch_catalog(self) -> None:
        self._refresh_all()
        long_listing = any(len(self.catalog.items(kind) or ()) > INDEX_STEP for kind in KINDS)
        if long_listing and self._indexing is None:
            self._indexing = self.set_timer(INDEX_AFTER, self._index_ahead, name="filter-index")

    def _index_ahead(self) -> None:
        """Make `INDEX_STEP` more items' search text of the first listing not indexed yet; again later
        while one is left (a timer of this widget: it stops with it, and with the app)."""
        self._indexing = None
        for kind in KINDS:
            items = self.catalog.items(kind)
            if items is not None and len(self._haystack(kind, items, INDEX_STEP)) < len(items):
                self._indexing = self.set_timer(INDEX_PACE, self._index_ahead, name="filter-index")
                return

    def _haystack(
        self, kind: ItemKind, items: tuple[Any, ...], more: int | None = None
    ) -> list[tuple[Any, str]]:
        """The listing's items with their search text: all of it, or `more` items further than made."""
        cached = self._haystacks.get(kind)
        if cached is None or cached[0] is not items:
            cached = self._haystacks[kind] = (items, [])
        made = cached[1]
        if len(made) < len(items):
            stop = len(items) if more is None else len(made) + more
            made.extend((item, item_haystack(kind, item)) for item in items[len(made) : stop])
        return made

    def watch_filter_text(self) -> None:
        self._refresh_all()

    def action_focus_filter(self) -> None:
        self.query_one("#browser-filter", Input).focus()

    @property
    def active_kind(self) -> ItemKind:
        active = self.query_one("#browser-tabs", TabbedContent).active or "tools-tab"
        return active.removesuffix("-tab")  # type: ignore[return-value]

    def focus_list(self) -> None:
        self.query_one(f"#{self.active_kind}-list", OptionList).focus()

    def show_kind(self, kind: ItemKind) -> None:
        """Switch to the tab of `kind` and focus its list (a disabled tab stays as it is)."""
        tabs = self.query_one("#browser-tabs", TabbedContent)
        if tabs.get_tab(f"{kind}-tab").disabled:
            self.notify(f"The server offers no {kind}.", severity="warning")
            return
        tabs.active = f"{kind}-tab"
        self.query_one(f"#{kind}-list", OptionList).focus()

    # -- keys typed while an item opens ----------------------------------------------------------------
    def start_typed_ahead(self) -> None:
        """Enter is opening an item: keep what is typed next for its form (see `take_typed_ahead`)."""
        self._typed_ahead = []

    def take_typed_ahead(self) -> list[events.Key]:
        """The keys typed since Enter opened an item, in order; typing goes where focus is from now."""
        keys, self._typed_ahead = self._typed_ahead or [], None
        return keys

    def keep_typed_ahead(self, event: events.Key) -> bool:
        if self._typed_ahead is None or not event.is_printable:
            return False
        self._typed_ahead.append(event)
        event.stop()
        event.prevent_default()
        return True

    def on_key(self, event: events.Key) -> None:
        if self.keep_typed_ahead(event):
            return
        focused = self.app.focused
        if event.key == "enter" and isinstance(focused, OptionList) and self._highlighted_item() is not None:
            self.start_typed_ahead()

    def highlighted(self) -> tuple[ItemKind, Any] | None:
        """(kind, item) highlighted in the active tab's list, or None (what `ItemSelected` says, without
        waiting for it: the screen shows a new catalogue's first item in the frame that shows the list)."""
        item = self._highlighted_item()
        return None if item is None else (self.active_kind, item)

    def _highlighted_item(self) -> Any:
        kind = self.active_kind
        option_list = self.query_one(f"#{kind}-list", OptionList)
        shown = self._shown.get(kind, [])
        index = option_list.highlighted
        return shown[index] if index is not None and 0 <= index < len(shown) else None

    @on(Input.Changed, "#browser-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip().lower()

    @on(Input.Submitted, "#browser-filter")
    def _filter_done(self) -> None:
        """Enter in the filter opens the highlighted match (the first, after a new filter)."""
        self.filter_text = self.query_one("#browser-filter", Input).value.strip().lower()
        self._refresh_all()
        item = self._highlighted_item()
        if item is None:  # nothing to open: what was typed meanwhile goes on into the filter
            box = self.query_one("#browser-filter", Input)
            for key in self.take_typed_ahead():
                box.post_message(events.Key(key.key, key.character))
            return
        self.focus_list()
        self.post_message(self.ItemOpened(self, self.active_kind, item))

    def _refresh_all(self) -> None:
        if not self.is_mounted:
            return
        for kind in KINDS:
            self._refresh(kind)
        if self.screen.focused is None and not self._pane(self.active_kind).disabled:
            self.focus_list()  # the focus it could not take while disabled (at mount, or an early moment)

    def _pane(self, kind: ItemKind) -> TabPane:
        return self.query_one(f"#{kind}-tab", TabPane)

    def _enable(self, tabs: TabbedContent, kind: ItemKind, enabled: bool) -> None:
        """The tab and its pane at once (Textual would follow the tab with the pane only a message later)."""
        pane = self._pane(kind)
        if pane.disabled != enabled:
            return
        if not enabled and self.query_one(f"#{kind}-list", OptionList).has_focus:
            # Textual would hand the focus on to the next widget, the filter, and the keys typed next
            # would go into it; with nothing focused they reach the bindings
            self.screen.set_focus(None)
        tabs.get_tab(f"{kind}-tab").disabled = not enabled
        pane.disabled = not enabled

    def _refresh(self, kind: ItemKind) -> None:
        catalog = self.catalog
        tabs = self.query_one("#browser-tabs", TabbedContent)
        tab = tabs.get_tab(f"{kind}-tab")
        option_list = self.query_one(f"#{kind}-list", OptionList)
        reason = catalog.unavailable.get(kind)
        items = catalog.items(kind)
        if reason is not None:
            tab.label = f"{TITLES[kind]} –"
            tab.tooltip = reason
            self._enable(tabs, kind, items is not None)
            option_list.set_options([Option(Content.styled(reason, "$foreground-muted"), disabled=True)])
            self._shown[kind] = []
            return
        self._enable(tabs, kind, True)
        tab.tooltip = None
        if items is None:
            tab.label = f"{TITLES[kind]} …"
            option_list.set_options([Option(Content.styled("loading…", "$foreground-muted"), disabled=True)])
            self._shown[kind] = []
            return
        needle = self.filter_text
        if needle:
            matched = [item for item, hay in self._haystack(kind, items) if needle in hay]
        else:
            matched = list(items)
        tab.label = (
            f"{TITLES[kind]} {len(matched)}/{len(items)}" if needle else f"{TITLES[kind]} {len(items)}"
        )
        previous = option_list.highlighted if self._drawn_for.get(kind) == needle else None
        self._drawn_for[kind] = needle
        shown = matched[:MAX_SHOWN]
        self._shown[kind] = shown
        options = [Option(self._prompt(kind, item)) for item in shown]
        if len(matched) > len(shown):
            hidden = len(matched) - len(shown)
            more = f"… {hidden:,} more {kind} not listed here: type in the filter (/) to find them"
            options.append(Option(Content.styled(more, "$foreground-muted italic"), disabled=True))
        option_list.set_options(options)
        if not shown:
            empty = "no match" if needle else f"the server lists no {kind}"
            option_list.set_options([Option(Content.styled(empty, "$foreground-muted"), disabled=True)])
        else:
            option_list.highlighted = previous if previous is not None and previous < len(shown) else 0

    def _prompt(self, kind: ItemKind, item: Any) -> Content:
        parts: list[tuple[str, str] | str] = [(printable(item_name(kind, item)), "bold")]
        name = getattr(item, "name", "")
        if name and name != item_name(kind, item):
            parts.append((f"  {printable(name)}", "$foreground-muted"))
        for label, colour in badges(item):
            parts += [" ", (f" {label} ", f"${colour} reverse")]
        if getattr(item, "icons", None):
            parts.append((" ◆", "$text-accent"))
        detail = getattr(item, "uri", None) or getattr(item, "uri_template", None)
        description = getattr(item, "description", None)
        head = description[:1_000].strip() if isinstance(description, str) else ""
        second = detail or (head.splitlines()[0] if head else "")
        if second:
            parts += ["\n", (printable(second[:200]), "$foreground-muted")]
        return Content.assemble(*parts)

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        list_id = event.option_list.id or ""
        kind: ItemKind = list_id.removesuffix("-list")  # type: ignore[assignment]
        shown = self._shown.get(kind, [])
        if kind == self.active_kind and 0 <= event.option_index < len(shown):
            self.post_message(self.ItemSelected(self, kind, shown[event.option_index]))

    @on(OptionList.OptionSelected)
    def _opened(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        kind: ItemKind = (event.option_list.id or "").removesuffix("-list")  # type: ignore[assignment]
        shown = self._shown.get(kind, [])
        if kind == self.active_kind and 0 <= event.option_index < len(shown):
            self.post_message(self.ItemOpened(self, kind, shown[event.option_index]))

    @on(TabbedContent.TabActivated, "#browser-tabs")
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        event.stop()
        kind = self.active_kind
        option_list = self.query_one(f"#{kind}-list", OptionList)
        shown = self._shown.get(kind, [])
        index = option_list.highlighted
        if shown and index is not None and index < len(shown):
            self.post_message(self.ItemSelected(self, kind, shown[index]))


class FilterInput(Input):
    """The browser's filter: after Enter opens the first match, what is typed goes to its form."""

    async def _on_key(self, event: events.Key) -> None:
        browser = next((a for a in self.ancestors if isinstance(a, ItemBrowser)), None)
        if browser is not None:
            if browser.keep_typed_ahead(event):
                return
            if event.key == "enter":
                browser.start_typed_ahead()
        await super()._on_key(event)
