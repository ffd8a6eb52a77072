"""`WWW-Authenticate` (RFC 9110 §11.6.1, RFC 6750 §3): the challenges a server sends with a 401 or 403.

    Bearer realm="mcp", error="insufficient_scope", scope="files:read files:write",
        resource_metadata="https://host/.well-known/oauth-protected-resource/mcp"

A header may hold several challenges (`Basic realm="x", Bearer scope="a"`); parameter values are tokens or
quoted strings with backslash escapes. Parsing never raises: what cannot be read is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_PARAM = re.compile(rf"\s*({_TOKEN})\s*=\s*({_QUOTED}|{_TOKEN}=*)\s*")
_SCHEME = re.compile(rf"\s*({_TOKEN})(?=\s|,|$)")
_TOKEN68 = re.compile(r"\s*[A-Za-z0-9\-._~+/]+=*\s*(?=,|$)")


@dataclass(frozen=True, slots=True)
class Challenge:
    """One challenge: its scheme (lower case) and its parameters (names lower case)."""

    scheme: str
    params: dict[str, str] = field(default_factory=dict)

    @property
    def scopes(self) -> list[str]:
        return self.params.get("scope", "").split()

    @property
    def error(self) -> str | None:
        return self.params.get("error")

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata")


def parse_challenges(header: str | None) -> list[Challenge]:
    """Every challenge in a `WWW-Authenticate` value (several headers may be joined with commas)."""
    if not header:
        return []
    challenges: list[Challenge] = []
    pos = 0
    length = len(header)
    while pos < length:
        while pos < length and header[pos] in ", \t":
            pos += 1
        scheme = _SCHEME.match(header, pos)
        if scheme is None:
            break
        pos = scheme.end()
        params: dict[str, str] = {}
        while pos < length:
            param = _PARAM.match(header, pos)
            if param is None:
                # token68 (`Negotiate abc==`) or the next challenge's scheme
                token68 = _TOKEN68.match(header, pos)
                if token68 is not None and not params:
                    pos = token68.end()
                break
            name, value = param.group(1).lower(), param.group(2)
            if value.startswith('"'):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            params.setdefault(name, value)
            pos = param.end()
            if pos < length and header[pos] == ",":
                pos += 1
        challenges.append(Challenge(scheme.group(1).lower(), params))
    return challenges


def bearer_challenge(header: str | None) -> Challenge | None:
    """The Bearer challenge of a `WWW-Authenticate` value, else its DPoP one (RFC 9449 §7.1: the same
    parameters, `error="use_dpop_nonce"` among them), if it has either."""
    challenges = parse_challenges(header)
    for scheme in ("bearer", "dpop"):
        for challenge in challenges:
            if challenge.scheme == scheme:
                return challenge
    return None
