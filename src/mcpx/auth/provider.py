"""`McpOAuth`: the `httpx.Auth` every HTTP transport is given for a server that may want OAuth.

Per request it adds the server's access token (refreshing it first when it has expired) — only when the
request goes to the server's own origin, so a token never reaches another host (httpx drops the header on
a redirect to another origin too). On `401` it refreshes or signs in again (discovery is re-run each time,
so a server that moved to another authorization server is followed); on `403 insufficient_scope` it signs
in again with the union of the scopes asked so far and the challenged ones. At most three sign-ins per
request: then the 401/403 goes back to the transport, which raises `AuthRequiredError` (exit 3).

Every step goes into the traffic log as an `oauth` event; the HTTP exchanges themselves pass the tap.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any
from urllib.parse import quote

import httpx

from mcpx.auth.callback import Redirect, paste_from_terminal
from mcpx.auth.challenge import Challenge, bearer_challenge
from mcpx.auth.code_grant import CodeGrant
from mcpx.auth.discovery import Discovery, Step, canonical_uri, discover, origin_of
from mcpx.auth.flow import (
    ClientInfo,
    OAuthSettings,
    scopes_for,
    token_request,
)
from mcpx.auth.grants import DpopKey
from mcpx.auth.machine import machine_grant
from mcpx.auth.store import SECRET_FIELDS, TokenStore
from mcpx.errors import AuthFailedError
from mcpx.transports.http_common import tapped_transport
from mcpx.wire import TrafficLog, escape_controls

MAX_SIGN_INS = 3
EXPIRY_LEEWAY = 30.0


def _stderr(text: str) -> None:
    print(escape_controls(text), file=sys.stderr, flush=True)  # addresses come from server metadata


def expired(record: dict[str, Any], now: float | None = None) -> bool:
    """Expired, or about to: within 30 s of its end (a quarter of its life for short-lived tokens)."""
    expires_at = record.get("expires_at")
    if not isinstance(expires_at, (int, float)):
        return False
    obtained = record.get("obtained_at")
    life = expires_at - obtained if isinstance(obtained, (int, float)) else EXPIRY_LEEWAY * 4
    return (now or time.time()) >= expires_at - min(EXPIRY_LEEWAY, max(0.0, life / 4))


class McpOAuth(httpx.Auth):
    requires_request_body = True

    def __init__(
        self,
        server_url: str,
        traffic: TrafficLog,
        settings: OAuthSettings | None = None,
        *,
        store: TokenStore | None = None,
        show: Callable[[str], None] | None = None,
        paste: Callable[[], Awaitable[Redirect | None]] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.server_url = server_url
        self.key = canonical_uri(server_url)
        self.origin = origin_of(server_url)
        self.traffic = traffic
        self.settings = settings or OAuthSettings()
        self.store = store or TokenStore()
        #: tells the user where to sign in (the CLI: stderr; the TUI: its sign-in screen)
        self.show = show or _stderr
        #: the address the user's browser was sent to, when it cannot reach the loopback port
        self.paste = paste or paste_from_terminal
        self._inner = transport
        self._token_record: dict[str, Any] | None = None
        # the client secret may come back in a server's text: every view masks it from now on
        traffic.secrets.add(
            *(v for v in (self.settings.client_secret, os.environ.get("MCPX_OAUTH_CLIENT_SECRET")) if v)
        )
        self._loaded = False
        self._scopes: list[str] = []
        self._lock = asyncio.Lock()
        self.discovery: Discovery | None = None
        self.sign_ins = 0
        #: the key DPoP-bound tokens are bound to (RFC 9449), when the AS issues them
        self._dpop: DpopKey | None = None

    @property
    def _token(self) -> dict[str, Any] | None:
        return self._token_record

    @_token.setter
    def _token(self, record: dict[str, Any] | None) -> None:
        """Every token held (loaded, obtained, refreshed) is a secret the session's views mask."""
        self._token_record = record
        key = (record or {}).get("dpop_key")
        if isinstance(key, dict) and (self._dpop is None or self._dpop.record() != key):
            self._dpop = DpopKey(key)  # a stored DPoP-bound token comes with its key
        if record:
            self.traffic.secrets.add(
                *(v for k, v in record.items() if k in SECRET_FIELDS and isinstance(v, str))
            )

    # -- the httpx.Auth flow ---------------------------------------------------------------------------

    def sync_auth_flow(self, request: httpx.Request) -> Any:  # pragma: no cover - mcpx is async
        raise RuntimeError("McpOAuth works with httpx.AsyncClient only")

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        if origin_of(str(request.url)) != self.origin:
            yield request  # never a token for another origin
            return
        self._apply(request, await self.access_token())
        response = yield request
        sign_ins = 0
        refreshed = False
        nonce_retried = False
        while response.status_code in (401, 403) and sign_ins < MAX_SIGN_INS:
            challenge = bearer_challenge(response.headers.get("www-authenticate"))
            fresh = self._dpop is not None and self._dpop.learn_nonce(self.origin, response.headers)
            if fresh and challenge is not None and challenge.error == "use_dpop_nonce" and not nonce_retried:
                nonce_retried = True  # RFC 9449 §9: the same request again, its proof with the nonce
                self._apply(request, self._bearer_token())
                response = yield request
                continue
            step_up = response.status_code == 403
            if step_up and (challenge is None or challenge.error != "insufficient_scope"):
                break  # a plain 403 is a refusal, not a question of scopes
            sent = request.headers.get("authorization")
            try:
                refreshed, signed = await self._answer(challenge, sent, step_up, refreshed)
            except AuthFailedError as exc:
                raise self._explained(exc, response) from None
            sign_ins += signed
            self._apply(request, self._bearer_token())
            response = yield request

    async def _answer(
        self, challenge: Challenge | None, sent: str | None, step_up: bool, refreshed: bool
    ) -> tuple[bool, int]:
        """Refresh or sign in for a 401/403 (once per request for each); (refreshed, sign-ins made)."""
        sign_ins = 0
        async with self._lock:
            current = self._bearer()
            if current is not None and current != sent and not step_up:
                pass  # another request signed in meanwhile
            elif await self._newer_in_store(sent) and not step_up:
                pass  # another process did
            elif not step_up and not refreshed and self._refresh_token():
                refreshed = True
                if not await self._refresh_quietly():
                    await self.sign_in(challenge)
                    sign_ins += 1
            else:
                await self.sign_in(challenge, step_up=step_up)
                sign_ins += 1
        return refreshed, sign_ins

    def _explained(self, exc: AuthFailedError, response: httpx.Response) -> AuthFailedError:
        """The failure with what the server asked for; a guess at 2025-03-26 endpoints says it was one."""
        header = response.headers.get("www-authenticate")
        found = self.discovery
        if found is not None and found.legacy and found.as_metadata_url is None:
            exc.message += (
                f" ({self.server_url} publishes no OAuth metadata, so mcpx tried the 2025-03-26 default "
                "endpoints; if it takes a static token, use --bearer or --header)"
            )
        if header:
            exc.message += f"; the server asked: WWW-Authenticate: {header}"
        exc.args = (exc.message,)
        exc.details.setdefault("www_authenticate", header)
        exc.details.setdefault("status", response.status_code)
        return exc

    def _apply(self, request: httpx.Request, token: str | None) -> None:
        request.headers.pop("DPoP", None)
        if not token:
            request.headers.pop("Authorization", None)
        elif self._bound():
            assert self._dpop is not None
            # a DPoP-bound token: its scheme, and a fresh proof of the key for this very request
            request.headers["Authorization"] = f"DPoP {token}"
            request.headers["DPoP"] = self._dpop.proof(
                request.method, str(request.url), origin=self.origin, access_token=token
            )
        else:
            request.headers["Authorization"] = f"Bearer {token}"

    def _bound(self) -> bool:
        return self._dpop is not None and str((self._token or {}).get("token_type", "")).lower() == "dpop"

    def _dpop_for(self, found: Discovery) -> DpopKey | None:
        """A new DPoP key when the AS signs DPoP-bound tokens with ES256 (unless the user said no)."""
        algorithms = (found.as_metadata or {}).get("dpop_signing_alg_values_supported")
        offered = isinstance(algorithms, list) and DpopKey.algorithm in algorithms
        wanted = self.settings.dpop if self.settings.dpop is not None else offered
        return DpopKey() if wanted else None

    def _bearer_token(self) -> str | None:
        token = (self._token or {}).get("access_token")
        return token if isinstance(token, str) else None

    def _bearer(self) -> str | None:
        token = self._bearer_token()
        return f"{'DPoP' if self._bound() else 'Bearer'} {token}" if token else None

    def _refresh_token(self) -> str | None:
        token = (self._token or {}).get("refresh_token")
        return token if isinstance(token, str) and token else None

    # -- tokens ----------------------------------------------------------------------------------------

    async def access_token(self) -> str | None:
        """The token to send now: the stored one, refreshed when it has expired; None before sign-in."""
        if not self._loaded:
            self._loaded = True
            self._token = self.store.token(self.key)
        if (
            self._token is not None
            and expired(self._token)
            and not (self._refresh_token() and await self._refresh_quietly())
        ):
            self._token = None
        return self._bearer_token()

    async def _newer_in_store(self, sent: str | None) -> bool:
        stored = self.store.token(self.key)
        if stored is None or expired(stored) or f"Bearer {stored.get('access_token')}" == sent:
            return False
        self._token = stored
        return True

    async def _refresh_quietly(self) -> bool:
        try:
            await self.refresh()
        except AuthFailedError as exc:
            self._note("refresh", f"refresh failed ({exc.message}); signing in again", verdict="failed")
            return False
        return True

    async def refresh(self) -> None:
        """Trade the refresh token for a new token set, under the store's lock; a rotated refresh token is
        written before the lock is released. If another process refreshed meanwhile, take its result."""
        async with self.store.locked():
            stored = self.store.token(self.key) or self._token or {}
            ours = (self._token or {}).get("access_token")
            if stored.get("access_token") != ours and not expired(stored):
                self._token = stored
                self._note("refresh", "another mcpx process refreshed the token; using its result")
                return
            refresh_token = stored.get("refresh_token")
            endpoint = stored.get("token_endpoint")
            if not isinstance(refresh_token, str) or not isinstance(endpoint, str):
                raise AuthFailedError("refresh", "no refresh token is stored for this server")
            client = self._stored_client(stored)
            self._note("refresh", f"refreshing the access token at {endpoint}")
            async with self._http() as http:
                data = await token_request(
                    http, client, endpoint, str(stored.get("resource") or self.key), "refresh_token",
                    dpop=self._dpop, issuer=stored.get("issuer"), refresh_token=refresh_token,
                )  # fmt: skip
            record = {**stored, **self._token_fields(data)}
            record.setdefault("refresh_token", refresh_token)
            if not data.get("refresh_token"):
                record["refresh_token"] = refresh_token
            self.store.save_token(self.key, record)
            self._token = record
            self._note("refresh", f"new access token, {self._expiry_text(record)}")

    def _stored_client(self, token: dict[str, Any]) -> ClientInfo:
        issuer = str(token.get("issuer") or "")
        saved = ClientInfo.from_record(self.store.client(issuer) or {})
        if saved is not None and saved.client_id == token.get("client_id"):
            return saved
        secret = self.settings.client_secret if self.settings.client_id == token.get("client_id") else None
        method = str(token.get("auth_method") or ("client_secret_basic" if secret else "none"))
        return ClientInfo(
            str(token.get("client_id") or ""), secret, method, str(token.get("client_kind") or "")
        )

    # -- signing in ------------------------------------------------------------------------------------

    def _transport(self) -> httpx.AsyncBaseTransport:
        return tapped_transport(self.server_url, self.traffic, inner=self._inner)

    def _http(self) -> httpx.AsyncClient:
        from mcpx.__about__ import __version__

        return httpx.AsyncClient(
            transport=self._transport(),
            follow_redirects=True,
            max_redirects=5,
            timeout=30.0,
            trust_env=False,
            headers={"User-Agent": f"mcpx/{__version__}"},
        )

    async def sign_in(self, challenge: Challenge | None = None, *, step_up: bool = False) -> None:
        """Discovery, client, authorization (browser, pasted address or a bare GET), token; stored."""
        self.sign_ins += 1
        async with self._http() as http:
            found = await discover(http, self.server_url, challenge=challenge, note=self._step)
            self.discovery = found
            if not found.ok:
                raise AuthFailedError(found.failed_step or "discovery", found.failure or "discovery failed")
            assert found.issuer is not None
            if self._token is not None and self._token.get("issuer") != found.issuer:
                self._note("binding", f"the server now names {found.issuer}: the old token is not used")
                self._token = None
            challenged = challenge.scopes if challenge is not None else []
            if step_up:
                scopes = list(dict.fromkeys([*self._scopes, *challenged]))
            else:
                scopes = scopes_for(found, challenged, self.settings)
            self._scopes = scopes
            endpoint = (found.as_metadata or {}).get("token_endpoint")
            if not isinstance(endpoint, str):
                raise AuthFailedError("token request", f"{found.issuer}'s metadata has no token_endpoint")
            self._dpop = self._dpop_for(found)
            machine = await machine_grant(
                http, found, self.settings, endpoint, scopes, self._dpop, self._note
            )
            if machine is not None:
                client, data = machine
            else:
                grant = CodeGrant(
                    self.server_url,
                    self.settings,
                    self.store,
                    note=self._note,
                    show=self.show,
                    paste=self.paste,
                )
                loopback = await grant.listen(found.issuer)
                try:
                    client = await grant.client(http, found, loopback.redirect_uri, scopes)
                    code, verifier = await grant.authorize(http, found, client, loopback, scopes)
                finally:
                    await loopback.close()
                self._note("token", f"exchanging the code at {endpoint}")
                data = await token_request(
                    http, client, endpoint, found.resource, "authorization_code",
                    dpop=self._dpop, issuer=found.issuer,
                    code=code, code_verifier=verifier, redirect_uri=loopback.redirect_uri,
                )  # fmt: skip
        record = {
            **self._token_fields(data),
            "scope": data.get("scope") or " ".join(scopes),
            "issuer": found.issuer,
            "client_id": client.client_id,
            "client_kind": client.kind,
            "auth_method": client.auth_method,
            "token_endpoint": endpoint,
            "revocation_endpoint": (found.as_metadata or {}).get("revocation_endpoint"),
            "resource": found.resource,
            "server_url": self.server_url,
        }
        if self._dpop is not None and str(data.get("token_type", "")).lower() == "dpop":
            record["dpop_key"] = self._dpop.record()  # the token is bound to this key
        async with self.store.locked():
            self.store.save_token(self.key, record)
        self._token = record
        self._note(
            "signed-in", f"signed in to {found.issuer} as {client.client_id}; {self._expiry_text(record)}"
        )

    # -- facts -----------------------------------------------------------------------------------------

    def _token_fields(self, data: dict[str, Any]) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "access_token": data["access_token"],
            "token_type": data.get("token_type") or "Bearer",
            "obtained_at": time.time(),
        }
        if isinstance(data.get("refresh_token"), str):
            fields["refresh_token"] = data["refresh_token"]
        expires_in = data.get("expires_in")
        if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool):
            fields["expires_at"] = time.time() + float(expires_in)
        elif isinstance(data.get("expires_at"), (int, float)):
            fields["expires_at"] = float(data["expires_at"])
        else:
            fields["expires_at"] = None
        return fields

    @staticmethod
    def _expiry_text(record: dict[str, Any]) -> str:
        at = record.get("expires_at")
        if not isinstance(at, (int, float)):
            return "no expiry given"
        return f"expires in {max(0, round(at - time.time()))} s"

    def _step(self, step: Step) -> None:
        self.traffic.info(
            f"oauth {step.what}: {step.sentence}",
            "http",
            event="oauth",
            step=step.what,
            url=step.url,
            status=step.status,
            verdict=step.verdict,
        )

    def _note(self, step: str, sentence: str, *, verdict: str = "ok", **facts: Any) -> None:
        self.traffic.info(
            f"oauth {step}: {sentence}", "http", event="oauth", step=step, verdict=verdict, **facts
        )

    async def revoke(self) -> str:
        """Revoke the stored tokens where the AS offers revocation (RFC 7009); what happened, in words."""
        token = self.store.token(self.key) or {}
        endpoint = token.get("revocation_endpoint")
        if not isinstance(endpoint, str):
            return "the authorization server offers no revocation; the tokens were only forgotten"
        client = self._stored_client(token)
        method = client.auth_method  # servers hold a client to the method it registered with
        from authlib.oauth2.auth import ClientAuth

        outcomes = []
        async with self._http() as http:
            for kind in ("refresh_token", "access_token"):
                value = token.get(kind)
                if not isinstance(value, str):
                    continue
                body = f"token={quote(value)}&token_type_hint={kind}"
                if method == "client_secret_basic":
                    body += f"&client_id={quote(client.client_id)}"
                headers = {"Content-Type": "application/x-www-form-urlencoded"}
                url, headers, body = ClientAuth(client.client_id, client.client_secret, method).prepare(
                    "POST", endpoint, headers, body
                )
                try:
                    response = await http.post(url, content=body.encode(), headers=headers)
                    outcomes.append(f"{kind.replace('_', ' ')}: HTTP {response.status_code}")
                except httpx.HTTPError as exc:
                    outcomes.append(f"{kind.replace('_', ' ')}: {exc or type(exc).__name__}")
        self._note("revoke", f"revoked at {endpoint} ({'; '.join(outcomes)})")
        return f"revoked at {endpoint} ({'; '.join(outcomes)})"

    async def forget(self, *, client: bool = False) -> dict[str, Any] | None:
        """Drop the stored token for this server (and the client registered with its issuer)."""
        async with self.store.locked():
            token = self.store.token(self.key)
            self.store.forget_token(self.key)
            if client and token and token.get("issuer"):
                self.store.forget_client(str(token["issuer"]))
        self._token = None
        return token
