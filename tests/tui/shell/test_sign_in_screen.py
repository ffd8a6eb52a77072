"""The TUI's sign-in screen as the OAuth flow uses it: `TuiSignIn.paste()` opens it from a worker, an
address pasted there becomes the flow's redirect, and a redirect that reaches the loopback port first
(the flow cancels `paste`) closes it by itself."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from mcpx.tui.shell.sign_in_screen import SignInScreen, TuiSignIn

ADDRESS = "http://127.0.0.1:9/authorize?client_id=x&state=s"


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("host")


async def _until(predicate: Any, pilot: Any) -> None:
    for _ in range(200):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("timed out")


async def test_a_pasted_address_becomes_the_redirect() -> None:
    app = Host()
    prompts = TuiSignIn()
    async with app.run_test() as pilot:
        prompts.show(f"To sign in, open this address in a browser:\n{ADDRESS}")
        worker = app.run_worker(prompts.paste(), exit_on_error=False)
        await _until(lambda: isinstance(app.screen, SignInScreen), pilot)
        screen = app.screen
        assert isinstance(screen, SignInScreen) and screen.address == ADDRESS
        screen.query_one(Input).value = "http://127.0.0.1:5/callback?code=abc&state=s&iss=https%3A%2F%2Fas"
        await pilot.press("enter")
        redirect = await worker.wait()
        assert redirect.params == {"code": "abc", "state": "s", "iss": "https://as"}
        assert not isinstance(app.screen, SignInScreen)


async def test_the_screen_closes_when_the_loopback_redirect_comes_first() -> None:
    app = Host()
    prompts = TuiSignIn()
    async with app.run_test() as pilot:
        prompts.show(ADDRESS)
        task = asyncio.ensure_future(_in_app_context(app, prompts))
        await _until(lambda: isinstance(app.screen, SignInScreen), pilot)
        task.cancel()
        await _until(lambda: not isinstance(app.screen, SignInScreen), pilot)


async def _in_app_context(app: App[None], prompts: TuiSignIn) -> Any:
    from textual._context import active_app

    active_app.set(app)
    return await prompts.paste()


async def test_the_header_says_who_is_signed_in() -> None:
    from mcpx.tui.session_state import SessionState
    from mcpx.tui.shell.header_bar import HeaderBar

    class WithHeader(App[None]):
        def compose(self) -> ComposeResult:
            yield HeaderBar()

    app = WithHeader()
    async with app.run_test() as pilot:
        header = app.query_one(HeaderBar)
        header.session = SessionState(
            "connected", target="https://h/mcp", server_name="s", transport="http",
            signed_in="signed in as client-1 · expires 10:42",
        )  # fmt: skip
        await pilot.pause()
        assert "signed in as client-1 · expires 10:42" in str(header.render())
