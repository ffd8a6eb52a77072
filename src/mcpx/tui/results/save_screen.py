"""`SaveScreen`: where to save some bytes (an image, audio, a blob); writes them and says where.

The path is prefilled with a suggested name in the current directory; Enter saves, Esc cancels. An
existing file is not overwritten silently: the first Enter warns, the second overwrites.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from mcpx.tui.widgets.json_tree import size_label
from mcpx.wire.private_files import write_private


class SaveScreen(ModalScreen[Path | None]):
    """Ask for a path, write `data` there; the result is the path written, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="save-cancel", tooltip="Close without saving"),
    ]

    def __init__(self, data: bytes, suggested: str, what: str = "content") -> None:
        super().__init__()
        self.data = data
        self.suggested = suggested
        self.what = what
        self._confirm: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="save-dialog") as dialog:
            dialog.border_title = f"Save {self.what} ({size_label(len(self.data))})"
            yield Label("Path (Enter saves, Esc cancels):", id="save-hint")
            yield Input(str(Path.cwd() / self.suggested), id="save-path")
            yield Label("", id="save-problem")

    @on(Input.Submitted, "#save-path")
    def _submitted(self, event: Input.Submitted) -> None:
        problem = self.query_one("#save-problem", Label)
        path = Path(event.value).expanduser()
        if path.is_dir():
            problem.update(f"{path} is a directory: add a file name.")
            return
        if path.exists() and self._confirm != path:
            self._confirm = path
            problem.update(f"{path.name} exists: Enter again to overwrite it.")
            return
        try:
            # what a server sent may hold what it should not: the owner's eyes only (0600, new folders 0700)
            write_private(path, self.data)
        except OSError as exc:
            problem.update(f"Cannot write {path}: {exc.strerror or exc}")
            return
        self.dismiss(path)

    def action_cancel(self) -> None:
        self.dismiss(None)
