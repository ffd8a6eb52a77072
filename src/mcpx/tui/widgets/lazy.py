"""`Lazy`: Textual's lazy mount, minus its crash when the parent is gone before the mount comes due.

Textual's `Lazy` mounts its widget a refresh after it is composed. When the parent is detached first (the app
quits, or a screen is closed, before that refresh) its `mount()` raises
`MountError` ("Can't mount widget(s) before … is mounted"), which surfaced as a crash on a quick quit.
A widget whose parent has gone has nowhere to go: it is dropped.
"""

from __future__ import annotations

from textual import lazy
from textual.widget import Widget


class Lazy(lazy.Lazy):
    """Mount `widget` after the first refresh, if the place it was composed into still exists then."""

    async def mount_composed_widgets(self, widgets: list[Widget]) -> None:
        parent = self.parent
        if not isinstance(parent, Widget):
            return

        async def mount() -> None:
            if not (parent.is_attached and self.is_attached):
                return  # the parent (or this placeholder) was removed before the refresh came
            await parent.mount(self._replace_widget, after=self)
            await self.remove()

        self.call_after_refresh(mount)
