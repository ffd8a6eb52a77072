"""`KeyFooter`: Textual's `Footer`, rebuilt only when the keys it shows change.

Textual's footer recomposes on every bindings signal of its screen — each focus move, each screen pushed
or popped above it — removing and mounting a widget per key, each restyled twice (its `compact` flips
from the default): 50–200 ms of CPU on this app for Tab, F1 or Esc, most of a key's budget. Here the keys
it would show are compared with the ones it shows; the same keys cost nothing, plain keys (no group) are
retexted in place with the difference added or removed, and anything else is Textual's own recompose.
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
        if (
            before is not None
            and len(keys) == len(before)
            and await self._update_in_place(keys, before, wanted)
        ):
            return
        await self.recompose()

    async def _update_in_place(
        self, keys: list[FooterKey], before: tuple[Shown, ...], wanted: tuple[Shown, ...]
    ) -> bool:
        """Retext the keys shown, then add or remove the difference; False when compose must do it (a key
        group, or the palette key changed)."""
        if any(entry[6] is not None for entry in (*before, *wanted)):
            return False
        old_palette = before[-1] if before and before[-1][0] == "palette" else None
        new_palette = wanted[-1] if wanted and wanted[-1][0] == "palette" else None
        if old_palette != new_palette:
            return False
        shown = keys[: len(keys) - (old_palette is not None)]
        entries = wanted[: len(wanted) - (new_palette is not None)]
        for widget, entry in zip(shown, entries, strict=False):
            widget.key, widget.key_display, widget.description, widget.action, disabled, tooltip, _ = entry
            widget._disabled = disabled  # read by FooterKey.on_mouse_down
            widget.set_class(disabled, "-disabled")
            widget.tooltip = tooltip or None
            widget.refresh(layout=True)
        if len(shown) > len(entries):
            await self.remove_children(shown[len(entries) :])
        elif len(entries) > len(shown):
            added = []
            for key, display, description, action, disabled, tooltip, _ in entries[len(shown) :]:
                widget = FooterKey(key, display, description, action, disabled=disabled, tooltip=tooltip)
                widget.set_reactive(FooterKey.compact, self.compact)  # no flip from its default on mount
                added.append(widget)
            palette = keys[-1] if old_palette is not None else None
            await self.mount_all(added, before=palette)
        return True
