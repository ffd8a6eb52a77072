"""The OAuth 2.1 authorization-code flow as MCP asks for it, step by step.

What MCP adds to plain OAuth is here; the generic parts (PKCE S256, the client authentication methods,
the token and refresh requests) are Authlib's httpx client:

* client registration in the spec's priority: pre-registered (`--oauth-client-id`), a Client ID Metadata
  Document when the AS supports one (`--oauth-client-metadata-url`), a registration made earlier with this
  issuer, Dynamic Client Registration (`application_type: native`), else a sentence asking for a client id.
  Registrations are kept per issuer and never shown to another authorization server (SEP-2352);
* the token-endpoint authentication method the AS advertises (`client_secret_basic`, `_post`, `none`);
* `resource` (RFC 8707) on the authorization and the token request, exactly as the PRM publishes it;
* `state` checked, and RFC 9207 `iss` compared character for character with the recorded issuer.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from mcpx.auth.discovery import Discovery
from mcpx.auth.grants import DpopKey
from mcpx.errors import AuthFailedError

Mode = Literal["browser", "no-browser", "non-interactive"]
Note = Callable[..., None]
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none", "private_key_jwt")


@dataclass(slots=True)
class OAuthSettings:
    """What the user told mcpx about signing in (flags, env, config-file entry)."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scope: str | None = None
    callback_port: int | None = None
    mode: Mode = "browser"
    client_name: str = "mcpx"
    #: seconds to wait for the user to finish in the browser
    wait: float = 300.0
    #: a PEM private key: `private_key_jwt` client authentication where the AS offers it (RFC 7523)
    private_key: str | None = None
    signing_algorithm: str = "ES256"
    #: a workload's JWT (workload identity federation): traded with the jwt-bearer grant, no person
    assertion: str | None = None
    #: enterprise-managed authorization (SEP-990): the user's ID token from the enterprise IdP, traded
    #: there for an ID-JAG (token exchange) that the MCP server's AS takes with the jwt-bearer grant
    idp_id_token: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    #: DPoP-bound tokens (RFC 9449): None = when the AS advertises ES256 for DPoP
    dpop: bool | None = None


@dataclass(slots=True)
class ClientInfo:
    client_id: str
    client_secret: str | None
    auth_method: str
    #: pre-registered | metadata-document | dynamic
    kind: str
    redirect_uri: str | None = None
    #: for private_key_jwt: the PEM key and the algorithm to sign the client assertion with
    private_key: str | None = None
    signing_algorithm: str = "ES256"

    def record(self) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "auth_method": self.auth_method,
            "kind": self.kind,
            "redirect_uri": self.redirect_uri,
            "saved_at": int(time.time()),
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> ClientInfo | None:
        client_id = record.get("client_id")
        if not isinstance(client_id, str) or not client_id:
            return None
        method = record.get("auth_method")
        return cls(
            client_id,
            record.get("client_secret") or None,
            method if method in AUTH_METHODS else "client_secret_basic",
            str(record.get("kind") or "dynamic"),
            record.get("redirect_uri") or None,
        )


def auth_method_for(
    meta: dict[str, Any], has_secret: bool, asked: str | None = None, has_key: bool = False
) -> str:
    """The token-endpoint authentication the AS asks for (RFC 8414's default is client_secret_basic)."""
    supported = meta.get("token_endpoint_auth_methods_supported")
    methods = [m for m in supported if isinstance(m, str)] if isinstance(supported, list) else []
    if asked in AUTH_METHODS and (asked in methods or not methods):
        return asked
    if has_key and "private_key_jwt" in methods:
        return "private_key_jwt"
    if not has_secret:
        return "none"
    for method in ("client_secret_basic", "client_secret_post"):
        if method in methods:
            return method
    return "client_secret_basic" if not methods or "none" not in methods else "none"


def scopes_for(found: Discovery, challenged: list[str], settings: OAuthSettings) -> list[str]:
    """The challenge's scopes, else the PRM's scopes_supported, else none; offline_access when the AS
    lists it (for a refresh token). `--oauth-scope` replaces the choice."""
    if settings.scope is not None:
        return settings.scope.split()
    scopes = list(challenged) or found.scopes_supported
    advertised = (found.as_metadata or {}).get("scopes_supported")
    if scopes and isinstance(advertised, list) and "offline_access" in advertised:
        scopes = [*scopes, "offline_access"] if "offline_access" not in scopes else scopes
    return scopes


