"""`UrlElicitationScreen`: the server asks the user to open a page (URL-mode elicitation).

The full URL and its host are shown, never fetched; warnings say when the host is not the server's, is
punycode or the scheme is not https. The browser opens only when asked (and not over SSH or without a
display, where it would open somewhere else or take over the terminal); the URL can be copied instead.
The user says when they are done (accept), declines or cancels. A -32042 error's URLs come here too:
then "done" sends the original request again.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar
from urllib.parse import urlparse

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.markup import escape
from textual.widgets import Button, Label, Markdown, Static

from mcpx.tui.asking.ask_screen import AskScreen
from mcpx.tui.asking.asking import Ask, Asking
from mcpx.tui.widgets.browser import browser_refusal


def url_warnings(url: str, server_host: str | None) -> list[str]:
    """What the user should know before opening `url`."""
    warnings: list[str] = []
    parsed = urlparse(url)
    host = (parsed.hostname or "").lower()
    if parsed.scheme not in ("https", "http"):
        warnings.append(f"This is not a web address: the scheme is {parsed.scheme or 'missing'!r}.")
    elif parsed.scheme == "http" and host not in ("localhost", "127.0.0.1", "::1"):
        warnings.append("The page is not encrypted (http, not https).")
    if any(label.startswith("xn--") for label in host.split(".")):
        try:
            shown = host.encode("ascii").decode("idna")
        except UnicodeError:
            shown = "undecodable"
        warnings.append(f"The host is punycode: it reads as “{shown}” and may imitate another name.")
    if server_host is not None and host and host != server_host.lower():
        warnings.append(f"The page is on {host}, not on the server's own host {server_host}.")
    if parsed.username or parsed.password:
        warnings.append("The address carries a user name or password before the host.")
    return warnings


class UrlElicitationScreen(AskScreen):
    """Open (or copy) the URL, then say done, decline or cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open", "Open in browser", id="url-open", tooltip="Open the URL in your browser"),
        Binding("c", "copy", "Copy URL", id="url-copy", tooltip="Copy the URL to the clipboard"),
        Binding(
            "enter,ctrl+s", "done", "Done", id="url-done", tooltip="Tell the server you agreed / are done"
        ),
        Binding("d,ctrl+n", "decline", "Decline", id="url-decline", tooltip="Refuse to open the page"),
        Binding("escape", "cancel", "Cancel", id="url-cancel", tooltip="Dismiss without deciding"),
    ]
    HELP: ClassVar[str] = """\
The server asks you to **open a page** in your browser (URL-mode elicitation): to sign in somewhere, pay,
or give something that must not pass through the client. mcpx never fetches the page.

Check the **host** before you open it: a warning shows when it is not the server's own host, uses
punycode, or is not https. **o** opens it in your browser (not over SSH or without a display: **c** copies
it instead), **Enter** says you are done, **d** declines, **Esc** cancels. When the server needed the page
before it could answer a request (error -32042), Done sends that request again.
"""

    def __init__(self, ask: Ask, asking: Asking) -> None:
        super().__init__(ask, asking)
        self.url = str(self.ask.params.get("url", ""))
        self.host = urlparse(self.url).hostname or "(no host)"

    def compose(self) -> ComposeResult:
        with Vertical(id="url-dialog", classes="ask-dialog") as dialog:
            dialog.border_title = self.title_for("Open a page")
            dialog.border_subtitle = "o open · c copy · Enter done · d decline · Esc cancel"
            yield Label(self.who_asks("asks you to open a page:"), id="url-who")
            message = self.ask.params.get("message")
            if isinstance(message, str) and message:
                yield Markdown(message, id="url-message")
            yield Static(f"[b]{escape(self.host)}[/b]", id="url-host")
            yield Static(escape(self.url), id="url-full")
            for warning in url_warnings(self.url, self.ask.server_host):
                yield Label(f"[b]warning:[/b] {escape(warning)}", classes="url-warning")
            if self.ask.server_host is None:
                yield Label(
                    "The server runs on this machine; the page is on another host.",
                    id="url-local",
                )
            if self.ask.retries:
                yield Label(
                    f"The server needs this before it can answer {escape(self.ask.retries)}: when you are "
                    "done, mcpx sends it again.",
                    id="url-retry",
                )
            elicitation_id = self.ask.params.get("elicitationId")
            if isinstance(elicitation_id, str):
                yield Label(f"elicitation id {escape(elicitation_id)}", id="url-id")
            yield Label("", id="url-status")
            with Horizontal(classes="ask-buttons"):
                yield Button("Open  o", id="url-open-button")
                yield Button("Copy  c", id="url-copy-button")
                yield Button("Decline  d", id="url-decline-button", variant="warning")
                yield Button("Cancel  Esc", id="url-cancel-button")
                yield Button("Done  Enter", id="url-done-button", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#url-done-button", Button).focus()

    def _status(self, text: str) -> None:
        self.query_one("#url-status", Label).update(text)

    @on(Button.Pressed, "#url-open-button")
    def action_open(self) -> None:
        refusal = browser_refusal()
        if refusal is not None:
            self.app.copy_to_clipboard(self.url)
            self._status(f"Not opened: {refusal}. The URL is copied to the clipboard instead.")
            return
        self.run_worker(self._open(), name="open-url", group="browser", exit_on_error=False)

    async def _open(self) -> None:
        import webbrowser

        opened = await asyncio.to_thread(webbrowser.open, self.url)
        if opened:
            self._status("Opened in your browser. Press Enter when you are done.")
        else:
            self.app.copy_to_clipboard(self.url)
            self._status("No browser could be started: the URL is copied to the clipboard instead.")

    @on(Button.Pressed, "#url-copy-button")
    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.url)
        self._status("Copied the URL to the clipboard.")

    @on(Button.Pressed, "#url-done-button")
    def action_done(self) -> None:
        self.answer({"action": "accept"})

    @on(Button.Pressed, "#url-decline-button")
    def action_decline(self) -> None:
        self.answer({"action": "decline"})

    @on(Button.Pressed, "#url-cancel-button")
    def action_cancel(self) -> None:
        self.answer({"action": "cancel"})
