"""The signed JWTs that OAuth extensions ask a client to make, with joserfc (Authlib's JOSE library):

* a **client assertion** (RFC 7523 §2.2, `private_key_jwt`): the client authenticates at the token
  endpoint with a JWT signed by its private key — `iss` and `sub` its client id, `aud` the AS's issuer;
* a **DPoP proof** (RFC 9449): a fresh JWT per HTTP request, signed by a key the client holds for the
  life of its token (`typ` `dpop+jwt`, the public key in the header, `htm`/`htu` naming the request, a
  new `jti`, `ath` the hash of the access token at a resource server, and the server's `nonce` once one
  was asked for). The token the AS issues is bound to that key's thumbprint, so the key is stored with
  the token (a secret, as the token is).

The grant types and token types these extensions use are named here too.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import Any

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
#: how long a client assertion is valid: long enough for a slow network, short enough to be useless later
ASSERTION_LIFETIME = 300


def client_assertion(client_id: str, private_key_pem: str, algorithm: str, audience: str) -> str:
    """An RFC 7523 client assertion for `private_key_jwt` authentication at `audience` (the AS issuer)."""
    from joserfc import jwk, jwt

    # the key type follows from the algorithm (joserfc warns when left to guess it from the PEM)
    key: jwk.ECKey | jwk.OKPKey | jwk.RSAKey
    if algorithm.startswith("ES"):
        key = jwk.import_key(private_key_pem, "EC")
    elif algorithm == "EdDSA":
        key = jwk.import_key(private_key_pem, "OKP")
    else:
        key = jwk.import_key(private_key_pem, "RSA")
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME,
        "jti": secrets.token_urlsafe(16),
    }
    return jwt.encode({"alg": algorithm, "typ": "JWT"}, claims, key, algorithms=[algorithm])


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def htu(url: str) -> str:
    """A request's URI as a DPoP proof names it: without query and fragment (RFC 9449 §4.2)."""
    return url.split("#", 1)[0].split("?", 1)[0]


class DpopKey:
    """A P-256 key for DPoP proofs (ES256), and the nonces servers asked for, by origin."""

    algorithm = "ES256"

    def __init__(self, private_jwk: dict[str, Any] | None = None) -> None:
        from joserfc import jwk

        self._key = jwk.ECKey.import_key(private_jwk) if private_jwk else jwk.ECKey.generate_key("P-256")
        self.public_jwk = self._key.as_dict(private=False)
        #: origin → the last `DPoP-Nonce` that server sent
        self.nonces: dict[str, str] = {}

    def record(self) -> dict[str, Any]:
        """The private key as a JWK, to store with the token bound to it."""
        return dict(self._key.as_dict(private=True))

    @property
    def thumbprint(self) -> str:
        return str(self._key.thumbprint())

    def proof(self, method: str, url: str, *, origin: str, access_token: str | None = None) -> str:
        from joserfc import jwt

        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": htu(url),
            "iat": int(time.time()),
        }
        nonce = self.nonces.get(origin)
        if nonce:
            claims["nonce"] = nonce
        if access_token is not None:
            claims["ath"] = _b64(hashlib.sha256(access_token.encode("ascii")).digest())
        header = {"typ": "dpop+jwt", "alg": self.algorithm, "jwk": self.public_jwk}
        return jwt.encode(header, claims, self._key, algorithms=[self.algorithm])

    def learn_nonce(self, origin: str, headers: Any) -> bool:
        """Keep the `DPoP-Nonce` a response carries; True when it is new (worth a retry)."""
        nonce = headers.get("dpop-nonce") if headers is not None else None
        if not isinstance(nonce, str) or not nonce or self.nonces.get(origin) == nonce:
            return False
        self.nonces[origin] = nonce
        return True
