"""`HelpScreen` (F1, ?): help for the focused pane, then every key that works there, grouped by where it
is bound, with the binding ids a keymap can remap (`keymap = {"reconnect" = "ctrl+r"}` in settings)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Markdown, Static

GENERAL = """\
**mcpx inspect** watches one MCP server: its catalogue on the left, the selected item on the right, and
below every frame of the session. **Tab** moves between panes, **t** jumps to the traffic log, **/** filters
the pane you are in, **ctrl+p** opens the command palette (ping, reconnect, log level, clear, copy, raw
JSON-RPC), **r** reconnects, **q** quits and stops the server.
"""


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


class HelpScreen(ModalScreen[None]):
    """Help for what is focused, and its keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help-close", tooltip="Close the help"),
    ]

    def __init__(self, widget: Widget | None, *, general: str = GENERAL) -> None:
        super().__init__()
        self.widget = widget
        #: what the app is, shown under the focused pane's help (`mcpx replay` has its own)
        self.general = general

    def compose(self) -> ComposeResult:
        title, text = help_of(self.widget)
        general = self.general
        if text is GENERAL:
            text = general
        with VerticalScroll(id="help-dialog") as dialog:
            dialog.border_title = f"Help · {title}"
            dialog.border_subtitle = "Esc closes"
            yield Markdown(text, id="help-focused")
            if text is not general:
                yield Markdown(general, id="help-general")
            yield Static(self._keys(), id="help-keys")

    def _keys(self) -> Table:
        table = Table(box=None, padding=(0, 2), expand=True, header_style="bold")
        table.add_column("key", no_wrap=True)
        table.add_column("does")
        table.add_column("id (for the keymap)", style="dim", no_wrap=True)
        screen = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else self.app.screen
        seen: set[tuple[str, str]] = set()
        groups: dict[str, list[tuple[str, Binding]]] = {}
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if binding.system or (binding.action, key) in seen:
                continue
            seen.add((binding.action, key))
            group = getattr(type(active.node), "BINDING_GROUP_TITLE", None) or type(active.node).__name__
            groups.setdefault(str(group), []).append((key, binding))
        for group, entries in groups.items():
            table.add_row(Text(group, style="bold underline"), "", "")
            merged: dict[str, list[str]] = {}
            described: dict[str, Binding] = {}
            for key, binding in entries:
                ident = binding.id or binding.action
                merged.setdefault(ident, []).append(self.app.get_key_display(Binding(key, binding.action)))
                described[ident] = binding
            for ident, keys in merged.items():
                binding = described[ident]
                what = binding.tooltip or binding.description or binding.action
                table.add_row(" ".join(keys), what, binding.id or "")
        return table


def _words(class_name: str) -> str:
    """`ItemDetail` → `Item detail`: a pane's name for a person, when it has no title of its own."""
    import re

    words = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", class_name) or [class_name]
    return " ".join([words[0], *(w.lower() for w in words[1:])])
