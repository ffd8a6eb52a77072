"""`RawMessageScreen`: type any JSON-RPC message (or anything at all) and send it as one frame.

Valid JSON is sent compacted onto one line (stdio frames are lines); anything else is sent as typed with
its line breaks turned into spaces — malformed on purpose is allowed, and the server's answer shows in
the traffic log like every other frame.
"""

from __future__ import annotations

from typing import ClassVar

import orjson
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea

TEMPLATE = '{\n  "jsonrpc": "2.0",\n  "id": "raw-1",\n  "method": "ping"\n}'


def one_line(text: str) -> str:
    """The frame to send for what the user typed."""
    try:
        return orjson.dumps(orjson.loads(text)).decode()
    except orjson.JSONDecodeError:
        return " ".join(text.splitlines())


class RawMessageScreen(ModalScreen[str | None]):
    """A JSON editor in a modal; its result is the frame to send, or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "send", "Send", id="raw-send", tooltip="Send this frame to the server"),
        Binding("escape", "cancel", "Cancel", id="raw-cancel", tooltip="Close without sending"),
    ]

    def __init__(self, text: str = TEMPLATE) -> None:
        super().__init__()
        self.initial = text

    def compose(self) -> ComposeResult:
        with Vertical(id="raw-dialog") as dialog:
            dialog.border_title = "Send raw JSON-RPC"
            yield Label(
                "Anything goes, malformed too: it is sent as one frame and the answer shows in the "
                "traffic log. "
                'Use string ids ("raw-1") so they cannot collide with mcpx\'s own.',
                id="raw-hint",
            )
            yield TextArea(self.initial, id="raw-text", show_line_numbers=True, tab_behavior="indent")
            with Horizontal(id="raw-buttons"):
                yield Label("", id="raw-check")
                yield Button("Cancel", id="raw-cancel-button")
                yield Button("Send  ctrl+s", id="raw-send-button", variant="primary")

    def on_mount(self) -> None:
        self._check(self.initial)

    @on(TextArea.Changed)
    def _changed(self, event: TextArea.Changed) -> None:
        self._check(event.text_area.text)

    def _check(self, text: str) -> None:
        label = self.query_one("#raw-check", Label)
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            label.update(f"not JSON ({exc}) — it will be sent as typed")
            label.set_class(True, "-invalid")
            return
        label.set_class(False, "-invalid")
        label.update(
            "valid JSON"
            + ("" if isinstance(value, dict) and value.get("jsonrpc") == "2.0" else ", not JSON-RPC 2.0")
        )

    @on(Button.Pressed, "#raw-send-button")
    def action_send(self) -> None:
        self.dismiss(one_line(self.query_one("#raw-text", TextArea).text))

    @on(Button.Pressed, "#raw-cancel-button")
    def action_cancel(self) -> None:
        self.dismiss(None)