async def register(
    http: httpx.AsyncClient,
    found: Discovery,
    settings: OAuthSettings,
    redirect_uri: str,
    note: Note,
    scopes: list[str] = (),  # type: ignore[assignment]
) -> ClientInfo:
    """Dynamic Client Registration (RFC 7591) as a native app with a loopback redirect.

    The registration asks for every scope the server and its AS advertise (and those wanted now): some
    authorization servers refuse later requests, a step-up among them, for scopes not registered."""
    meta = found.as_metadata or {}
    endpoint = meta.get("registration_endpoint")
    if not isinstance(endpoint, str):
        raise AuthFailedError(
            "client registration",
            f"{found.issuer} offers no Client ID Metadata Document support and no registration endpoint; "
            "give a client registered there with --oauth-client-id (and --oauth-client-secret)",
        )
    methods = _methods(meta)
    # a native app is a public client: none where the AS allows it; else client_secret_post where it is
    # offered (a server may hold a client to its method at revocation too, and the SDK's revocation
    # endpoint reads the secret from the form only), else what the AS asks for
    if "none" in methods:
        asked = "none"
    elif "client_secret_post" in methods:
        asked = "client_secret_post"
    else:
        asked = auth_method_for(meta, has_secret=True)
    body = {
        "client_name": settings.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": asked,
        "application_type": "native",
    }
    advertised = meta.get("scopes_supported")
    wanted = [*scopes, *found.scopes_supported, *(advertised if isinstance(advertised, list) else [])]
    if wanted:
        body["scope"] = " ".join(dict.fromkeys(s for s in wanted if isinstance(s, str)))
    try:
        response = await http.post(endpoint, json=body)
    except httpx.HTTPError as exc:
        raise AuthFailedError("client registration", f"{endpoint} could not be reached ({exc})") from None
    data = _json(response)
    if response.status_code not in (200, 201) or not isinstance(data.get("client_id"), str):
        raise AuthFailedError(
            "client registration",
            f"expected 201 with a client_id from {endpoint}; got HTTP {response.status_code}"
            + _oauth_error(data),
        )
    secret = data.get("client_secret") if isinstance(data.get("client_secret"), str) else None
    method = data.get("token_endpoint_auth_method")
    method = method if method in AUTH_METHODS else asked
    if method != "none" and secret is None:
        method = "none"
    note("registered", f"registered client {data['client_id']} with {found.issuer} (dynamic registration)")
    return ClientInfo(data["client_id"], secret, method, "dynamic", redirect_uri)


def _methods(meta: dict[str, Any]) -> list[str]:
    supported = meta.get("token_endpoint_auth_methods_supported")
    return [m for m in supported if isinstance(m, str)] if isinstance(supported, list) else []


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _oauth_error(data: dict[str, Any]) -> str:
    error = data.get("error")
    if not isinstance(error, str):
        return ""
    description = data.get("error_description")
    return f" ({error}: {description})" if isinstance(description, str) else f" ({error})"


def new_state() -> str:
    return secrets.token_urlsafe(24)


def check_redirect(params: dict[str, str], state: str, found: Discovery) -> str:
    """Validate the authorization response: `iss` first (RFC 9207), then `state`, then the code."""
    meta = found.as_metadata or {}
    issuer = meta.get("issuer") if isinstance(meta.get("issuer"), str) else found.issuer
    iss = params.get("iss")
    if iss is not None and iss != issuer:
        # on a mismatch the response is not from our AS: its error fields are not shown either
        raise AuthFailedError(
            "authorization response", f"iss {iss} does not match the authorization server {issuer}"
        )
    if iss is None and meta.get("authorization_response_iss_parameter_supported") is True:
        raise AuthFailedError(
            "authorization response",
            f"expected iss {issuer} (the server advertises authorization_response_iss_parameter_supported); "
            "the redirect had none",
        )
    if params.get("state") != state:
        raise AuthFailedError(
            "authorization response",
            "the redirect's state does not match the one mcpx sent (a stale or forged redirect)",
        )
    if "error" in params:
        desc = params.get("error_description")
        raise AuthFailedError(
            "authorization",
            f"the authorization server refused: {params['error']}" + (f" ({desc})" if desc else ""),
        )
    code = params.get("code")
    if not code:
        raise AuthFailedError("authorization response", "expected a code in the redirect; got none")
    return code


