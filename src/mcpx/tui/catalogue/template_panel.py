"""`TemplatePanel`: a form from an RFC 6570 URI template's variables, with `completion/complete`
suggestions as the user types; the expanded URI shows live and Read sends resources/read for it.

Expansion is the `uri-template` package's (percent-encoding, `{?query}`, `{/path}` and the rest); a
template it cannot parse is said so, and the raw template can still be read by hand.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from mcpx.tui.context import InspectContext
from mcpx.tui.forms.argument_field import ArgumentField
from mcpx.tui.results.content_view import ReadResultView
from mcpx.tui.widgets.dom import child
from mcpx.tui.widgets.event_list_view import printable


def template_variables(template: str) -> list[str] | None:
    """The variable names in order, or None when the template does not parse."""
    import uri_template

    if not uri_template.validate(template):
        return None
    names: list[str] = []
    for variable in uri_template.URITemplate(template).variables:
        if variable.name not in names:
            names.append(variable.name)
    return names


def expand(template: str, values: dict[str, str]) -> str | None:
    """The URI for `values` (empty values left out, as RFC 6570 treats undefined ones), or None."""
    import uri_template

    try:
        expanded = uri_template.URITemplate(template).expand(**{k: v for k, v in values.items() if v})
    except Exception:
        return None
    return str(expanded) if expanded is not None else None


class TemplatePanel(Vertical):
    """One field per template variable; the expanded URI; Read."""

    HELP: ClassVar[str] = """\
One field per variable of the RFC 6570 template. As you type, the server is asked for completions
(completion/complete with a ref/resource reference and the other fields as context): → accepts the
suggestion shown in grey. The expanded URI shows below; **Read** sends resources/read for it.
"""

    DEFAULT_CSS = """
    TemplatePanel { height: auto; margin-top: 1; }
    TemplatePanel > #template-uri { margin-bottom: 1; }
    TemplatePanel > .panel-buttons { height: auto; }
    """

    def __init__(self, template: str, context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="call-panel")
        self.context = context
        self.template = template
        self.variables = template_variables(template)

    def compose(self) -> ComposeResult:
        client = self.context.client
        completes = client is not None and "completions" in (client.server_capabilities or {})
        if self.variables is None:
            yield Static(
                Text("not a valid RFC 6570 template: expansion is off", "bold"), id="template-problem"
            )
        for name in self.variables or []:
            yield ArgumentField(
                name,
                ref={"type": "ref/resource", "uri": self.template},
                others=self.other_values,
                context=self.context,
                completes=completes,
                placeholder=f"{{{name}}}",
            )
        if not completes:
            yield Static(Text("(the server offers no completions)", "dim"))
        yield Static("", id="template-uri")
        with Horizontal(classes="panel-buttons"):
            yield Button("Read", id="template-read", variant="primary", compact=True)
        yield Vertical(id="template-result", classes="panel-result")

    def on_mount(self) -> None:
        self._show_uri()

    def values(self) -> dict[str, str]:
        return {field.argument: field.value for field in self.query(ArgumentField)}

    def other_values(self, skip: str) -> dict[str, str]:
        """The other fields' non-empty values: completion/complete's context.arguments."""
        return {name: value for name, value in self.values().items() if name != skip and value}

    @property
    def uri(self) -> str | None:
        if self.variables is None:
            return None
        return expand(self.template, self.values())

    @on(Input.Changed)
    def _show_uri(self) -> None:
        uri = self.uri
        shown = child(self, "#template-uri", Static)
        if shown is None:
            return
        if uri is None:
            shown.update(Text(f"URI  {printable(self.template)}  (cannot expand)", "dim"))
            return
        missing = [name for name, value in self.values().items() if not value]
        line = Text("URI  ", "dim") + Text(printable(uri), "bold")
        if missing:
            line.append(f"   empty: {', '.join(missing)}", "dim")
        shown.update(line)

    @on(Button.Pressed, "#template-read")
    def read(self) -> None:
        client = self.context.client_for(self)
        if client is None:
            return
        uri = self.uri or self.template
        self.run_worker(self._read(client, uri), name="resources/read", group="requests", exit_on_error=False)

    async def _read(self, client: Any, uri: str) -> None:
        clock = self.context.clock
        started = clock()
        result = await client.read_resource(uri)
        box = child(self, "#template-result", Vertical)
        if box is None:
            return
        await box.remove_children()
        view = ReadResultView(result.raw, latency=clock() - started)
        await box.mount(view)
        view.scroll_visible(animate=False, top=True)
