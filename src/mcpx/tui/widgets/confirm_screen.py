"""`ConfirmScreen`: a yes/no question before something that cannot be taken back (a destructive tool).

The details (the arguments about to be sent) are shown in full; Enter or `y` confirms, Esc or `n`
declines. The result is True or False.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """Ask before doing it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "confirm", "Yes", id="confirm-yes", tooltip="Go ahead"),
        Binding("escape,n", "decline", "No", id="confirm-no", tooltip="Do not do it"),
    ]

    def __init__(self, question: str, details: str = "", *, confirm: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.details = details
        self.confirm_label = confirm

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog") as dialog:
            dialog.border_title = "Are you sure?"
            yield Label(Content(self.question), id="confirm-question")
            if self.details:
                with VerticalScroll(id="confirm-details"):
                    yield Static(Content(self.details))
            with Horizontal(id="confirm-buttons"):
                yield Button("Cancel  n", id="confirm-cancel-button")
                yield Button(f"{self.confirm_label}  y", id="confirm-button", variant="error")

    def on_mount(self) -> None:
        self.query_one("#confirm-button", Button).focus()

    @on(Button.Pressed, "#confirm-button")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-cancel-button")
    def action_decline(self) -> None:
        self.dismiss(False)
