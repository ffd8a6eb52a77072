"""`HelpScreen` (F1, ?): help for the focused pane, then every key that works there, grouped by where it
is bound, with the binding ids a keymap can remap (`keymap = {"reconnect" = "ctrl+r"}` in settings).

It is made to open in well under 100 ms of CPU (it took ~450 ms): three `Static`s over Rich renderables
(Textual's `Markdown` widget mounts a widget per block, each styled and laid out), and an opaque screen (a
translucent modal renders the whole app beneath it again, segment by segment, to tint it). `open_help`
keeps one installed help screen per app and pushes it again, retexted only when its page changed: a new
screen each time was composed, laid out and drawn on F1, and removed on Esc — a removal lays out and draws
the whole app beneath again, twice more than popping an installed screen does."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, ClassVar
from weakref import WeakSet

from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.theme import Theme
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

if TYPE_CHECKING:
    from rich.markdown import Markdown
    from textual.app import App
    from textual.geometry import Size
    from textual.screen import Screen

GENERAL = """\
**mcpx inspect** watches one MCP server: its catalogue on the left, the selected item on the right, and
below every frame of the session. **Tab** moves between panes, **t** jumps to the traffic log, **/** filters
the pane you are in, **ctrl+p** opens the command palette (ping, reconnect, log level, clear, copy, raw
JSON-RPC), **r** reconnects, **q** quits and stops the server.
"""
#: the "does" column wraps at this many characters (a long tooltip would push the ids off the dialog)
WHAT_WIDTH = 56
#: the name the reused help screen is installed under (`open_help`)
INSTALLED = "mcpx-help"

#: seconds from `prepare_help` (the inspector's first catalogue) to the help screen's building: the
#: catalogue's detail, its call panel and the heap's first settle come first
PREPARE_AFTER = 1.0
#: seconds between its steps (the screen mounts, its widgets ask for their second layout)
PREPARE_STEP = 0.2
#: the apps whose help screen is built or being built ahead of F1
_PREPARING: WeakSet[App[Any]] = WeakSet()

#: one row of the keys: (keys, what they do, binding id), or a group's title
KeyRow = tuple[str, str, str] | str


@dataclass(frozen=True)
class HelpPage:
    """What the help screen shows: equal pages need no redrawing."""

    title: str
    text: str
    general: str
    keys: tuple[KeyRow, ...]
    accent: str


def help_of(widget: Widget | None) -> tuple[str, str]:
    """(title, markdown) of the nearest node with a HELP text, from the focused widget up."""
    node: DOMNode | None = widget
    while node is not None:
        text = getattr(type(node), "HELP", None)
        if isinstance(text, str) and text.strip():
            title = getattr(type(node), "BINDING_GROUP_TITLE", None) or _words(type(node).__name__)
            return str(title), text
        node = node.parent
    return "mcpx inspect", GENERAL


class _HelpText:
    """A help text's Markdown, its inline code in the theme's accent (Rich's default is cyan on black)."""

    def __init__(self, markdown: Markdown, theme: Theme) -> None:
        self.markdown = markdown
        self.theme = theme

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        with console.use_theme(self.theme):
            # rendered inside the theme: Rich renders lazily, the styles are looked up as it goes
            yield from list(console.render(self.markdown, options))


@lru_cache(maxsize=64)
def _parsed(text: str) -> Markdown:
    """A help text parsed once per process (the texts are class constants)."""
    from rich.markdown import Markdown  # at the first F1, not at start-up (markdown-it: ~35 ms)

    return Markdown(text)


def open_help(app: App[Any], widget: Widget | None, general: str = GENERAL) -> None:
    """Push the help for `widget` (focused on the current screen): one help screen per app, installed,
    retexted only when the page differs from the last one shown."""
    page = help_page(app.screen, widget, general)
    if app.is_screen_installed(INSTALLED):
        screen = app.get_screen(INSTALLED)
        assert isinstance(screen, HelpScreen)
        screen.show(page)
    else:
        screen = HelpScreen(widget, general=general, page=page)
        app.install_screen(screen, INSTALLED)
    app.push_screen(screen)


def prepare_help(screen: Screen[Any], general: str = GENERAL) -> None:
    """Build the help screen off screen while the app is idle, `PREPARE_AFTER` seconds from now (once an
    app: later calls do nothing), so that the first F1 costs what a later one does.

    A screen shown for the first time is composed, laid out twice (its widgets learn their sizes in the
    first pass and ask for a second) and drawn whole: the first F1 of a session took 130-220 ms of CPU,
    every later one ~40 ms. Here those steps run one at a time, `PREPARE_STEP` apart, each a timer of
    `screen` (so they stop with it, and never run while the app quits): the screen is installed and
    started as Textual starts one pushed the first time (composed and mounted by its own task), then laid
    out at the app's size twice and drawn into its widgets' caches, never to the terminal."""
    app = screen.app
    if app in _PREPARING or app.is_screen_installed(INSTALLED):
        return
    _PREPARING.add(app)
    screen.set_timer(PREPARE_AFTER, partial(_start_help, screen, general), name="help-prepare")


def _start_help(screen: Screen[Any], general: str) -> None:
    app = screen.app
    if not (app.is_running and screen.is_current) or app.is_screen_installed(INSTALLED):
        return  # quitting, or a modal is up (F1 may be open already): the first F1 builds it
    page = help_page(screen, screen.focused, general)
    help_screen = HelpScreen(screen.focused, general=general, page=page)
    app.install_screen(help_screen, INSTALLED)
    try:
        _start_unshown(app, help_screen)
    except Exception:  # a Textual whose internals moved (the runtime pin is <9): F1 builds it as before
        app.uninstall_screen(INSTALLED)
        return
    screen.set_timer(PREPARE_STEP, partial(_lay_out_help, screen, help_screen, 3), name="help-prepare")


def _lay_out_help(screen: Screen[Any], help_screen: HelpScreen, steps: int) -> None:
    """One step at a time (~10-25 ms of CPU each, a key pressed meanwhile waits no longer): what a first
    show does (`Screen._refresh_layout` twice: the widgets learn their sizes, then lay out with them; then
    `Screen._compositor_refresh`), without the terminal: sizes and drawn lines cached for the first F1."""
    app = screen.app
    if not app.is_running or help_screen.is_current or not help_screen.is_attached:
        return  # quitting, or F1 came first: Textual lays it out as it shows it
    if help_screen.is_mounted and all(child.is_mounted for child in help_screen.walk_children(Widget)):
        try:
            _lay_out_unshown(help_screen, app.size) if steps > 1 else _draw_unshown(help_screen)
        except Exception:  # Textual's internals moved (the runtime pin is <9): F1 lays it out as it shows it
            return
        steps -= 1
    if steps > 0:
        step = partial(_lay_out_help, screen, help_screen, steps)
        screen.set_timer(PREPARE_STEP, step, name="help-prepare")


# Textual's private steps of a first show, one per function: the head start's only ties to its internals
def _start_unshown(app: App[Any], screen: Screen[Any]) -> None:
    """Start `screen` as `App.push_screen` starts one it shows the first time (`App._get_screen`)."""
    app._register(app, screen)


def _lay_out_unshown(screen: Screen[Any], size: Size) -> None:
    screen._refresh_layout(size)


def _draw_unshown(screen: Screen[Any]) -> None:
    screen._compositor.render_full_update()


def help_prepared(app: App[Any]) -> bool:
    """Whether the app's help screen is built and laid out (by `prepare_help`, or by a first F1)."""
    if not app.is_screen_installed(INSTALLED):
        return False
    keys = app.get_screen(INSTALLED).query("#help-keys")
    return bool(keys) and keys.first().size.height > 0


def help_page(screen: Screen[Any], widget: Widget | None, general: str) -> HelpPage:
    """The help for `widget`, and every key that works on `screen` (the one the help opens over)."""
    title, text = help_of(widget)
    if text is GENERAL:
        text = general
    accent = screen.app.theme_variables.get("text-accent") or "bold"
    return HelpPage(title, text, general, _key_rows(screen), accent)


class HelpScreen(ModalScreen[None]):
    """Help for what is focused, and its keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help-close", tooltip="Close the help"),
    ]

    def __init__(
        self, widget: Widget | None, *, general: str = GENERAL, page: HelpPage | None = None
    ) -> None:
        super().__init__()
        self.widget = widget
        #: what the app is, shown under the focused pane's help (`mcpx replay` has its own)
        self.general = general
        #: what is shown (None: worked out on compose, from the screen below)
        self.page = page

    def compose(self) -> ComposeResult:
        if self.page is None:
            stack = self.app.screen_stack
            below = stack[-2] if len(stack) > 1 else self.app.screen
            self.page = help_page(below, self.widget, self.general)
        page = self.page
        with VerticalScroll(id="help-dialog") as dialog:
            dialog.border_title = f"Help · {page.title}"
            dialog.border_subtitle = "Esc closes"
            yield Static(self._markdown(page.text), id="help-focused")
            general = Static(self._markdown(page.general), id="help-general")
            general.display = page.text is not page.general
            yield general
            yield Static(_keys(page.keys), id="help-keys")

    def show(self, page: HelpPage) -> None:
        """Show `page` (a pushed-again installed screen): only what changed is redrawn, from the top."""
        before, self.page = self.page, page
        if not self.is_mounted or page == before:
            if self.is_mounted:
                self.query_one("#help-dialog").scroll_home(animate=False)
            return
        dialog = self.query_one("#help-dialog", VerticalScroll)
        dialog.border_title = f"Help · {page.title}"
        if before is None or (page.text, page.accent) != (before.text, before.accent):
            self.query_one("#help-focused", Static).update(self._markdown(page.text))
        general = self.query_one("#help-general", Static)
        if before is None or (page.general, page.accent) != (before.general, before.accent):
            general.update(self._markdown(page.general))
        general.display = page.text is not page.general
        if before is None or page.keys != before.keys:
            self.query_one("#help-keys", Static).update(_keys(page.keys))
        dialog.scroll_home(animate=False)

    def _markdown(self, text: str) -> _HelpText:
        accent = self.page.accent if self.page is not None else "bold"
        theme = Theme({"markdown.code": Style.parse(accent) + Style(bold=True)}, inherit=True)
        return _HelpText(_parsed(text), theme)


def _key_rows(screen: Screen[Any]) -> tuple[KeyRow, ...]:
    """Every key that works on `screen`, grouped by where it is bound, keys of one binding id merged."""
    app = screen.app
    seen: set[tuple[str, str]] = set()
    groups: dict[str, list[tuple[str, Binding]]] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if binding.system or (binding.action, key) in seen:
            continue
        seen.add((binding.action, key))
        group = getattr(type(active.node), "BINDING_GROUP_TITLE", None) or type(active.node).__name__
        groups.setdefault(str(group), []).append((key, binding))
    rows: list[KeyRow] = []
    for group, entries in groups.items():
        rows.append(group)
        merged: dict[str, list[str]] = {}
        described: dict[str, Binding] = {}
        for key, binding in entries:
            ident = binding.id or binding.action
            merged.setdefault(ident, []).append(app.get_key_display(Binding(key, binding.action)))
            if binding.id or ident not in described:  # the binding with an id says what it does
                described[ident] = binding
        for ident, keys in merged.items():
            binding = described[ident]
            what = binding.tooltip or binding.description or binding.action
            rows.append((" ".join(keys), what, binding.id or ""))
    return tuple(rows)


def _keys(rows: tuple[KeyRow, ...]) -> Content:
    """The keys in aligned columns of text (a Rich `Table` here took ~100 ms to measure and draw)."""
    cells = [row for row in rows if isinstance(row, tuple)]
    key_width = max([len("key"), *(len(row[0]) for row in cells)]) + 2
    what_width = min(WHAT_WIDTH, max([len("does"), *(len(row[1]) for row in cells)])) + 2
    lines: list[Content] = [
        Content.styled(f"{'key':<{key_width}}{'does':<{what_width}}id (for the keymap)", "bold")
    ]
    for row in rows:
        if isinstance(row, str):
            lines.append(Content.styled(row, "bold underline"))
            continue
        shown_keys, what, ident = row
        first, *more = textwrap.wrap(what, what_width - 2) or [""]
        lines.append(Content.assemble(f"{shown_keys:<{key_width}}{first:<{what_width}}", (ident, "dim")))
        lines.extend(Content(" " * key_width + line) for line in more)
    return Content("\n").join(lines)


def _words(class_name: str) -> str:
    """`ItemDetail` → `Item detail`: a pane's name for a person, when it has no title of its own."""
    import re

    words = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", class_name) or [class_name]
    return " ".join([words[0], *(w.lower() for w in words[1:])])
