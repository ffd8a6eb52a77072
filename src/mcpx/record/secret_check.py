"""`mcpx replay FILE --check-secrets`: look through a recording for values that still look like secrets.

A recording is masked as it is written (`mcpx.wire.secret_policy`), but masking knows only the secrets it
was told about and the shapes it knows. Before sharing a file, this check reads every line — the header,
each event's facts and its raw frame, JSON inside JSON text too — and lists what looks like a secret and
is not masked: values of secret-looking names (`api_key`, `password`, `*_TOKEN`, request headers that
are not known to be harmless), `Bearer`/`Basic` credentials, URLs with a password or secret query values,
and well-known token shapes (GitHub, Slack, AWS, Google, OpenAI-style keys, JWTs, private keys). Each
finding names the line and where in it, and shows only the first characters of the value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpx.wire.secret_rules import (
    CREDENTIAL_HEADERS,
    MASK,
    SECRET_FIELDS,
    harmless_header,
    looks_secret,
    mask_url,
    secret_param,
)

#: token shapes worth naming wherever they appear (prefixes published by their issuers)
_SHAPES = {
    "GitHub token": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
    "Slack token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "AWS access key id": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "Google API key": re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),
    "API key (sk-…)": re.compile(r"\bsk-(?:[A-Za-z0-9_-]*-)?[A-Za-z0-9_-]{20,}"),
    "JWT": re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    "private key": re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    "credential": re.compile(r"\b(?:Bearer|Basic)\s+(?!••••)[A-Za-z0-9\-._~+/]{6,}=*", re.IGNORECASE),
}
_URL = re.compile(r"\bhttps?://[^\s\"'<>\\]+", re.IGNORECASE)
#: header and fact names whose values are never secrets, though their names might say so
_PLAIN_KEYS = frozenset({"event", "method", "kind", "type", "name", "token_type", "key_id", "keys"})


@dataclass(frozen=True, slots=True)
class Finding:
    line: int
    where: str
    what: str
    preview: str

    def describe(self) -> str:
        return f"line {self.line}, {self.where}: {self.what} ({self.preview})"

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "where": self.where, "what": self.what, "preview": self.preview}


def preview(value: str) -> str:
    """Enough of a value to find it, not enough to use it."""
    return f"{value[:3]}… {len(value)} characters" if len(value) > 6 else f"{len(value)} characters"


def check_file(path: str | Path) -> list[Finding]:
    findings: list[Finding] = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                obj = json.loads(line)
            except ValueError:
                findings.extend(_in_text(line, number, "an unreadable line"))
                continue
            findings.extend(_walk(obj, number, "$", None, headers=False))
    return findings


def _walk(value: Any, line: int, where: str, key: str | None, *, headers: bool) -> Iterator[Finding]:
    if isinstance(value, dict):
        # the values of a "headers" object are header values, judged by the header's name
        header_values = key is not None and key.lower() == "headers"
        for k, v in value.items():
            yield from _walk(v, line, f"{where}.{k}", str(k), headers=header_values)
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, line, f"{where}[{index}]", key, headers=headers)
        return
    if not isinstance(value, str) or not value:
        return
    if key is not None and MASK not in value and _secret_key(key, headers):
        yield Finding(line, where, f"the value of {key!r}", preview(value))
        return
    stripped = value.strip()
    if stripped[:1] in "{[" and len(stripped) > 1:
        try:
            inner = json.loads(stripped)
        except ValueError:
            pass
        else:
            yield from _walk(inner, line, f"{where} (JSON text)", None, headers=False)
            return
    yield from _in_text(value, line, where)


def _secret_key(key: str, headers: bool) -> bool:
    low = key.lower()
    if low in _PLAIN_KEYS:
        return False
    if headers:
        # request headers are masked unless harmless; response headers only by name (Set-Cookie, X-Api-Key)
        return low in CREDENTIAL_HEADERS or (not harmless_header(low) and secret_param(low))
    # "code" is a query parameter worth masking (OAuth), but in JSON mostly a program or an error code
    return low != "code" and (
        low in SECRET_FIELDS or secret_param(low) or (key.isupper() and looks_secret(key))
    )


def _in_text(text: str, line: int, where: str) -> Iterator[Finding]:
    for what, shape in _SHAPES.items():
        for match in shape.finditer(text):
            if MASK not in match.group(0):
                yield Finding(line, where, what, preview(match.group(0)))
    if "://" in text:
        for match in _URL.finditer(text):
            url = match.group(0)
            if mask_url(url) != url:
                yield Finding(line, where, "a URL with a password or a secret query value", preview(url))
