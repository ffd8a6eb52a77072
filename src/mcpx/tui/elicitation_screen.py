"""`ElicitationScreen`: the server asks the user to fill in a form (form-mode elicitation).

It shows who asks, the message (Markdown) and the fields of `requestedSchema` — the spec's restricted,
flat kinds — with the defaults pre-filled (SEP-1034) and the required ones marked. The answer is checked
against the schema before it is sent; the user can still send what fails (a debugger may want to), with
a second ctrl+s. Three answers, one key each: ctrl+s accepts with the content, ctrl+n declines, Esc
cancels.
"""

from __future__ import annotations

from typing import Any, ClassVar

import orjson
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import Button, Label, Markdown, Static, TextArea

from mcpx.schema.elicitation import describe_fields, fill, problems
from mcpx.tui.ask_screen import AskScreen
from mcpx.tui.asking import Ask, Asking


class ElicitationScreen(AskScreen):
    """Fill in the form, then accept, decline or cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "accept", "Accept", id="elicit-accept", tooltip="Send the form's content"),
        Binding(
            "ctrl+n", "decline", "Decline", id="elicit-decline", tooltip="Refuse to give the information"
        ),
        Binding("escape", "cancel", "Cancel", id="elicit-cancel", tooltip="Dismiss without deciding"),
    ]
    HELP: ClassVar[str] = """\
The server asks **you** for information (form-mode elicitation). The fields come from its
`requestedSchema`: defaults are filled in, required fields are marked with `*`, and what you enter is
checked against the schema before it is sent.

**ctrl+s** accepts (sends the content; a second ctrl+s sends it even if it fails the checks), **ctrl+n**
declines, **Esc** cancels. Servers must not ask for passwords or keys this way.
"""

    def __init__(self, ask: Ask, asking: Asking) -> None:
        super().__init__(ask, asking)
        schema = ask.params.get("requestedSchema")
        self.schema: dict[str, Any] = schema if isinstance(schema, dict) else {}
        self._confirm_invalid = False

    def compose(self) -> ComposeResult:
        with Vertical(id="elicit-dialog", classes="ask-dialog") as dialog:
            dialog.border_title = self.title_for("Elicitation")
            dialog.border_subtitle = "ctrl+s accept · ctrl+n decline · Esc cancel"
            yield Label(self.who_asks("asks you for information:"), id="elicit-who")
            with VerticalScroll(id="elicit-body"):
                message = self.ask.params.get("message")
                if isinstance(message, str) and message:
                    yield Markdown(message, id="elicit-message")
                yield Static(self._fields(), id="elicit-fields")
                content = fill(self.schema).content
                text = orjson.dumps(content, option=orjson.OPT_INDENT_2).decode()
                yield TextArea(text, id="elicit-json", language="json", show_line_numbers=True)
            yield Label("", id="elicit-problems")
            with Horizontal(classes="ask-buttons"):
                yield Button("Decline  ^n", id="elicit-decline-button", variant="warning")
                yield Button("Cancel  Esc", id="elicit-cancel-button")
                yield Button("Accept  ^s", id="elicit-accept-button", variant="primary")

    def _fields(self) -> str:
        lines = []
        for field in describe_fields(self.schema):
            mark = "[b $text-error]*[/]" if field.required else " "
            line = f"{mark} [b]{escape(field.name)}[/b] [$text-muted]{escape(field.kind)}[/]"
            if field.title:
                line += f"  {escape(field.title)}"
            if field.description:
                line += f" [$text-muted]— {escape(field.description)}[/]"
            lines.append(line)
        return "\n".join(lines) or "[$text-muted](no fields: accepting sends an empty object)[/]"

    def on_mount(self) -> None:
        self.query_one("#elicit-json", TextArea).focus()
        self._check()

    @on(TextArea.Changed)
    def _edited(self) -> None:
        self._confirm_invalid = False
        self._check()

    def content(self) -> Any:
        return orjson.loads(self.query_one("#elicit-json", TextArea).text)

    def _check(self) -> list[str]:
        try:
            found = problems(self.schema, self.content())
        except orjson.JSONDecodeError as exc:
            found = [f"not JSON: {exc}"]
        label = self.query_one("#elicit-problems", Label)
        label.update(
            "\n".join(f"• {escape(p)}" for p in found) if found else "✓ matches the requested schema"
        )
        label.set_class(bool(found), "-invalid")
        return found

    @on(Button.Pressed, "#elicit-accept-button")
    def action_accept(self) -> None:
        found = self._check()
        if found and not self._confirm_invalid:
            self._confirm_invalid = True
            self.notify(
                "The content does not match the schema: ctrl+s again sends it anyway.", severity="warning"
            )
            return
        try:
            content = self.content()
        except orjson.JSONDecodeError:
            self.notify("The content is not JSON: it cannot be sent.", severity="error")
            return
        self.answer({"action": "accept", "content": content})

    @on(Button.Pressed, "#elicit-decline-button")
    def action_decline(self) -> None:
        self.answer({"action": "decline"})

    @on(Button.Pressed, "#elicit-cancel-button")
    def action_cancel(self) -> None:
        self.answer({"action": "cancel"})
