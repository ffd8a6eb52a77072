"""`SignInScreen`: where to sign in to a server that asked for OAuth, while mcpx waits for the redirect.

The OAuth flow (`mcpx.auth.provider.McpOAuth`) runs inside the connection worker. `TuiSignIn` is the
pair of callbacks it is given under the TUI: `show` collects what it tells the user (the address to
open), `paste` opens this screen and waits for an address typed or pasted into it — the way in when the
browser cannot reach mcpx's loopback port (SSH). When the loopback redirect arrives first, the flow
cancels `paste` and the screen closes by itself. Every step also shows in the traffic log.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

_URL = re.compile(r"https?://\S+")


class SignInScreen(ModalScreen[str | None]):
    """The sign-in address, a copy button, and a field for the address the browser ended on."""

    HELP: ClassVar[str] = """\
## Signing in

The server asked for OAuth. Open the address in a browser and sign in; mcpx waits for the redirect on
a loopback port and continues by itself. If the browser runs on another machine (SSH) and cannot reach
that port, copy the address it ended on (it starts with `http://127.0.0.1`) and paste it here.
Every step of the sign-in is in the traffic log (`-dir:info` hides them).
"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="sign-in-cancel", tooltip="Stop waiting for the sign-in"),
        Binding("ctrl+y", "copy", "Copy address", id="sign-in-copy", tooltip="Copy the sign-in address"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        found = _URL.findall(text)
        self.address = next((url for url in found if "/callback" not in url), found[0] if found else "")

    def compose(self) -> ComposeResult:
        with Vertical(id="sign-in-dialog") as dialog:
            dialog.border_title = "Sign in"
            yield Static(self.text, id="sign-in-text", markup=False)
            yield Input(placeholder="paste the address your browser was sent to", id="sign-in-paste")
            with Horizontal(id="sign-in-buttons"):
                yield Button("Cancel", id="sign-in-cancel-button")
                yield Button("Copy address  ctrl+y", id="sign-in-copy-button", variant="primary")

    def action_copy(self) -> None:
        if self.address:
            self.app.copy_to_clipboard(self.address)
            self.notify("sign-in address copied (OSC 52: where the terminal allows it)")

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#sign-in-copy-button")
    def _copy_pressed(self) -> None:
        self.action_copy()

    @on(Button.Pressed, "#sign-in-cancel-button")
    def _cancel_pressed(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#sign-in-paste")
    def _pasted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())


class TuiSignIn:
    """The `show` and `paste` callbacks of the OAuth flow, shown on the running app's screen."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def show(self, text: str) -> None:
        self.lines.append(text)

    async def paste(self) -> Any:
        """Open the screen; the pasted address as the flow's `Redirect`, or None (cancelled)."""
        from textual._context import active_app  # the running app (the flow runs in its worker)

        from mcpx.auth.callback import redirect_from_url

        app = active_app.get()
        text, self.lines = "\n".join(self.lines), []
        done: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        screen = SignInScreen(text)

        def closed(value: str | None) -> None:
            if not done.done():
                done.set_result(value)

        app.push_screen(screen, closed)
        try:
            value = await done
        except asyncio.CancelledError:
            if screen.is_attached:
                screen.dismiss(None)  # the loopback redirect came first
            raise
        if value is None:
            from mcpx.errors import AuthFailedError

            raise AuthFailedError("authorization", "the sign-in was cancelled")
        return redirect_from_url(value, "pasted")
