"""`CodeGrant`: the authorization-code half of an OAuth sign-in — which client to sign in as (registered
when needed), the loopback the redirect comes back to, the authorization request, and waiting for the
user's browser (or a pasted address, or a bare GET with --oauth-non-interactive).

`McpOAuth` (provider.py) decides when to sign in and keeps the tokens; this module only runs one sign-in's
interactive steps. It is given what it needs — the settings, the store, where to say things (`show`), how
to read a pasted address (`paste`) and where to note each step (`note`) — not the provider.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import sys
import time
from collections.abc import Awaitable, Callable

import httpx

from mcpx.auth.callback import Loopback, Redirect, follow_once, paste_from_terminal, read_terminal_line
from mcpx.auth.discovery import Discovery
from mcpx.auth.flow import (
    ClientInfo,
    OAuthSettings,
    auth_method_for,
    authorization_url,
    check_redirect,
    new_state,
    register,
)
from mcpx.auth.store import TokenStore
from mcpx.errors import AuthFailedError
from mcpx.protocol.peer import waiting_on_a_person
from mcpx.wire.waiting import within

#: notes one step of the flow into the traffic log: (step, sentence, verdict=…, facts…)
Note = Callable[..., None]


class CodeGrant:
    """One sign-in's interactive steps, for the server at `server_url`."""

    def __init__(
        self,
        server_url: str,
        settings: OAuthSettings,
        store: TokenStore,
        *,
        note: Note,
        show: Callable[[str], None],
        paste: Callable[[], Awaitable[Redirect | None]],
    ) -> None:
        self.server_url = server_url
        self.settings = settings
        self.store = store
        self.note = note
        self.show = show
        self.paste = paste

    async def listen(self, issuer: str) -> Loopback:
        """The loopback the redirect comes back to (a registered client keeps its port)."""
        port = self.settings.callback_port
        saved = ClientInfo.from_record(self.store.client(issuer) or {})
        if port is None and saved is not None and saved.kind != "metadata-document" and saved.redirect_uri:
            # a dynamically registered client keeps its port: its registered redirect stays valid
            with contextlib.suppress(ValueError):
                port = httpx.URL(saved.redirect_uri).port
        loopback = Loopback(port or 0)
        try:
            await loopback.start()
        except AuthFailedError:
            if self.settings.callback_port is not None:
                raise
            loopback = Loopback(0)
            await loopback.start()
        return loopback

    async def client(
        self, http: httpx.AsyncClient, found: Discovery, redirect_uri: str, scopes: list[str]
    ) -> ClientInfo:
        """The client to sign in as: pre-registered, a metadata document, one registered earlier, one the
        user types in, or a new registration (RFC 7591)."""
        settings, meta, issuer = self.settings, found.as_metadata or {}, found.issuer or ""
        if settings.client_id:
            method = auth_method_for(meta, bool(settings.client_secret))
            client = ClientInfo(
                settings.client_id, settings.client_secret, method, "pre-registered", redirect_uri
            )
            self.store.save_client(issuer, client.record())
            self.note("client", f"using the pre-registered client {client.client_id} ({method})")
            return client
        if settings.client_metadata_url and meta.get("client_id_metadata_document_supported") is True:
            client = ClientInfo(settings.client_metadata_url, None, "none", "metadata-document", redirect_uri)
            self.note("client", f"using the Client ID Metadata Document {client.client_id}")
            return client
        saved = ClientInfo.from_record(self.store.client(issuer) or {})
        if saved is not None and saved.kind != "metadata-document" and saved.redirect_uri == redirect_uri:
            self.note("client", f"using client {saved.client_id}, registered earlier with {issuer}")
            return saved
        if not isinstance(meta.get("registration_endpoint"), str):
            asked = await self._ask_for_client(found, redirect_uri)
            if asked is not None:
                return asked
        client = await register(http, found, settings, redirect_uri, self.note, scopes)
        self.store.save_client(issuer, client.record())
        return client

    async def _ask_for_client(self, found: Discovery, redirect_uri: str) -> ClientInfo | None:
        """The spec's last resort: the AS registers no clients by itself, so ask the person at the
        terminal for a client id registered there (its secret, if any, from $MCPX_OAUTH_CLIENT_SECRET)."""
        if self.paste is not paste_from_terminal or not sys.stdin.isatty():
            return None
        issuer = found.issuer or ""
        self.show(
            f"{issuer} does not register clients by itself. Register mcpx there with the redirect URI "
            f"{redirect_uri} (keep the port with --oauth-callback-port), then type its client id here "
            "(a client secret goes in $MCPX_OAUTH_CLIENT_SECRET, never on screen):"
        )
        line = await read_terminal_line()
        if not line:
            return None
        secret = self.settings.client_secret or os.environ.get("MCPX_OAUTH_CLIENT_SECRET") or None
        method = auth_method_for(found.as_metadata or {}, bool(secret))
        client = ClientInfo(line, secret, method, "pre-registered", redirect_uri)
        self.store.save_client(issuer, client.record())
        self.note("client", f"using client {line}, typed in by the user ({method})")
        return client

    async def authorize(
        self,
        http: httpx.AsyncClient,
        found: Discovery,
        client: ClientInfo,
        loopback: Loopback,
        scopes: list[str],
    ) -> tuple[str, str]:
        """The authorization request, and the code and PKCE verifier its redirect brings back."""
        from authlib.common.security import generate_token

        state, verifier = new_state(), generate_token(64)
        url = authorization_url(client, found, loopback.redirect_uri, scopes, state, verifier)
        scope_text = " ".join(scopes) or "no scope"
        self.note("authorization", f"authorization request to {found.issuer} ({scope_text})", url=url)
        mode = self.settings.mode
        if mode == "non-interactive":
            redirect = await follow_once(http, url)
        else:
            redirect = await self._wait_for_user(url, loopback, found.issuer or "")
        self.note("authorization", f"authorization response by {redirect.source}")
        return check_redirect(redirect.params, state, found), verifier

    async def _wait_for_user(self, url: str, loopback: Loopback, issuer: str) -> Redirect:
        opened = self.settings.mode == "browser" and await _open_browser(url)
        nobody = self.paste is paste_from_terminal and not (sys.stdin.isatty() or sys.stderr.isatty())
        if self.settings.mode == "browser" and not opened and nobody:
            # no browser, no terminal (CI, a pipe): nobody could sign in; say how instead of waiting
            raise AuthFailedError(
                "authorization",
                f"{issuer} wants a person to sign in, and there is no browser or terminal here; sign in "
                f"once with `{shlex.join(['mcpx', 'auth', 'login', self.server_url])}` (tokens are kept and "
                "refreshed), or use "
                "--oauth-non-interactive for a server that approves at once, or --oauth-no-browser to wait",
            )
        if opened:
            self.show(f"Signing in to {issuer} in your browser. If nothing opened, visit:\n{url}")
        else:
            self.show(f"To sign in to {issuer}, open this address in a browser:\n{url}")
        self.show(
            "Waiting for the redirect to "
            f"{loopback.redirect_uri} (if your browser cannot reach it, paste the address it shows here)."
        )
        waits: list[asyncio.Future[Redirect | None]] = [
            asyncio.ensure_future(loopback.wait()),
            asyncio.ensure_future(self.paste()),
        ]
        try:
            # a person is signing in: the request that met the 401 must not time out meanwhile
            with waiting_on_a_person():
                return await self._first_redirect(waits)
        finally:
            for task in waits:
                task.cancel()

    async def _first_redirect(self, waits: list[asyncio.Future[Redirect | None]]) -> Redirect:
        deadline = time.monotonic() + self.settings.wait
        while waits:
            done, _ = await asyncio.wait(
                waits, timeout=max(0.0, deadline - time.monotonic()), return_when=asyncio.FIRST_COMPLETED
            )
            if not done:
                raise AuthFailedError("authorization", f"no redirect within {self.settings.wait:g} s")
            for task in done:
                waits.remove(task)
                result = task.result()
                if result is not None:
                    return result
        raise AuthFailedError("authorization", "no redirect came back")


async def _open_browser(url: str) -> bool:
    """Open `url` in a graphical browser; False when there is none (no display, SSH)."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    import webbrowser

    try:
        browser = webbrowser.get()
        name = str(getattr(browser, "name", "") or getattr(browser, "basename", "")).lower()
        if any(console in name for console in _CONSOLE_BROWSERS):
            return False  # it would take over this terminal (under the TUI, too)
        return bool(await within(asyncio.to_thread(browser.open, url), 10))
    except (webbrowser.Error, asyncio.TimeoutError, OSError):
        return False


_CONSOLE_BROWSERS = ("lynx", "links", "elinks", "w3m", "www-browser", "browsh")