def authorization_url(
    client: ClientInfo, found: Discovery, redirect_uri: str, scopes: list[str], state: str, verifier: str
) -> str:
    """The authorization request (Authlib builds it): PKCE S256, state, scope, and `resource`."""
    from authlib.oauth2.rfc6749.parameters import prepare_grant_uri
    from authlib.oauth2.rfc7636 import create_s256_code_challenge

    endpoint = (found.as_metadata or {}).get("authorization_endpoint")
    if not isinstance(endpoint, str):
        raise AuthFailedError("authorization", f"{found.issuer}'s metadata has no authorization_endpoint")
    return str(
        prepare_grant_uri(
            endpoint,
            client.client_id,
            "code",
            redirect_uri=redirect_uri,
            scope=" ".join(scopes) or None,
            state=state,
            code_challenge=create_s256_code_challenge(verifier),
            code_challenge_method="S256",
            resource=found.resource,
        )
    )


async def token_request(
    http: httpx.AsyncClient,
    client: ClientInfo,
    endpoint: str,
    resource: str | None,
    grant_type: str,
    *,
    dpop: DpopKey | None = None,
    issuer: str | None = None,
    **grant: Any,
) -> dict[str, Any]:
    """A token request of any grant: the body and the client authentication (client_secret_basic,
    client_secret_post, none from Authlib; private_key_jwt signed here for `issuer`), sent through
    `http` (the tap). With `dpop` each attempt carries a fresh proof, and one `use_dpop_nonce` answer
    is retried with the nonce the AS gave (RFC 9449 §8)."""
    from authlib.oauth2.auth import ClientAuth
    from authlib.oauth2.rfc6749.parameters import prepare_token_request

    what = "refresh" if grant_type == "refresh_token" else "token request"
    redirect_uri = grant.pop("redirect_uri", None)
    extra = {k: v for k, v in grant.items() if v is not None}
    # client_id in the body whatever the authentication method: some servers (the SDK's) look for it there
    body = prepare_token_request(
        grant_type, redirect_uri=redirect_uri, resource=resource, client_id=client.client_id, **extra
    )
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    if client.auth_method == "private_key_jwt":
        from mcpx.auth.grants import CLIENT_ASSERTION_TYPE, client_assertion

        if not client.private_key:
            raise AuthFailedError(what, "private_key_jwt needs a private key (--oauth-private-key)")
        assertion = client_assertion(
            client.client_id, client.private_key, client.signing_algorithm, issuer or endpoint
        )
        body = prepare_token_request(
            grant_type, redirect_uri=redirect_uri, resource=resource, client_id=client.client_id,
            client_assertion_type=CLIENT_ASSERTION_TYPE, client_assertion=assertion, **extra,
        )  # fmt: skip
        url = endpoint
    else:
        auth = ClientAuth(client.client_id, client.client_secret, client.auth_method)
        if client.auth_method in ("none", "client_secret_post"):
            body = prepare_token_request(grant_type, redirect_uri=redirect_uri, resource=resource, **extra)
        url, headers, body = auth.prepare("POST", endpoint, headers, body)
    origin = str(httpx.URL(endpoint).copy_with(path="/", query=None, fragment=None))
    for attempt in range(2):
        if dpop is not None:
            headers = {**headers, "DPoP": dpop.proof("POST", endpoint, origin=origin)}
        try:
            response = await http.post(url, content=body.encode("utf-8"), headers=headers)
        except httpx.HTTPError as exc:
            raise AuthFailedError(
                what, f"{endpoint} could not be reached ({exc or type(exc).__name__})"
            ) from None
        data = _json(response)
        fresh = dpop is not None and dpop.learn_nonce(origin, response.headers)
        if attempt == 0 and fresh and data.get("error") == "use_dpop_nonce":
            continue  # the AS wants its nonce in the proof: once more with it
        break
    if response.status_code != 200 or "error" in data:
        raise AuthFailedError(
            what,
            f"expected 200 with an access_token from {endpoint}; got HTTP {response.status_code}"
            + _oauth_error(data),
            oauth_error=data.get("error") if isinstance(data.get("error"), str) else None,
        )
    if not isinstance(data.get("access_token"), str):
        raise AuthFailedError(what, f"expected an access_token from {endpoint}; got none")
    return data
