"""Sign-ins with no person and no browser: the grants OAuth extensions for MCP define.

Chosen from what the user configured and what the authorization server offers
(`grant_types_supported`), in this order:

* **enterprise-managed authorization** (SEP-990): the user's ID token from the enterprise IdP is traded
  there for an ID-JAG (RFC 8693 token exchange, `audience` the AS, `resource` the MCP server), which the
  MCP server's AS takes with the jwt-bearer grant (RFC 7523) from the client authenticating as itself;
* **workload identity federation** (SEP-1933): the workload's own JWT goes to the AS as a jwt-bearer
  assertion. A refusal is final: no retry, no other grant (the assertion would not change);
* **client credentials** (SEP-1046): the AS grants only `client_credentials`, and the client has a
  secret or a private key (`private_key_jwt`, a signed client assertion).

Anything else is the authorization-code flow, in code_grant.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from mcpx.auth.discovery import Discovery
from mcpx.auth.flow import ClientInfo, OAuthSettings, auth_method_for, token_request
from mcpx.auth.grants import ID_JAG_TYPE, ID_TOKEN_TYPE, JWT_BEARER, TOKEN_EXCHANGE, DpopKey
from mcpx.errors import AuthFailedError

Note = Callable[..., None]


def _grants(found: Discovery) -> list[str]:
    grants = (found.as_metadata or {}).get("grant_types_supported")
    return [g for g in grants if isinstance(g, str)] if isinstance(grants, list) else []


def machine_grant_for(found: Discovery, settings: OAuthSettings) -> str | None:
    """Which no-person grant applies here, if any: "enterprise", "workload" or "client_credentials"."""
    grants = _grants(found)
    if settings.idp_id_token and settings.idp_token_endpoint and JWT_BEARER in grants:
        return "enterprise"
    if settings.assertion and JWT_BEARER in grants:
        return "workload"
    if (
        "client_credentials" in grants
        and "authorization_code" not in grants
        and settings.client_id
        and (settings.client_secret or settings.private_key)
    ):
        return "client_credentials"
    return None


def _client(found: Discovery, settings: OAuthSettings, kind: str) -> ClientInfo:
    meta = found.as_metadata or {}
    method = auth_method_for(meta, bool(settings.client_secret), has_key=bool(settings.private_key))
    return ClientInfo(
        settings.client_id or "",
        settings.client_secret,
        method,
        kind,
        private_key=settings.private_key,
        signing_algorithm=settings.signing_algorithm,
    )


async def machine_grant(
    http: httpx.AsyncClient,
    found: Discovery,
    settings: OAuthSettings,
    endpoint: str,
    scopes: list[str],
    dpop: DpopKey | None,
    note: Note,
) -> tuple[ClientInfo, dict[str, Any]] | None:
    """Sign in with the grant `machine_grant_for` chose; None when none applies."""
    which = machine_grant_for(found, settings)
    scope = " ".join(scopes) or None
    issuer = found.issuer
    if which == "client_credentials":
        client = _client(found, settings, "pre-registered")
        note("token", f"client credentials grant at {endpoint} as {client.client_id} ({client.auth_method})")
        data = await token_request(
            http,
            client,
            endpoint,
            found.resource,
            "client_credentials",
            dpop=dpop,
            issuer=issuer,
            scope=scope,
        )
        return client, data
    if which == "workload":
        client = _client(found, settings, "workload")
        note("token", f"jwt-bearer grant at {endpoint} with the workload's assertion (no retry on refusal)")
        data = await token_request(
            http, client, endpoint, found.resource, JWT_BEARER,
            dpop=dpop, issuer=issuer, assertion=settings.assertion, scope=scope,
        )  # fmt: skip
        return client, data
    if which == "enterprise":
        assert settings.idp_token_endpoint is not None
        idp = ClientInfo(settings.idp_client_id or settings.client_id or "", None, "none", "idp")
        note("token", f"token exchange at the IdP {settings.idp_token_endpoint}: ID token → ID-JAG")
        jag = await token_request(
            http, idp, settings.idp_token_endpoint, found.resource, TOKEN_EXCHANGE,
            subject_token=settings.idp_id_token, subject_token_type=ID_TOKEN_TYPE,
            requested_token_type=ID_JAG_TYPE, audience=issuer, scope=scope,
        )  # fmt: skip
        if jag.get("issued_token_type") not in (None, ID_JAG_TYPE):
            raise AuthFailedError(
                "token exchange", f"expected an ID-JAG from the IdP; got {jag.get('issued_token_type')}"
            )
        client = _client(found, settings, "pre-registered")
        note("token", f"jwt-bearer grant at {endpoint} with the ID-JAG as {client.client_id}")
        data = await token_request(
            http, client, endpoint, found.resource, JWT_BEARER,
            dpop=dpop, issuer=issuer, assertion=jag["access_token"], scope=scope,
        )  # fmt: skip
        return client, data
    return None
