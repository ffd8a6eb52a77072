"""Signing in to remote MCP servers: OAuth 2.1 as the MCP authorization spec describes it.

    challenge.py   WWW-Authenticate parsing
    discovery.py   Protected Resource Metadata → authorization server metadata (or 2025-03-26 fallbacks)
    flow.py        registration, scopes, the authorization request and response, token requests (Authlib)
    callback.py    the loopback redirect, a pasted address, or a bare GET (--oauth-non-interactive)
    store.py       tokens per server and registrations per issuer (keyring or a 0600 file)
    provider.py    McpOAuth: the httpx.Auth every HTTP transport is given (when to sign in; the tokens)
    code_grant.py  one sign-in's interactive steps: the client (registered when needed), the loopback,
                   the authorization request, waiting for the browser or a pasted address

Nothing here imports a face; messages for the user go through a `show` callback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpx.auth.flow import OAuthSettings
    from mcpx.auth.provider import McpOAuth
    from mcpx.wire import TrafficLog


def oauth_for(
    server_url: str, settings: OAuthSettings | None = None, **options: Any
) -> Callable[[TrafficLog], McpOAuth]:
    """A factory for `ServerSpec.auth` / `mcpx.connect(auth=…)`: the OAuth flow for `server_url`."""

    def build(traffic: TrafficLog) -> McpOAuth:
        from mcpx.auth.provider import McpOAuth

        return McpOAuth(server_url, traffic, settings, **options)

    return build
