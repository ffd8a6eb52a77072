"""`RemovableSelect`: a `Select` that may be removed while it mounts.

Textual's `Select` looks up its own overlay when it mounts. A Select inside a lazily mounted pane can
get its Mount event after the app began to shut down and its children were already removed (a test or a
user quitting as the traffic panel comes in); the lookup then raised NoMatches and the app ended on an
error. Textual's own `_watch_expanded` guards the same lookup for the same reason. A form's Select met
the same end when its call panel was replaced as it mounted (a loaded clean-clone run): its current-value
line was there, the label inside it already gone.
"""

from __future__ import annotations

from typing import Generic

from textual import events
from textual.widgets import Select
from textual.widgets._select import SelectCurrent, SelectOverlay, SelectType


class RemovableSelect(Select[SelectType], Generic[SelectType]):
    def _on_mount(self, event: events.Mount) -> None:
        if self._taken_apart():
            event.prevent_default()  # removed while mounting: Select's own handler would raise

    def _taken_apart(self) -> bool:
        current = self.query(SelectCurrent)
        return not self.query(SelectOverlay) or not current or not current.first().query("#label")
