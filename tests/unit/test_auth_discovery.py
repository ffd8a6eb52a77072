"""The pure parts of signing in: challenges, discovery URLs in the spec's order, resource matching, the
authorization response rules (RFC 9207 iss, state), secret masking and the 0600 token file. The flows
themselves are graded by the official conformance suite and the SDK-built server in tests/integration."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from mcpx.auth.challenge import bearer_challenge, parse_challenges
from mcpx.auth.discovery import (
    Discovery,
    as_metadata_urls,
    canonical_uri,
    prm_urls,
    resource_matches,
)
from mcpx.auth.flow import OAuthSettings, auth_method_for, check_redirect, scopes_for
from mcpx.auth.store import TokenStore
from mcpx.errors import AuthFailedError
from mcpx.transports.tap import mask_url


def test_challenges_with_several_schemes_and_quoted_values() -> None:
    header = (
        'Basic realm="x", Bearer error="insufficient_scope", scope="a b", '
        'resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", error_description="say \\"hi\\""'
    )
    schemes = [c.scheme for c in parse_challenges(header)]
    assert schemes == ["basic", "bearer"]
    bearer = bearer_challenge(header)
    assert bearer is not None
    assert bearer.error == "insufficient_scope"
    assert bearer.scopes == ["a", "b"]
    assert bearer.resource_metadata == "https://h/.well-known/oauth-protected-resource/mcp"
    assert bearer.params["error_description"] == 'say "hi"'


@pytest.mark.parametrize("header", ["", "Bearer", ",,,", 'Bearer scope="unterminated', "Negotiate abc=="])
def test_challenges_never_raise(header: str) -> None:
    parse_challenges(header)


def test_prm_urls_header_first_then_path_then_root() -> None:
    challenge = bearer_challenge('Bearer resource_metadata="https://h/custom.json"')
    assert prm_urls("https://h/api/mcp", challenge) == [
        "https://h/custom.json",
        "https://h/.well-known/oauth-protected-resource/api/mcp",
        "https://h/.well-known/oauth-protected-resource",
    ]
    assert prm_urls("https://h/", None) == ["https://h/.well-known/oauth-protected-resource"]


def test_as_metadata_urls_in_spec_order() -> None:
    assert as_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert as_metadata_urls("http://localhost:9000") == [
        "http://localhost:9000/.well-known/oauth-authorization-server",
        "http://localhost:9000/.well-known/openid-configuration",
    ]


def test_resource_matches_the_server_or_a_parent_on_the_same_origin() -> None:
    assert resource_matches("https://H/mcp", "https://h/mcp")
    assert resource_matches("https://h", "https://h/mcp")
    assert resource_matches("https://h/api", "https://h/api/mcp")
    assert not resource_matches("https://evil.example.com/mcp", "https://h/mcp")
    assert not resource_matches("https://h/other", "https://h/mcp")
    assert not resource_matches("https://h/mc", "https://h/mcp")
    assert canonical_uri("HTTPS://Example.COM/") == "https://example.com"


def _found(**meta: object) -> Discovery:
    return Discovery(
        server_url="https://h/mcp", issuer="https://as", as_metadata={"issuer": "https://as", **meta}
    )


def test_iss_is_compared_exactly_and_required_when_advertised() -> None:
    found = _found(authorization_response_iss_parameter_supported=True)
    assert check_redirect({"code": "c", "state": "s", "iss": "https://as"}, "s", found) == "c"
    for params in (
        {"code": "c", "state": "s"},  # advertised but missing
        {"code": "c", "state": "s", "iss": "https://as/"},  # no normalisation
        {"code": "c", "state": "s", "iss": "https://evil"},
    ):
        with pytest.raises(AuthFailedError):
            check_redirect(params, "s", found)
    unadvertised = _found()
    assert check_redirect({"code": "c", "state": "s"}, "s", unadvertised) == "c"
    with pytest.raises(AuthFailedError, match="does not match"):
        check_redirect({"code": "c", "state": "s", "iss": "https://evil", "error": "x"}, "s", unadvertised)


def test_a_wrong_state_is_refused() -> None:
    with pytest.raises(AuthFailedError, match="state"):
        check_redirect({"code": "c", "state": "other"}, "s", _found())


def test_scopes_challenge_then_prm_then_none_plus_offline_access() -> None:
    found = _found(scopes_supported=["a", "offline_access"])
    found.prm = {"scopes_supported": ["p1", "p2"]}
    settings = OAuthSettings()
    assert scopes_for(found, ["c"], settings) == ["c", "offline_access"]
    assert scopes_for(found, [], settings) == ["p1", "p2", "offline_access"]
    found.prm = {}
    assert scopes_for(found, [], settings) == []
    assert scopes_for(found, ["c"], OAuthSettings(scope="x y")) == ["x", "y"]


def test_token_endpoint_auth_method_follows_the_as() -> None:
    assert auth_method_for({"token_endpoint_auth_methods_supported": ["client_secret_post"]}, True) == (
        "client_secret_post"
    )
    assert auth_method_for({}, True) == "client_secret_basic"
    assert auth_method_for({"token_endpoint_auth_methods_supported": ["none"]}, False) == "none"


def test_oauth_secrets_in_urls_are_masked() -> None:
    shown = mask_url("http://127.0.0.1:1/callback?code=abcdefghijklmnop&state=s&iss=x")
    assert "abcdefghijkl" not in shown and "state=s" in shown
    body = mask_url("grant_type=refresh_token&refresh_token=rt-123456789012&client_secret=sh")
    assert "rt-1234" not in body and "client_secret=••••" in body
    assert mask_url("http://h/authorize?response_type=code&code_challenge=abc") == (
        "http://h/authorize?response_type=code&code_challenge=abc"
    )


def test_token_file_is_private_and_replaced_atomically(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "data", use_keyring=False)

    async def save() -> None:
        async with store.locked():
            store.save_token("https://h/mcp", {"access_token": "t", "refresh_token": "r"})

    asyncio.run(save())
    assert store.token("https://h/mcp") == {"access_token": "t", "refresh_token": "r"}
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert [p.name for p in store.directory.iterdir() if p.name.startswith(".oauth-")] == []
    assert store.forget_token("https://h/mcp")
    assert store.token("https://h/mcp") is None


def test_with_a_keyring_the_file_keeps_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    import keyring
    from keyring.backend import KeyringBackend

    class Memory(KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.items: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.items.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.items[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.items.pop((service, username), None)

    previous = keyring.get_keyring()
    memory = Memory()
    keyring.set_keyring(memory)
    monkeypatch.delenv("MCPX_TOKEN_STORE", raising=False)
    try:
        store = TokenStore(tmp_path)
        store.save_token(
            "https://h/mcp", {"access_token": "at-secret", "refresh_token": "rt-secret", "issuer": "i"}
        )
        on_disk = store.path.read_text()
        assert "at-secret" not in on_disk and "rt-secret" not in on_disk
        assert json.loads(on_disk)["tokens"]["https://h/mcp"]["issuer"] == "i"
        assert TokenStore(tmp_path).token("https://h/mcp") == {
            "access_token": "at-secret", "refresh_token": "rt-secret", "issuer": "i",
        }  # fmt: skip
        assert store.forget_token("https://h/mcp") and memory.items == {}
    finally:
        keyring.set_keyring(previous)


def test_the_client_secret_and_every_token_held_are_masked_in_the_sessions_views(tmp_path: Path) -> None:
    from mcpx.auth.provider import McpOAuth
    from mcpx.wire import TrafficLog

    log = TrafficLog()
    store = TokenStore(tmp_path / "data", use_keyring=False)
    provider = McpOAuth(
        "http://127.0.0.1:1/mcp",
        log,
        OAuthSettings(client_id="c", client_secret="cs-0123456789"),
        store=store,
    )
    provider._token = {"access_token": "at-9876543210", "refresh_token": "rt-5555566666", "expires_at": 1}
    shown = log.secrets.text("echo cs-0123456789 at-9876543210 rt-5555566666")
    assert not any(s in shown for s in ("cs-0123456789", "at-9876543210", "rt-5555566666")), shown
