"""`ArgumentField`: one string argument (a prompt's, or a URI template's variable) with the server's
`completion/complete` suggestions as the user types.

Each change asks the server (`ref` names the prompt or template; `context.arguments` carries the other
fields' values); the first value that extends what was typed shows as ghost text (→ accepts it) and all
values are listed under the field. A server without the `completions` capability is not asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Label, Static

from mcpx.tui.context import InspectContext
from mcpx.tui.widgets.dom import child
from mcpx.tui.widgets.event_list_view import printable

#: values listed under a field at most
SHOWN_VALUES = 12


class ServerSuggester(Suggester):
    """Asks the field's server for completions of the typed value (never cached: context changes)."""

    def __init__(self, field: ArgumentField) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.field = field

    async def get_suggestion(self, value: str) -> str | None:
        values = await self.field.fetch(value)
        return next((v for v in values if v.startswith(value) and v != value), None)


class ArgumentField(Vertical):
    """A labelled input with completion suggestions from the server."""

    DEFAULT_CSS = """
    ArgumentField { height: auto; margin-bottom: 1; }
    ArgumentField > .argument-label { color: $text; }
    ArgumentField > .argument-help { color: $text-muted; }
    ArgumentField > .argument-suggestions { color: $text-muted; }
    ArgumentField > .argument-suggestions.-failed { color: $text-warning; }
    ArgumentField > Input { background: $boost; }
    """

    def __init__(
        self,
        name: str,
        *,
        ref: dict[str, Any],
        others: Callable[[str], dict[str, str]],
        context: InspectContext,
        required: bool = False,
        description: str | None = None,
        value: str = "",
        completes: bool = True,
        placeholder: str | None = None,
    ) -> None:
        super().__init__(classes="argument-field")
        self.argument = name
        self.ref = ref
        #: the other fields' values (completion/complete's context.arguments)
        self.others = others
        self.context = context
        self.required = required
        self.description = description
        self.initial = value
        self.completes = completes
        self.values: list[str] = []
        self.placeholder = placeholder if placeholder is not None else "" if required else "(optional)"

    def compose(self) -> ComposeResult:
        label = Text(printable(self.argument), style="bold")
        if self.required:
            label.append(" *", style="bold red")
            label.append("  required", style="dim")
        yield Label(label, classes="argument-label")
        if self.description:
            yield Static(Text(printable(self.description, multiline=True)), classes="argument-help")
        yield Input(
            self.initial,
            placeholder=self.placeholder,
            compact=True,
            suggester=ServerSuggester(self) if self.completes else None,
            classes="argument-input",
        )
        yield Static("", classes="argument-suggestions")

    @property
    def value(self) -> str:
        field = child(self, "Input", Input)
        return field.value if field is not None else self.initial

    @value.setter
    def value(self, text: str) -> None:
        self.query_one(Input).value = text

    def on_descendant_focus(self) -> None:
        if self.completes and not self.value:
            self.run_worker(self.fetch(""), group="completion", exclusive=True, exit_on_error=False)

    async def fetch(self, value: str) -> list[str]:
        """Ask the server for completions of `value`; show and return them ([] when it cannot)."""
        client = self.context.client
        shown = child(self, ".argument-suggestions", Static)
        if client is None or not self.completes or shown is None:
            return []
        try:
            result = await client.complete(self.ref, self.argument, value, self.others(self.argument) or None)
        except Exception as exc:
            message = getattr(exc, "error_message", None) or str(exc)
            shown.update(Text(f"completion failed: {printable(message)[:120]}"))
            shown.set_class(True, "-failed")
            return []
        shown.set_class(False, "-failed")
        values = [v for v in result.completion.values if isinstance(v, str)]
        self.values = values
        if value != self.value:  # typed on meanwhile: an older answer
            return values
        if not values:
            shown.update("no suggestions" if value else "")
            return values
        more = (result.completion.total or len(values)) - min(len(values), SHOWN_VALUES)
        listed = " · ".join(printable(v) for v in values[:SHOWN_VALUES])
        shown.update(Text(f"suggestions: {listed}" + (f"  (+{more} more)" if more > 0 else "")))
        return values
