"""`PromptPanel`: a form from a prompt's arguments (required ones marked), `completion/complete`
suggestions per argument with the others as context, and Get: prompts/get's messages by role, each
content block rendered as tool results are (`ContentBlockView`).

A required argument left empty is said so, and Get still sends (a debugger sends what the user asks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from mcpx.tui.context import InspectContext
from mcpx.tui.forms.argument_field import ArgumentField
from mcpx.tui.results.content_view import ContentBlockView, json_renderable
from mcpx.tui.widgets.dom import child
from mcpx.tui.widgets.event_list_view import printable
from mcpx.tui.widgets.formats import format_latency


class PromptMessagesView(Vertical):
    """A prompts/get result: its description, then each message under its role."""

    DEFAULT_CSS = """
    PromptMessagesView { height: auto; border-left: outer $primary; padding-left: 1; }
    PromptMessagesView > .prompt-summary { color: $text-muted; margin-bottom: 1; }
    PromptMessagesView > .role { text-style: bold; }
    PromptMessagesView > .role.-user { color: $text-primary; }
    PromptMessagesView > .role.-assistant { color: $text-success; }
    PromptMessagesView > .role.-other { color: $text-warning; }
    """

    def __init__(self, result: Any, context: InspectContext, *, latency: float | None = None) -> None:
        super().__init__(classes="prompt-messages")
        self.result = result
        self.context = context
        self.latency = latency

    def compose(self) -> ComposeResult:
        result = self.result
        messages = result.get("messages") if isinstance(result, Mapping) else None
        if not isinstance(messages, list):
            yield Static(Text("prompts/get result without a messages list", "bold"))
            yield Static(json_renderable(result))
            return
        summary = f"prompts/get: {len(messages)} message{'s' if len(messages) != 1 else ''}"
        if self.latency is not None:
            summary += f" in {format_latency(self.latency)}"
        description = result.get("description")
        if isinstance(description, str) and description:
            summary += f" · {printable(description)}"
        yield Static(summary, classes="prompt-summary")
        for message in messages:
            role = message.get("role") if isinstance(message, Mapping) else None
            kind = role if role in ("user", "assistant") else "other"
            yield Static(Text(f"{role if isinstance(role, str) else '(no role)'}"), classes=f"role -{kind}")
            content = message.get("content") if isinstance(message, Mapping) else message
            blocks = content if isinstance(content, list) else [content]
            for block in blocks:
                yield ContentBlockView(block, context=self.context)


class PromptPanel(Vertical):
    """One field per prompt argument; Get sends prompts/get and shows the messages."""

    HELP: ClassVar[str] = """\
One field per argument of the prompt (* = required). As you type, the server is asked for completions
(completion/complete with a ref/prompt reference and the other arguments as context): → accepts the
suggestion shown in grey. **Get** sends prompts/get and shows the messages by role, with every content
type rendered (text, images, audio, resources).
"""

    DEFAULT_CSS = """
    PromptPanel { height: auto; margin-top: 1; }
    PromptPanel > .panel-buttons { height: auto; }
    PromptPanel > #prompt-missing { color: $text-warning; }
    """

    def __init__(self, prompt: Mapping[str, Any], context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="call-panel")
        self.context = context
        self.prompt = prompt
        self.name_ = str(prompt.get("name", ""))
        arguments = prompt.get("arguments")
        self.arguments = (
            [a for a in arguments if isinstance(a, Mapping) and isinstance(a.get("name"), str)]
            if (isinstance(arguments, list))
            else []
        )

    def compose(self) -> ComposeResult:
        client = self.context.client
        completes = client is not None and "completions" in (client.server_capabilities or {})
        for argument in self.arguments:
            description = argument.get("description")
            yield ArgumentField(
                argument["name"],
                ref={"type": "ref/prompt", "name": self.name_},
                others=self.other_values,
                context=self.context,
                required=argument.get("required") is True,
                description=description if isinstance(description, str) else None,
                completes=completes,
            )
        if not self.arguments:
            yield Static(Text("(no arguments)", "dim"))
        elif not completes:
            yield Static(Text("(the server offers no completions)", "dim"))
        yield Static("", id="prompt-missing")
        with Horizontal(classes="panel-buttons"):
            yield Button("Get prompt", id="prompt-get", variant="primary", compact=True)
        yield Vertical(id="prompt-result", classes="panel-result")

    def on_mount(self) -> None:
        self._check()

    def values(self) -> dict[str, str]:
        return {field.argument: field.value for field in self.query(ArgumentField)}

    def other_values(self, skip: str) -> dict[str, str]:
        return {name: value for name, value in self.values().items() if name != skip and value}

    @on(Input.Changed)
    def _check(self) -> None:
        missing = [f.argument for f in self.query(ArgumentField) if f.required and not f.value]
        shown = child(self, "#prompt-missing", Static)
        if shown is not None:
            shown.update(f"required, still empty: {', '.join(missing)} (Get sends anyway)" if missing else "")

    @on(Button.Pressed, "#prompt-get")
    def get(self) -> None:
        client = self.context.client_for(self)
        if client is None:
            return
        arguments = {name: value for name, value in self.values().items() if value}
        self.run_worker(
            self._get(client, arguments), name="prompts/get", group="requests", exit_on_error=False
        )

    async def _get(self, client: Any, arguments: dict[str, str]) -> None:
        clock = self.context.clock
        started = clock()
        result = await client.get_prompt(self.name_, arguments or None)
        box = child(self, "#prompt-result", Vertical)
        if box is None:
            return
        await box.remove_children()
        view = PromptMessagesView(result.raw, self.context, latency=clock() - started)
        await box.mount(view)
        view.scroll_visible(animate=False, top=True)
