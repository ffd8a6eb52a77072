"""`SaveRecordingScreen`: "Save recording…" from the command palette — where to write the session so far.

The dialog asks for a path (a new file in `$MCPX_RECORD_DIR`, or in the working directory, by default) and
returns it; the app writes every event logged until then with `write_recording`, secrets masked as
`--record` masks them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from mcpx.record.format import RECORD_DIR_ENV, SUFFIX

if TYPE_CHECKING:
    from textual.app import App

    from mcpx.tui.shell.inspect_screen import InspectScreen


def default_path(label: str, cwd: Path | None = None) -> str:
    """A new file name for a session with `label`: in `$MCPX_RECORD_DIR` when set, else here."""
    from mcpx.record.writer import recording_path

    directory = os.environ.get(RECORD_DIR_ENV) or str(cwd or Path.cwd())
    try:
        path = recording_path(directory, label)
    except OSError:
        path = recording_path(cwd or Path.cwd(), label)
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def check_path(text: str) -> str | None:
    """Why `text` cannot be written to (None: it can)."""
    if not text.strip():
        return "Name a file."
    path = Path(text.strip()).expanduser()
    if path.is_dir():
        return f"{text} is a folder: name a file in it."
    if not path.parent.is_dir():
        return f"The folder {str(path.parent)!r} does not exist."
    return None


class SaveRecordingScreen(ModalScreen[str | None]):
    """Asks where to save the session; its result is the path, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="save-recording-cancel", tooltip="Close without saving"),
    ]

    def __init__(self, path: str, events: int) -> None:
        super().__init__()
        self.path = path
        self.events = events
        self._confirm: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="save-recording-dialog") as dialog:
            dialog.border_title = "Save recording"
            yield Label(
                f"The session so far ({self.events:,} events) as a recording ({SUFFIX}, JSON Lines): open "
                "it with `mcpx replay FILE`. Tokens, cookies and secret environment values are masked.",
                id="save-recording-hint",
            )
            yield Input(self.path, id="save-recording-path", select_on_focus=False)
            with Horizontal(id="save-recording-buttons"):
                yield Label("", id="save-recording-check")
                yield Button("Cancel", id="save-recording-cancel-button")
                yield Button("Save  enter", id="save-recording-save-button", variant="primary")

    @on(Input.Changed, "#save-recording-path")
    def _changed(self, event: Input.Changed) -> None:
        self.query_one("#save-recording-check", Label).update(check_path(event.value) or "")

    @on(Input.Submitted, "#save-recording-path")
    @on(Button.Pressed, "#save-recording-save-button")
    def action_save(self) -> None:
        text = self.query_one("#save-recording-path", Input).value
        check = self.query_one("#save-recording-check", Label)
        problem = check_path(text)
        if problem is not None:
            check.update(problem)
            return
        path = Path(text.strip()).expanduser()
        if path.exists() and self._confirm != path:
            self._confirm = path
            check.update(f"{path.name} exists: Enter again to overwrite it.")
            return
        self.dismiss(str(path))

    @on(Button.Pressed, "#save-recording-cancel-button")
    def action_cancel(self) -> None:
        self.dismiss(None)


def save_session(screen: InspectScreen) -> None:
    """Ask where, then write the session so far there (in a thread: a long log takes a moment)."""
    app = screen.app
    context = screen.context
    if context.read_only:
        app.notify(f"This is already a recording: {app.sub_title or 'the file you opened'}.")
        return
    events = len(context.traffic)
    if not events:
        app.notify("Nothing to save yet: the log is empty.", severity="warning")
        return

    def chosen(path: str | None) -> None:
        if path is not None:
            app.run_worker(
                lambda: _write(app, screen, path, events),
                name="save recording",
                group="requests",
                thread=True,
                exit_on_error=False,
            )

    app.push_screen(SaveRecordingScreen(default_path(context.target or "server"), events), chosen)


def _write(app: App[Any], screen: InspectScreen, path: str, events: int) -> None:
    from mcpx import ServerSpec
    from mcpx.record.writer import write_recording

    context = screen.context
    spec = context.spec if context.spec is not None else ServerSpec(name=context.target or None)
    era = screen.session.era or screen.settings.protocol_era
    written = write_recording(path, context.traffic, spec, count=events, era=era)
    app.call_from_thread(app.notify, f"Saved {written:,} events to {path} (secrets masked).", timeout=8)
