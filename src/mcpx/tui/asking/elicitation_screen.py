"""`ElicitationScreen`: the server asks the user to fill in a form (form-mode elicitation).

It shows who asks, the message (Markdown) and a `SchemaForm` for `requestedSchema` — the spec's restricted
kinds: strings with formats and lengths, numbers and integers with bounds, booleans, single-select enums
(plain, titled `oneOf`, legacy `enumNames`) and multi-selects — with the defaults pre-filled (SEP-1034),
the required fields marked and every problem shown beside its field before anything is sent; a second
ctrl+s sends what fails the checks anyway (a debugger may want to). Three answers, one key each: ctrl+s
accepts with the content, ctrl+n declines, Esc cancels. F2 edits the content as raw JSON.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import Button, Label, Markdown

from mcpx.tui.asking.ask_screen import AskScreen
from mcpx.tui.asking.asking import Ask, Asking
from mcpx.tui.forms.schema_form import SchemaForm


class ElicitationScreen(AskScreen):
    """Fill in the form, then accept, decline or cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "accept", "Accept", id="elicit-accept", tooltip="Send the form's content"),
        Binding(
            "ctrl+n", "decline", "Decline", id="elicit-decline", tooltip="Refuse to give the information"
        ),
        Binding("escape", "cancel", "Cancel", id="elicit-cancel", tooltip="Dismiss without deciding"),
    ]
    #: the first field of the form has the focus when the screen opens
    AUTO_FOCUS = ", ".join(
        f"#elicit-form {kind}"
        for kind in ("Input", "Select", "Checkbox", "Switch", "SelectionList", "RadioSet")
    )
    HELP: ClassVar[str] = """\
The server asks **you** for information (form-mode elicitation). The fields come from its
`requestedSchema`: defaults are filled in, required fields are marked with `*`, and what you enter is
checked against the schema before it is sent (problems show beside each field).

**ctrl+s** accepts (sends the content; a second ctrl+s sends it even if it fails the checks), **ctrl+n**
declines, **Esc** cancels, **F2** edits the content as raw JSON. Servers must not ask for passwords or keys
this way.
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
                yield SchemaForm(self.schema, id="elicit-form")
            yield Label("", id="elicit-problems")
            with Horizontal(classes="ask-buttons"):
                yield Button("Decline  ^n", id="elicit-decline-button", variant="warning")
                yield Button("Cancel  Esc", id="elicit-cancel-button")
                yield Button("Accept  ^s", id="elicit-accept-button", variant="primary")

    @property
    def form(self) -> SchemaForm:
        return self.query_one("#elicit-form", SchemaForm)

    @on(SchemaForm.Changed)
    def _edited(self) -> None:
        self._confirm_invalid = False
        self._check()

    def _check(self) -> list[str]:
        form = self.form
        found = [] if not form.summary() else [form.summary()]
        if not form.raw_valid_json:
            found = ["the raw JSON does not parse"]
        label = self.query_one("#elicit-problems", Label)
        label.update(escape(found[0]) if found else "matches the requested schema")
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
        if not self.form.raw_valid_json:
            self.notify("The raw JSON does not parse: nothing can be sent.", severity="error")
            return
        content = self.form.value
        self.answer({"action": "accept", "content": content if content is not None else {}})

    @on(Button.Pressed, "#elicit-decline-button")
    def action_decline(self) -> None:
        self.answer({"action": "decline"})

    @on(Button.Pressed, "#elicit-cancel-button")
    def action_cancel(self) -> None:
        self.answer({"action": "cancel"})
