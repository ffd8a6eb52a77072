"""`SamplingScreen`: the server asks the client's model for a message (`sampling/createMessage`); the
user plays the model.

Left, the request as the server sent it (`sampling_request`); right, the reply: role, text, the model
name to report and the stop reason — or the whole reply as JSON (ctrl+t), sent as written, odd shapes
included. ctrl+r (or Esc) rejects: the server gets JSON-RPC error -1 ("User rejected sampling request").
Replies sent before are offered again (ctrl+l loads the last one).
"""

from __future__ import annotations

from typing import Any, ClassVar

import orjson
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from mcpx.tui.asking import sampling_request as show
from mcpx.tui.asking.ask_screen import AskScreen
from mcpx.tui.asking.asking import Ask, Asking, rejected_sampling
from mcpx.tui.widgets.removable_select import RemovableSelect

STOP_REASONS = ("endTurn", "stopSequence", "maxTokens", "toolUse")
DEFAULT_MODEL = "mcpx-human"


def simple_text(reply: dict[str, Any]) -> str | None:
    """The text of a reply the fields can show (one text block), or None."""
    content = reply.get("content")
    if isinstance(content, list) and len(content) == 1:
        content = content[0]
    if isinstance(content, dict) and content.get("type") == "text" and isinstance(content.get("text"), str):
        extra = set(reply) - {"role", "content", "model", "stopReason"}
        if not extra and reply.get("role") in ("assistant", "user") and isinstance(reply.get("model"), str):
            stop = reply.get("stopReason")
            if stop is None or stop in STOP_REASONS:
                return str(content["text"])
    return None


class SamplingScreen(AskScreen):
    """Read the request, write (or reuse) a reply, send it or reject the request."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "send", "Send reply", id="sampling-send", tooltip="Send this reply to the server"),
        Binding(
            "ctrl+r,escape",
            "reject",
            "Reject",
            id="sampling-reject",
            tooltip="Refuse: the server gets JSON-RPC error -1",
        ),
        Binding("ctrl+t", "toggle_json", "JSON", id="sampling-json", tooltip="Edit the whole reply as JSON"),
        Binding(
            "ctrl+l", "last_reply", "Last reply", id="sampling-last", tooltip="Load the reply sent last time"
        ),
    ]
    HELP: ClassVar[str] = """\
The server asks **the client's model** for a message (sampling). mcpx has no model: you write the reply.

