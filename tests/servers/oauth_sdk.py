"""A protected MCP server on the official Python SDK: resource server and authorization server in one
(`MCPServer(auth_server_provider=…)`), for the sign-in tests.

    python oauth_sdk.py --port N [--token-lifetime S] [--wrong-state] [--no-registration REDIRECT_URI]

The authorization server approves at once (its /authorize redirects straight back with a code, as the
conformance suite's do), so `mcpx --oauth-non-interactive` can sign in. Access tokens live
`--token-lifetime` seconds (refresh tokens rotate on each use); `--wrong-state` sends back another state.
Scopes: `read` (required for everything), `admin` (the `admin_action` tool answers 403
insufficient_scope without it: step-up). The `stats` tool counts authorizations, code exchanges,
refreshes, registrations and revocations, so tests can tell a reused token from a new sign-in.
`--no-registration REDIRECT_URI`: no dynamic registration; one public client, `typed-client`, is known,
registered with that redirect URI (a person would type its id in).
"""

from __future__ import annotations

import sdk_zygote

sdk_zygote.hand_off()  # the SDK is imported once, by the suite's zygote (sdk_zygote.py)

import argparse
import json
import secrets
import time
import warnings
from typing import Any

from mcp.server import MCPServer
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

warnings.filterwarnings("ignore")

STATS = {"authorizations": 0, "code_exchanges": 0, "refreshes": 0, "registrations": 0, "revocations": 0}


class Provider:
    """An in-memory authorization server that approves every request at once."""

    def __init__(self, lifetime: float, wrong_state: bool) -> None:
        self.lifetime = lifetime
        self.wrong_state = wrong_state
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        STATS["registrations"] += 1
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        STATS["authorizations"] += 1
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["read"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        state = "not-the-state-you-sent" if self.wrong_state else params.state
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(24)}", f"rt-{secrets.token_urlsafe(24)}"
        expires = int(time.time() + self.lifetime)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=max(1, int(self.lifetime)),
            refresh_token=refresh,
            scope=" ".join(scopes),
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        STATS["code_exchanges"] += 1
        self.codes.pop(authorization_code.code, None)
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        STATS["refreshes"] += 1
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError("invalid_grant", "refresh token already used")
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        STATS["revocations"] += 1
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


def build(port: int, lifetime: float, wrong_state: bool, known_redirect: str | None = None) -> Any:
    base = f"http://127.0.0.1:{port}"
    provider = Provider(lifetime, wrong_state)
    if known_redirect is not None:
        provider.clients["typed-client"] = OAuthClientInformationFull(
            client_id="typed-client",
            redirect_uris=[known_redirect],
            token_endpoint_auth_method="none",
            grant_types=["authorization_code", "refresh_token"],
            scope="read admin",
        )
    mcp = MCPServer(
        "oauth-sdk",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            validate_token_resource=True,
            required_scopes=["read"],
            client_registration_options=ClientRegistrationOptions(
                enabled=known_redirect is None, valid_scopes=["read", "admin"], default_scopes=["read"]
            ),
            revocation_options=RevocationOptions(enabled=True),
        ),
    )

    @mcp.tool()
    def whoami() -> str:
        """Answers when the caller is signed in."""
        return "signed in"

    @mcp.tool()
    def admin_action() -> str:
        """Needs the admin scope (403 insufficient_scope without it)."""
        return "admin done"

    @mcp.tool()
    def stats() -> dict[str, int]:
        """How many authorizations, exchanges, refreshes, registrations and revocations happened."""
        return dict(STATS)

    app = mcp.streamable_http_app(host="127.0.0.1")
    return StepUp(app, provider, f"{base}/.well-known/oauth-protected-resource/mcp")


class StepUp:
    """ASGI wrapper: a call of `admin_action` with a token lacking `admin` gets 403 insufficient_scope."""

    def __init__(self, app: Any, provider: Provider, metadata_url: str) -> None:
        self.app, self.provider, self.metadata_url = app, provider, metadata_url

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != "/mcp":
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        try:
            frame = json.loads(body)
        except ValueError:
            frame = None
        wants_admin = (
            isinstance(frame, dict)
            and frame.get("method") == "tools/call"
            and (frame.get("params") or {}).get("name") == "admin_action"
        )
        if wants_admin:
            headers = dict(scope["headers"])
            token = headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
            access = await self.provider.load_access_token(token)
            if access is not None and "admin" not in access.scopes:
                challenge = (
                    f'Bearer error="insufficient_scope", scope="read admin", '
                    f'resource_metadata="{self.metadata_url}"'
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"www-authenticate", challenge.encode()),
                            (b"content-type", b"application/json"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b'{"error":"insufficient_scope"}'})
                return None
        return await self.app(scope, replay, send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token-lifetime", type=float, default=3600)
    parser.add_argument("--wrong-state", action="store_true")
    parser.add_argument("--no-registration", metavar="REDIRECT_URI")
    args = parser.parse_args()
    import uvicorn

    uvicorn.run(
        build(args.port, args.token_lifetime, args.wrong_state, args.no_registration),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
