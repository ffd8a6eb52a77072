"""Finding who authorizes an MCP server: Protected Resource Metadata, then the authorization server's own.

The order is the spec's (2025-11-25 and 2026-07-28, `basic/authorization`):

1. Protected Resource Metadata (RFC 9728): the `resource_metadata` URL of the 401 challenge, then
   `/.well-known/oauth-protected-resource/<path>`, then `/.well-known/oauth-protected-resource`. A PRM
   whose `resource` is not this server (or a parent of it) is refused: its tokens would be for another.
2. Authorization server metadata for the first of its `authorization_servers`, every path-insertion
   variant in order (RFC 8414 and OpenID Connect Discovery). The document's `issuer` must equal the
   issuer the URL was built from, character for character, or it is not used.
3. A server with no PRM at all is a 2025-03-26 server: its authorization base URL is its origin, metadata
   at `/.well-known/oauth-authorization-server` there, else the endpoints `/authorize`, `/token` and
   `/register` at that origin.

`discover()` never raises for what a server answers: every URL it tried goes into `Discovery.steps`
(URL, HTTP status, verdict, sentence) and a failure into `Discovery.failure`, so `mcpx doctor` can show
the walk and the OAuth flow can stop with the step that failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from mcpx.auth.challenge import Challenge, bearer_challenge

PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource"
OAUTH_WELL_KNOWN = "/.well-known/oauth-authorization-server"
OIDC_WELL_KNOWN = "/.well-known/openid-configuration"
FALLBACK_PATHS = {
    "authorization_endpoint": "/authorize",
    "token_endpoint": "/token",
    "registration_endpoint": "/register",
}


@dataclass(frozen=True, slots=True)
class Step:
    """One thing discovery did: the URL it tried, the HTTP status, a one-word verdict and a sentence."""

    what: str
    url: str | None
    status: int | None
    verdict: str  # used | not-found | rejected | failed | fallback | note
    sentence: str


@dataclass(slots=True)
class Discovery:
    server_url: str
    challenge: Challenge | None = None
    prm: dict[str, Any] | None = None
    prm_url: str | None = None
    #: the value for RFC 8707 `resource`: the PRM's `resource` exactly as published, else the server's URI
    resource: str = ""
    issuer: str | None = None
    as_metadata: dict[str, Any] | None = None
    #: where the AS metadata came from (None when synthesized from the 2025-03-26 fallback endpoints)
    as_metadata_url: str | None = None
    #: True when the server has no PRM (2025-03-26 rules)
    legacy: bool = False
    steps: list[Step] = field(default_factory=list)
    #: why discovery could not finish (None when it did)
    failure: str | None = None
    failed_step: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None and self.as_metadata is not None

    @property
    def scopes_supported(self) -> list[str]:
        scopes = (self.prm or {}).get("scopes_supported")
        return [s for s in scopes if isinstance(s, str)] if isinstance(scopes, list) else []


def canonical_uri(url: str) -> str:
    """The canonical server URI (RFC 8707 as MCP words it): lower-case scheme and host, no fragment,
    no trailing slash unless the path is more than `/`."""
    parsed = httpx.URL(url)
    port = f":{parsed.port}" if parsed.port is not None else ""
    path = parsed.raw_path.decode("ascii", "replace").split("?", 1)[0]
    if path == "/":
        path = ""
    query = f"?{parsed.query.decode('ascii', 'replace')}" if parsed.query else ""
    return f"{parsed.scheme.lower()}://{parsed.host.lower()}{port}{path}{query}"


def origin_of(url: str) -> str:
    parsed = httpx.URL(url)
    port = f":{parsed.port}" if parsed.port is not None else ""
    return f"{parsed.scheme.lower()}://{parsed.host.lower()}{port}"


def resource_matches(resource: str, server_url: str) -> bool:
    """Is the PRM's `resource` this server, or a URL the server's URL lies under (same origin)?"""
    try:
        res, srv = canonical_uri(resource), canonical_uri(server_url)
    except (httpx.InvalidURL, ValueError):
        return False
    if res == srv:
        return True
    if origin_of(res) != origin_of(srv):
        return False
    res_path = httpx.URL(res).path.rstrip("/")
    srv_path = httpx.URL(srv).path
    return res_path == "" or srv_path == res_path or srv_path.startswith(res_path + "/")


def prm_urls(server_url: str, challenge: Challenge | None) -> list[str]:
    urls: list[str] = []
    if challenge is not None and challenge.resource_metadata:
        urls.append(challenge.resource_metadata)
    origin = origin_of(server_url)
    path = httpx.URL(server_url).path.rstrip("/")
    if path:
        urls.append(f"{origin}{PRM_WELL_KNOWN}{path}")
    urls.append(f"{origin}{PRM_WELL_KNOWN}")
    return list(dict.fromkeys(urls))


def as_metadata_urls(issuer: str) -> list[str]:
    """RFC 8414 and OIDC Discovery URLs for an issuer, in the order the MCP spec gives."""
    origin = origin_of(issuer)
    path = httpx.URL(issuer).path.rstrip("/")
    if path:
        return [
            f"{origin}{OAUTH_WELL_KNOWN}{path}",
            f"{origin}{OIDC_WELL_KNOWN}{path}",
            f"{origin}{path}{OIDC_WELL_KNOWN}",
        ]
    return [f"{origin}{OAUTH_WELL_KNOWN}", f"{origin}{OIDC_WELL_KNOWN}"]


async def _get_json(http: httpx.AsyncClient, url: str) -> tuple[int | None, Any, str | None]:
    """(status, parsed JSON or None, why it is unusable or None)."""
    try:
        response = await http.get(url, headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        return None, None, f"could not be fetched: {exc or type(exc).__name__}"
    if response.status_code != 200:
        return response.status_code, None, f"answered HTTP {response.status_code}"
    try:
        data = json.loads(response.content)
    except ValueError:
        return 200, None, "answered 200 with a body that is not JSON"
    if not isinstance(data, dict):
        return 200, None, "answered 200 with JSON that is not an object"
    return 200, data, None


class _Walk:
    def __init__(self, found: Discovery, note: Callable[[Step], None] | None) -> None:
        self.found = found
        self.note = note

    def step(self, what: str, url: str | None, status: int | None, verdict: str, sentence: str) -> None:
        step = Step(what, url, status, verdict, sentence)
        self.found.steps.append(step)
        if self.note is not None:
            self.note(step)

    def fail(self, what: str, sentence: str) -> Discovery:
        self.found.failure = sentence
        self.found.failed_step = what
        return self.found


async def discover(
    http: httpx.AsyncClient,
    server_url: str,
    *,
    challenge: str | Challenge | None = None,
    note: Callable[[Step], None] | None = None,
) -> Discovery:
    """Walk PRM → AS metadata (or the 2025-03-26 fallbacks) for `server_url`.

    `challenge` is the `WWW-Authenticate` value of the 401/403 (or its parsed Bearer challenge); `note`
    hears each step as it happens. `http` should not carry the server's token.
    """
    parsed = bearer_challenge(challenge) if isinstance(challenge, str) or challenge is None else challenge
    found = Discovery(server_url=server_url, challenge=parsed, resource=canonical_uri(server_url))
    walk = _Walk(found, note)
    what = "protected resource metadata"
    rejected: str | None = None
    for url in prm_urls(server_url, parsed):
        status, data, why = await _get_json(http, url)
        if data is None:
            walk.step(what, url, status, "not-found", f"{url} {why}")
            continue
        resource = data.get("resource")
        servers = data.get("authorization_servers")
        if isinstance(resource, str) and not resource_matches(resource, server_url):
            rejected = f"PRM resource {resource} does not match the server {server_url}"
            walk.step(what, url, status, "rejected", f"{url}: {rejected}")
            continue
        if not isinstance(servers, list) or not any(isinstance(s, str) and s for s in servers):
            rejected = f"PRM at {url} names no authorization_servers"
            walk.step(what, url, status, "rejected", rejected)
            continue
        found.prm, found.prm_url = data, url
        if isinstance(resource, str):
            found.resource = resource
        found.issuer = next(s for s in servers if isinstance(s, str) and s)
        walk.step(
            what, url, status, "used", f"{url}: resource {resource}, authorization server {found.issuer}"
        )
        break
    if found.prm is None:
        if rejected is not None:
            return walk.fail(what, rejected)
        found.legacy = True
        found.issuer = origin_of(server_url)
        walk.step(
            what,
            None,
            None,
            "fallback",
            f"no Protected Resource Metadata: 2025-03-26 rules, authorization base URL {found.issuer}",
        )
    assert found.issuer is not None
    return await _as_metadata(http, found, walk)


async def _as_metadata(http: httpx.AsyncClient, found: Discovery, walk: _Walk) -> Discovery:
    what = "authorization server metadata"
    issuer = found.issuer or ""
    try:
        urls = [f"{issuer}{OAUTH_WELL_KNOWN}"] if found.legacy else as_metadata_urls(issuer)
    except (httpx.InvalidURL, ValueError):
        return walk.fail(what, f"the authorization server {issuer!r} is not a URL")
    mismatch: str | None = None
    for url in urls:
        status, data, why = await _get_json(http, url)
        if data is None:
            walk.step(what, url, status, "not-found", f"{url} {why}")
            continue
        got = data.get("issuer")
        same = got == issuer or (found.legacy and isinstance(got, str) and got.rstrip("/") == issuer)
        if not same:
            mismatch = f"AS metadata issuer {got} does not match {issuer}"
            walk.step(what, url, status, "rejected", f"{url}: {mismatch}")
            continue
        found.as_metadata, found.as_metadata_url = data, url
        walk.step(what, url, status, "used", f"{url}: issuer {got}")
        return _check_pkce(found, walk)
    if mismatch is not None:
        return walk.fail(what, mismatch)
    if found.legacy:
        found.as_metadata = {"issuer": issuer, **{k: issuer + v for k, v in FALLBACK_PATHS.items()}}
        walk.step(
            what,
            None,
            None,
            "fallback",
            f"no metadata: the 2025-03-26 default endpoints {issuer}/authorize, /token, /register",
        )
        return found
    return walk.fail(what, f"no authorization server metadata for {issuer} (tried {', '.join(urls)})")


def _check_pkce(found: Discovery, walk: _Walk) -> Discovery:
    methods = (found.as_metadata or {}).get("code_challenge_methods_supported")
    if isinstance(methods, list) and "S256" in methods:
        walk.step("PKCE", None, None, "used", "the authorization server supports PKCE S256")
        return found
    got = f"code_challenge_methods_supported = {methods!r}" if methods is not None else "no such field"
    return walk.fail(
        "PKCE", f"the authorization server does not advertise PKCE S256 (expected S256; got {got})"
    )
