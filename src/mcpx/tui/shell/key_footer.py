"""`KeyFooter`: Textual's `Footer`, rebuilt only when the keys it shows change.

Textual's footer recomposes on every bindings signal of its screen — each focus move, each screen pushed
or popped above it — removing and mounting a widget per key, each restyled twice (its `compact` flips
from the default): 50–200 ms of CPU on this app for Tab, F1 or Esc, most of a key's budget. Here the keys
it would show are compared with the ones it shows; the same keys cost nothing, the same number of plain
keys is an in-place update of their texts, and anything else is Textual's own recompose.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: (key, key display, description, action, disabled, tooltip, group or None) of one key in the footer
Shown = tuple[str, str, str, str, bool, str, object]


class KeyFooter(Footer):
    """A footer of the focused widget's keys that does no work when they have not changed."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[Shown, ...] | None = None

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._update_keys)

    def _wanted(self) -> tuple[Shown, ...]:
        """What `Footer.compose` would show now, in its order (the palette key last)."""
        active = self.screen.active_bindings
        wanted: list[Shown] = []
        seen: set[str] = set()
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue  # compose shows the first binding of each action
            seen.add(binding.action)
            wanted.append(
                (
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    not enabled,
                    tooltip or "",
                    binding.group,
                )
            )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and palette is not None:
            _node, binding, enabled, tooltip = palette
            shown = binding.description, binding.action, not enabled
            wanted.append(("palette", binding.key, *shown, "", None))
        return tuple(wanted)

    async def _update_keys(self) -> None:
        if not self.is_attached:
            return
        wanted = self._wanted()
        if wanted == self._shown:
            return
        before, self._shown = self._shown, wanted
        keys = list(self.query_children(FooterKey))
        plain = before is not None and all(entry[6] is None for entry in (*before, *wanted))
        if plain and before is not None and len(before) == len(wanted) == len(keys):
            for widget, old, new in zip(keys, before, wanted, strict=True):
                if old[0] == "palette" or new[0] == "palette":
                    if old != new:
                        break  # the palette key changed: rare; let compose handle it
                    continue
                widget.key, widget.key_display, widget.description, widget.action, disabled, tooltip, _ = new
                widget._disabled = disabled  # read by FooterKey.on_mouse_down
                widget.set_class(disabled, "-disabled")
                widget.tooltip = tooltip or None
                widget.refresh(layout=True)
            else:
                return
        await self.recompose()
