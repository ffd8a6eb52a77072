"""The JWTs mcpx signs for OAuth extensions: DPoP proofs (RFC 9449) and private_key_jwt client
assertions (RFC 7523), checked with joserfc against the public keys, as a server would."""

from __future__ import annotations

import base64
import hashlib

from joserfc import jwk, jwt

from mcpx.auth.challenge import bearer_challenge
from mcpx.auth.grants import DpopKey, client_assertion, htu


def test_a_dpop_proof_names_the_request_carries_the_key_and_is_fresh_each_time() -> None:
    key = DpopKey()
    public = jwk.ECKey.import_key(key.public_jwk)
    assert "d" not in key.public_jwk
    first = key.proof("post", "https://rs.example/mcp?x=1#f", origin="https://rs.example", access_token="tok")
    second = key.proof("POST", "https://rs.example/mcp", origin="https://rs.example", access_token="tok")
    token = jwt.decode(first, public, algorithms=["ES256"])
    assert token.header["typ"] == "dpop+jwt" and token.header["jwk"] == key.public_jwk
    claims = token.claims
    assert claims["htm"] == "POST" and claims["htu"] == "https://rs.example/mcp"
    expected_ath = base64.urlsafe_b64encode(hashlib.sha256(b"tok").digest()).rstrip(b"=").decode()
    assert claims["ath"] == expected_ath and "nonce" not in claims
    assert jwt.decode(second, public, algorithms=["ES256"]).claims["jti"] != claims["jti"]
    assert key.thumbprint == public.thumbprint()


def test_a_nonce_is_learned_once_per_origin_and_the_key_survives_storage() -> None:
    key = DpopKey()
    assert key.learn_nonce("https://as.example", {"dpop-nonce": "n1"})
    assert not key.learn_nonce("https://as.example", {"dpop-nonce": "n1"})  # not new: no second retry
    assert not key.learn_nonce("https://as.example", {})
    proof = key.proof("POST", "https://as.example/token", origin="https://as.example")
    assert jwt.decode(proof, jwk.ECKey.import_key(key.public_jwk)).claims["nonce"] == "n1"
    other = key.proof("POST", "https://rs.example/mcp", origin="https://rs.example")
    assert "nonce" not in jwt.decode(other, jwk.ECKey.import_key(key.public_jwk)).claims
    again = DpopKey(key.record())
    assert again.thumbprint == key.thumbprint
    assert htu("https://h/p?q#f") == "https://h/p"


def test_a_client_assertion_is_signed_for_the_issuer() -> None:
    private = jwk.ECKey.generate_key("P-256")
    pem = private.as_pem(private=True).decode()
    assertion = client_assertion("client-1", pem, "ES256", "https://as.example")
    claims = jwt.decode(assertion, jwk.ECKey.import_key(private.as_dict(private=False))).claims
    assert claims["iss"] == claims["sub"] == "client-1" and claims["aud"] == "https://as.example"
    assert claims["exp"] - claims["iat"] == 300 and claims["jti"]


def test_a_dpop_challenge_is_read_when_there_is_no_bearer_one() -> None:
    challenge = bearer_challenge('DPoP error="use_dpop_nonce", resource_metadata="https://rs/prm"')
    assert challenge is not None and challenge.scheme == "dpop" and challenge.error == "use_dpop_nonce"
    both = bearer_challenge('DPoP algs="ES256", Bearer scope="a"')
    assert both is not None and both.scheme == "bearer"
