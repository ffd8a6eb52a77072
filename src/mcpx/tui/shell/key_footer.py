"""`KeyFooter`: Textual's `Footer` drawn as one line, redrawn only when the keys it shows change.

Textual's footer recomposes on every bindings signal of its screen — each focus move, each screen pushed
or popped above it — removing and mounting a widget per key, each restyled, and every mount or removal
lays the whole screen out again: 50–200 ms of CPU on this app for Tab, F1 or Esc. Here the keys it would
show are compared with the ones it shows: the same keys cost nothing, other keys are one repaint of one
line (`KeyLine`, a fixed-size widget: no layout). The command palette's key stays Textual's `FooterKey`,
docked right, as in Textual's footer (it changes only when the palette is enabled or disabled). Drawn
with the same component styles, it looks as Textual's footer does; a click runs the key under the
pointer, which is highlighted with its tooltip shown. Binding groups, which mcpx does not use, are drawn
as plain keys.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: (key, key display, description, action, disabled, tooltip) of one key in the footer
Shown = tuple[str, str, str, str, bool, str]


class KeyLine(Widget):
    """The footer's keys as one line of text: changing them repaints a line and lays nothing out."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "footer-key--key",
        "footer-key--description",
        "key-line--hover",
    }
    DEFAULT_CSS = """
    KeyLine {
        width: 1fr;
        height: 1;
        text-wrap: nowrap;
        text-overflow: clip;
        background: $footer-item-background;
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
            padding: 0 1;
        }
        .footer-key--description {
            padding: 0 1 0 0;
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-line--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.keys: tuple[Shown, ...] = ()
        #: (first cell, end cell) of each key as last drawn, for the pointer
        self._cells: list[tuple[int, int]] = []
        self._hovered: int | None = None

    def show(self, keys: tuple[Shown, ...]) -> None:
        self.keys = keys
        self._hovered = None
        self.refresh()

    def texts(self) -> list[tuple[str, str]]:
        """(key display, description) of each key shown, in order."""
        return [(display, description) for _key, display, description, *_ in self.keys]

    @property
    def cells(self) -> list[tuple[int, int]]:
        """(first cell, end cell) of each key as last drawn."""
        return list(self._cells)

    def render(self) -> Text:
        key_style = self.get_component_rich_style("footer-key--key")
        description_style = self.get_component_rich_style("footer-key--description")
        key_padding = self.get_component_styles("footer-key--key").padding
        description_padding = self.get_component_styles("footer-key--description").padding
        hover = self.get_component_rich_style("key-line--hover")
        line = Text(no_wrap=True, end="")
        cells: list[tuple[int, int]] = []
        for index, (_key, display, description, _action, disabled, _tooltip) in enumerate(self.keys):
            # as FooterKey.render draws one key
            if description:
                piece = Text.assemble(
                    (" " * key_padding.left + display + " " * key_padding.right, key_style),
                    (
                        " " * description_padding.left + description + " " * description_padding.right,
                        description_style,
                    ),
                )
            else:
                piece = Text.assemble((display, key_style))
            if index == self._hovered:
                piece.stylize_before(hover)
            if disabled:
                piece.stylize_before(Style(dim=True))
            start = line.cell_len
            line.append_text(piece)
            cells.append((start, line.cell_len))
        self._cells = cells
        return line

    def _key_at(self, x: int) -> int | None:
        return next((index for index, (start, end) in enumerate(self._cells) if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hovered = self._key_at(event.x)
        if hovered != self._hovered:
            self._hovered = hovered
            self.tooltip = (self.keys[hovered][5] or None) if hovered is not None else None
            self.refresh()

    def on_leave(self) -> None:
        if self._hovered is not None:
            self._hovered = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._key_at(event.x)
        if index is None:
            return
        key, _display, _description, _action, disabled, _tooltip = self.keys[index]
        if disabled:
            self.app.bell()
        else:
            self.app.simulate_key(key)


class KeyFooter(Footer):
    """A footer of the focused widget's keys that does no work when they have not changed."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[Shown, ...] | None = None
        self._palette: Shown | None = None

    def compose(self) -> ComposeResult:
        yield KeyLine()

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._update_keys)

    def texts(self) -> list[tuple[str, str]]:
        """(key display, description) of each key shown, the palette's last."""
        shown = self.query_one(KeyLine).texts()
        palette = [(key.key_display, key.description) for key in self.query_children(FooterKey)]
        return [*shown, *palette]

    def _wanted(self) -> tuple[tuple[Shown, ...], Shown | None]:
        """What `Footer.compose` would show now, in its order: the keys, and the palette's key."""
        active = self.screen.active_bindings
        wanted: list[Shown] = []
        seen: set[str] = set()
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue  # compose shows the first binding of each action
            seen.add(binding.action)
            display = self.app.get_key_display(binding)
            wanted.append((binding.key, display, binding.description, binding.action, not enabled, tooltip))
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and palette is not None):
            return tuple(wanted), None
        _node, binding, enabled, tooltip = palette
        shown = (binding.key, self.app.get_key_display(binding), binding.description, binding.action)
        return tuple(wanted), (*shown, not enabled, binding.tooltip or binding.description)

    async def _update_keys(self) -> None:
        if not self.is_attached:
            return
        wanted, palette = self._wanted()
        if wanted != self._shown:
            self._shown = wanted
            self.query_one(KeyLine).show(wanted)
        if palette != self._palette:
            self._palette = palette
            await self.query_children(FooterKey).remove()
            if palette is not None:
                key, display, description, action, disabled, tooltip = palette
                await self.mount(
                    FooterKey(
                        key,
                        display,
                        description,
                        action,
                        disabled=disabled,
                        tooltip=tooltip,
                        classes="-command-palette",
                    )
                )