Left is the request — the messages by role, the system prompt, the model preferences, max tokens, stop
sequences, the context to include and the tools the model may use. Right is your reply: the role, the
text, the model name reported to the server and the stop reason. **ctrl+t** switches to the raw JSON of
the reply (sent as you write it, for tool_use blocks or deliberately odd replies), **ctrl+l** loads the
last reply you sent, **ctrl+s** sends, **ctrl+r** or **Esc** rejects (error -1, "User rejected sampling
request").
"""

    def __init__(self, ask: Ask, asking: Asking) -> None:
        super().__init__(ask, asking)
        self.json_mode = False

    # -- layout --------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        params = self.ask.params
        with Vertical(id="sampling-dialog", classes="ask-dialog") as dialog:
            dialog.border_title = self.title_for("Sampling request")
            dialog.border_subtitle = "ctrl+s send · ctrl+r reject · ctrl+t JSON · ctrl+l last reply"
            yield Label(self.who_asks("asks the client's model for a message:"), id="sampling-who")
            with Horizontal(id="sampling-body"):
                with VerticalScroll(id="sampling-request"):
                    system = params.get("systemPrompt")
                    if system is not None:
                        yield Label("system prompt", classes="sampling-role -system")
                        yield Static(escape(str(system)), classes="sampling-content")
                    messages = params.get("messages")
                    if not isinstance(messages, list):
                        yield Label("no messages list in the request", classes="sampling-warning")
                        messages = []
                    for raw in messages:
                        role, markup = show.message(raw)
                        yield Label(role, classes=f"sampling-role -{role}")
                        yield Static(markup, classes="sampling-content")
                    yield Static(self._settings(), id="sampling-settings")
                with Vertical(id="sampling-reply"):
                    if self.asking.replies:
                        options = [(show.summary(r), i) for i, r in enumerate(self.asking.replies)]
                        yield RemovableSelect(
                            options, prompt="Reuse a previous reply…", id="sampling-previous"
                        )
                    with Horizontal(classes="sampling-row"):
                        yield Label("role", classes="sampling-label")
                        yield RemovableSelect(
                            [("assistant", "assistant"), ("user", "user")],
                            value="assistant",
                            allow_blank=False,
                            id="sampling-role",
                        )
                    with Horizontal(classes="sampling-row"):
                        yield Label("model", classes="sampling-label")
                        yield Input(
                            self._last_model(), id="sampling-model", placeholder="model name to report"
                        )
                    with Horizontal(classes="sampling-row"):
                        yield Label("stop", classes="sampling-label")
                        yield RemovableSelect(
                            [(reason, reason) for reason in STOP_REASONS],
                            value="endTurn",
                            prompt="(no stop reason)",
                            id="sampling-stop",
                        )
                    yield TextArea("", id="sampling-text", soft_wrap=True)
                    yield TextArea("", id="sampling-json", language="json", show_line_numbers=True)
                    yield Label("", id="sampling-error")
            with Horizontal(classes="ask-buttons"):
                yield Button("Reject  ^r", id="sampling-reject-button", variant="error")
                yield Button("JSON  ^t", id="sampling-json-button")
                yield Button("Send  ^s", id="sampling-send-button", variant="primary")

    def _settings(self) -> str:
        rows = show.settings(self.ask.params)
        width = max(len(label) for label, _ in rows)
        return "\n".join(f"[$text-muted]{label:<{width}}[/]  {value}" for label, value in rows)

    def _last_model(self) -> str:
        for reply in self.asking.replies:
            if isinstance(reply.get("model"), str):
                return str(reply["model"])
        return DEFAULT_MODEL

    def on_mount(self) -> None:
        self.query_one("#sampling-json", TextArea).display = False
        self.query_one("#sampling-text", TextArea).focus()

    # -- the reply -----------------------------------------------------------------------------------
    def reply_from_fields(self) -> dict[str, Any]:
        reply: dict[str, Any] = {
            "role": self.query_one("#sampling-role", Select).value,
            "content": {"type": "text", "text": self.query_one("#sampling-text", TextArea).text},
            "model": self.query_one("#sampling-model", Input).value,
        }
        stop = self.query_one("#sampling-stop", Select).value
        if isinstance(stop, str):
            reply["stopReason"] = stop
        return reply

    def load(self, reply: dict[str, Any]) -> None:
        """Show `reply` in the fields when it fits them, else as JSON."""
        text = simple_text(reply)
        if text is None:
            self._set_json_mode(True, orjson.dumps(reply, option=orjson.OPT_INDENT_2).decode())
            return
        self._set_json_mode(False)
        self.query_one("#sampling-role", Select).value = reply["role"]
        self.query_one("#sampling-model", Input).value = reply["model"]
        stop = self.query_one("#sampling-stop", Select)
        stop.value = reply["stopReason"] if reply.get("stopReason") else Select.BLANK
        self.query_one("#sampling-text", TextArea).text = text

    def _set_json_mode(self, on_: bool, text: str | None = None) -> None:
        self.json_mode = on_
        editor = self.query_one("#sampling-json", TextArea)
        if text is not None:
            editor.text = text
        editor.display = on_
        for selector in ("#sampling-text", ".sampling-row"):
            for widget in self.query(selector):
                widget.display = not on_
        self._error("")
        (editor if on_ else self.query_one("#sampling-text", TextArea)).focus()

    def _error(self, text: str) -> None:
        self.query_one("#sampling-error", Label).update(text)

    def _json_reply(self) -> dict[str, Any] | None:
        try:
            value = orjson.loads(self.query_one("#sampling-json", TextArea).text)
        except orjson.JSONDecodeError as exc:
            self._error(f"Not JSON: {exc}")
            return None
        if not isinstance(value, dict):
            self._error("The reply must be a JSON object (a CreateMessageResult).")
            return None
        return value

    # -- actions -------------------------------------------------------------------------------------
    @on(Button.Pressed, "#sampling-json-button")
    def action_toggle_json(self) -> None:
        if not self.json_mode:
            text = orjson.dumps(self.reply_from_fields(), option=orjson.OPT_INDENT_2).decode()
            self._set_json_mode(True, text)
            return
        reply = self._json_reply()
        if reply is None:
            return
        if simple_text(reply) is None:
            self._error("This reply does not fit the fields (several blocks, other fields): edit it as JSON.")
            return
        self.load(reply)

    def action_last_reply(self) -> None:
        if self.asking.replies:
            self.load(self.asking.replies[0])
        else:
            self.notify("No reply sent yet in this session.", severity="warning")

    @on(Select.Changed, "#sampling-previous")
    def _previous(self, event: Select.Changed) -> None:
        if isinstance(event.value, int) and 0 <= event.value < len(self.asking.replies):
            self.load(self.asking.replies[event.value])

    @on(Button.Pressed, "#sampling-send-button")
    def action_send(self) -> None:
        reply = self._json_reply() if self.json_mode else self.reply_from_fields()
        if reply is None:
            return
        self.asking.remember_reply(reply)
        self.answer(reply)

    @on(Button.Pressed, "#sampling-reject-button")
    def action_reject(self) -> None:
        self.fail(rejected_sampling())
