"""Masking secrets as a recording is written (DESIGN.md, "No leaked secrets").

What is masked, wherever it appears in an event's facts or raw text:

- the values of the headers Authorization, Proxy-Authorization, Cookie and Set-Cookie (and of any header
  the user named secret) in facts;
- OAuth tokens and client secrets in bodies: the JSON string values (and form fields) named
  `access_token`, `refresh_token`, `id_token`, `client_secret`, `code_verifier`, `client_assertion`,
  `registration_access_token`, `device_code`; and `Bearer …` / `Basic …` credentials anywhere;
- environment values whose names look secret (TOKEN, SECRET, KEY, PASSWORD, PASSWD, CREDENTIAL) in facts,
  and the literal values of the secret env vars and headers the server was started with, wherever they
  show up (a server that logs its own token on stderr).

The rest of a raw frame is kept byte for byte: only the secret's characters are replaced, so the
recording still shows what the frame looked like. A masked value keeps its last four characters when it
is long enough to spare them (`Bearer ••••1a2b`), to tell two tokens apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

MASK = "••••"
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
BODY_KEYS = (
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "code_verifier",
    "client_assertion",
    "registration_access_token",
    "device_code",
)
_SECRET_NAME = re.compile(r"TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_KEYS = "|".join(BODY_KEYS)
_JSON_FIELD = re.compile(rf'("(?:{_KEYS})"\s*:\s*")((?:[^"\\]|\\.)*)(")', re.IGNORECASE)
_FORM_FIELD = re.compile(rf"(\b(?:{_KEYS})=)([^&\s\"']+)", re.IGNORECASE)
_CREDENTIAL = re.compile(r"(\b(?:Bearer|Basic)\s+)([A-Za-z0-9\-._~+/]{6,}=*)", re.IGNORECASE)
#: literal secrets shorter than this are not hunted in text (too many false hits)
MIN_LITERAL = 6


def mask(value: str) -> str:
    """`Bearer abcdef…1a2b` → `Bearer ••••1a2b`; short secrets show nothing of themselves."""
    if MASK in value:
        return value  # masked already (the HTTP tap masks headers before they reach the log)
    scheme, sep, secret = value.partition(" ")
    if not sep or not scheme.isalpha():
        scheme, secret = "", value
    tail = secret[-4:] if len(secret) >= 12 else ""
    return f"{scheme} {MASK}{tail}" if scheme else f"{MASK}{tail}"


def looks_secret(name: str) -> bool:
    """An environment variable (or config key) whose name says it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def mask_env(env: Mapping[str, str]) -> dict[str, str]:
    return {k: mask(v) if looks_secret(k) and isinstance(v, str) else v for k, v in env.items()}


def mask_headers(headers: Mapping[str, str], secret: frozenset[str] = SECRET_HEADERS) -> dict[str, str]:
    return {k: mask(v) if k.lower() in secret and isinstance(v, str) else v for k, v in headers.items()}


def _hinted(raw: str) -> bool:
    """A cheap first look: most frames hold none of these words and skip the regexes (0.5 µs against
    10 µs for a case-blind regex alternation)."""
    low = raw.lower()
    return (
        "_token" in low
        or "secret" in low
        or "bearer" in low
        or "basic" in low
        or "verifier" in low
        or "assertion" in low
        or "device_code" in low
    )


class Redactor:
    """Masks secrets in one event's raw text and facts; `literals` are known secret values."""

    def __init__(self, literals: Iterable[str] = (), secret_headers: Iterable[str] = ()) -> None:
        self.literals = sorted(
            {v for v in literals if isinstance(v, str) and len(v) >= MIN_LITERAL}, key=len, reverse=True
        )
        self.secret_headers = SECRET_HEADERS | {h.strip().lower() for h in secret_headers}

    @classmethod
    def for_target(
        cls, env: Mapping[str, str], headers: Mapping[str, str], secret_headers: Iterable[str] = ()
    ) -> Redactor:
        """Know the secret env values and header values the server is reached with."""
        names = SECRET_HEADERS | {h.strip().lower() for h in secret_headers}
        literals = [v for k, v in env.items() if looks_secret(k)]
        for name, value in headers.items():
            if name.lower() in names:
                literals.append(value)
                literals.append(value.partition(" ")[2])  # the token without its scheme
        return cls(literals, secret_headers)

    def text(self, raw: str) -> str:
        """`raw` with every secret in it masked (the same string object when there is none)."""
        if _hinted(raw):
            raw = _JSON_FIELD.sub(lambda m: m.group(1) + mask(m.group(2)) + m.group(3), raw)
            raw = _FORM_FIELD.sub(lambda m: m.group(1) + mask(m.group(2)), raw)
            raw = _CREDENTIAL.sub(lambda m: m.group(1) + mask(m.group(2)), raw)
        for literal in self.literals:
            if literal in raw:
                raw = raw.replace(literal, mask(literal))
        return raw

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        """A copy of `facts` with secrets masked (the same dict when there is none)."""
        masked = self._value(facts, None)
        return masked if isinstance(masked, dict) else facts

    def _value(self, value: Any, key: str | None) -> Any:
        if isinstance(value, str):
            if key is not None:
                lowered = key.lower()
                if lowered in self.secret_headers or lowered in BODY_KEYS:
                    return mask(value)
                if key.isupper() and looks_secret(key):  # an environment variable's name
                    return mask(value)
            return self.text(value)
        if isinstance(value, dict):
            out: dict[Any, Any] | None = None
            for k, v in value.items():
                new = self._value(v, k if isinstance(k, str) else None)
                if new is not v:
                    if out is None:
                        out = dict(value)
                    out[k] = new
            return value if out is None else out
        if isinstance(value, (list, tuple)):
            items = [self._value(v, key) for v in value]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                return items
            return value
        return value
