"""`mcpx auth login|status|logout|token URL`: the sign-ins mcpx keeps for remote servers.

`status` never prints a token; `token` prints only the access token (fresh: refreshed or signed in again
when needed), for `curl -H "Authorization: Bearer $(mcpx auth token URL)"`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Coroutine
from typing import Annotated, Any

import typer

from mcpx.cli import options as o
from mcpx.errors import AuthRequiredError, UsageError
from mcpx.wire.controls import escape_controls

app = typer.Typer(
    help="Sign in to remote servers (OAuth): login, status, logout, token.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
Url = Annotated[str, typer.Argument(help="The server's URL.", show_default=False)]
Fmt = Annotated[str, typer.Option("--format", help="text or json.")]
Traffic = Annotated[bool, typer.Option("--traffic", help="Write every HTTP exchange to stderr.")]


def _flags(
    client_id: str | None, secret: str | None, metadata_url: str | None, scope: str | None,
    port: int | None, no_browser: bool, non_interactive: bool,
) -> o.OAuthFlags:  # fmt: skip
    return o.OAuthFlags(client_id, secret, metadata_url, scope, port, no_browser, non_interactive)


def _provider(url: str, flags: o.OAuthFlags, traffic: bool) -> Any:
    from mcpx.auth.provider import McpOAuth
    from mcpx.cli.output import TrafficPrinter
    from mcpx.transports.http_common import check_url
    from mcpx.wire import TrafficLog

    check_url(url)
    log = TrafficLog()
    if traffic:
        TrafficPrinter(log).attach()
    from mcpx.cli.output import show_sign_in

    return McpOAuth(url, log, flags.settings(), show=show_sign_in)


async def _connect(provider: Any, timeout: float = 600.0) -> None:
    """Open a connection to the server through `provider` (a 401 on the way signs in), then close."""
    from mcpx.protocol.options import SessionOptions
    from mcpx.protocol.session import open_session
    from mcpx.target import resolve_target

    spec = resolve_target(provider.server_url, transport="auto")
    options = SessionOptions(timeout=timeout, auth=lambda _traffic: provider)
    async with open_session(spec, options, traffic=provider.traffic):
        pass


def _describe(resource: str, record: dict[str, Any]) -> dict[str, Any]:
    expires_at = record.get("expires_at")
    return {
        "server": record.get("server_url") or resource,
        "resource": record.get("resource") or resource,
        "issuer": record.get("issuer"),
        "client_id": record.get("client_id"),
        "client": record.get("client_kind"),
        "scopes": (record.get("scope") or "").split(),
        "expires_at": expires_at,
        "expires_in": round(expires_at - time.time()) if isinstance(expires_at, (int, float)) else None,
        "refresh_token": bool(record.get("refresh_token")),
    }


def _text(info: dict[str, Any]) -> str:
    expires = info["expires_in"]
    if expires is None:
        when = "no expiry given"
    elif expires <= 0:
        when = "expired" + (" (a refresh token is kept)" if info["refresh_token"] else "")
    else:
        when = f"expires in {expires} s"
    scopes = " ".join(info["scopes"]) or "(none)"
    # issuer, client and scopes come from the authorization server: escaped like all server text
    return escape_controls(
        f"{info['server']}\n  issuer   {info['issuer']}\n  client   {info['client_id']} ({info['client']})\n"
        f"  scopes   {scopes}\n  token    {when}; refresh token: {'yes' if info['refresh_token'] else 'no'}"
    )


def _run(fmt: str, make: Any) -> None:
    from mcpx.cli.main import execute

    def prepare() -> Coroutine[Any, Any, int]:
        o.check_format(fmt)
        return make()  # type: ignore[no-any-return]

    execute(fmt, prepare)


@app.command("login")
def login(
    url: Url,
    oauth_client_id: o.OAuthClientId = None,
    oauth_client_secret: o.OAuthClientSecret = None,
    oauth_client_metadata_url: o.OAuthMetadataUrl = None,
    oauth_scope: o.OAuthScope = None,
    oauth_callback_port: o.OAuthCallbackPort = None,
    oauth_no_browser: o.OAuthNoBrowser = False,
    oauth_non_interactive: o.OAuthNonInteractive = False,
    fmt: Fmt = "text",
    traffic: Traffic = False,
) -> None:
    """Sign in to a server now (a new sign-in, even when a token is stored)."""
    flags = _flags(
        oauth_client_id, oauth_client_secret, oauth_client_metadata_url, oauth_scope,
        oauth_callback_port, oauth_no_browser, oauth_non_interactive,
    )  # fmt: skip

    async def run() -> int:
        provider = _provider(url, flags, traffic)
        await provider.forget()
        await _connect(provider)
        if provider.sign_ins == 0:
            await provider.sign_in(None)  # the server let us in without asking: sign in all the same
        record = provider.store.token(provider.key) or {}
        info = _describe(provider.key, record)
        print(json.dumps(info) if fmt == "json" else "signed in\n" + _text(info))
        return 0

    _run(fmt, run)


@app.command("status")
def status(
    url: Annotated[str | None, typer.Argument(help="One server's URL (default: all).")] = None,
    fmt: Fmt = "text",
) -> None:
    """Who mcpx is signed in as, per server: issuer, client, scopes, expiry — never a token."""

    async def run() -> int:
        from mcpx.auth.discovery import canonical_uri
        from mcpx.auth.store import TokenStore

        store = TokenStore()
        keys = [canonical_uri(url)] if url else store.resources()
        infos = [_describe(key, record) for key in keys if (record := store.token(key)) is not None]
        if fmt == "json":
            print(json.dumps({"store": store.backend, "servers": infos}))
        elif not infos:
            print(f"not signed in to {url}" if url else "not signed in to any server")
        else:
            print("\n".join(_text(info) for info in infos))
        if url and not infos:
            return 3
        return 0

    _run(fmt, run)


@app.command("logout")
def logout(
    url: Url,
    forget_client: Annotated[
        bool, typer.Option("--forget-client", help="Also forget the client registered with the server's AS.")
    ] = False,
    fmt: Fmt = "text",
    traffic: Traffic = False,
) -> None:
    """Revoke (where the authorization server offers it) and forget the tokens for a server."""

    async def run() -> int:
        provider = _provider(url, o.OAuthFlags(), traffic)
        if provider.store.token(provider.key) is None:
            raise UsageError(f"not signed in to {url}")
        said = await provider.revoke()
        await provider.forget(client=forget_client)
        client_note = "; the registered client was forgotten too" if forget_client else ""
        print(
            json.dumps({"logged_out": url, "revocation": said})
            if fmt == "json"
            else escape_controls(f"{said}{client_note}")
        )
        return 0

    _run(fmt, run)


@app.command("token")
def token(
    url: Url,
    oauth_client_id: o.OAuthClientId = None,
    oauth_client_secret: o.OAuthClientSecret = None,
    oauth_client_metadata_url: o.OAuthMetadataUrl = None,
    oauth_scope: o.OAuthScope = None,
    oauth_callback_port: o.OAuthCallbackPort = None,
    oauth_no_browser: o.OAuthNoBrowser = False,
    oauth_non_interactive: o.OAuthNonInteractive = False,
    traffic: Traffic = False,
) -> None:
    """Print a fresh access token for a server (refreshed, or signed in again, when needed)."""
    flags = _flags(
        oauth_client_id, oauth_client_secret, oauth_client_metadata_url, oauth_scope,
        oauth_callback_port, oauth_no_browser, oauth_non_interactive,
    )  # fmt: skip

    async def run() -> int:
        provider = _provider(url, flags, traffic)
        value = await provider.access_token()
        if value is None:
            await _connect(provider)
            value = await provider.access_token()
        if value is None:
            raise AuthRequiredError(f"{url} did not ask for a sign-in, so mcpx has no token for it")
        print(value)
        return 0

    _run("text", run)
