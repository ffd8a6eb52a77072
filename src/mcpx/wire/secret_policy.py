"""One secret policy: what mcpx masks wherever it shows or stores traffic (DESIGN.md, "No leaked secrets").

It sits on the lowest floor so every view and every file uses the same rules: the HTTP tap (header facts),
the CLI's `--traffic`, the TUI, recordings, replay/diff/mock output, caches and error messages. The traffic
log keeps the exact bytes that crossed the wire; each `TrafficLog` carries one `SecretPolicy` (`log.secrets`)
that knows the session's secret values, and views mask what they show through it. So the live screens mask
exactly what a recording masks, and a view may still reveal a frame on purpose.

What is masked:

- request headers, except a short list of names known to be harmless (`HARMLESS_HEADERS`; `Mcp-Session-Id`
  is shown shortened); in responses, Set-Cookie and any header the user named secret;
- known secret values wherever they appear — in raw frames, stderr lines, facts, results: the values of
  masked request headers (and the token without its `Bearer ` scheme), URL userinfo and secret-looking query
  values, the env values a server is started with whose names look secret (passed with `-e` or inherited);
  also their JSON-escaped (once and twice: JSON text inside a JSON string) and URL-encoded spellings;
- OAuth tokens, codes, verifiers and client secrets by their names, in JSON (also escaped inside JSON text),
  forms and URLs, and `Bearer …` / `Basic …` credentials anywhere;
- in URLs: the userinfo is dropped and secret-looking query values are masked.

A masked value keeps its last four characters when it is long enough to spare them (`Bearer ••••1a2b`), to
tell two tokens apart. Text joined from several pieces (content items) is masked after joining, so a
secret split across items is caught where a view shows it whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from mcpx.wire.secret_rules import (
    CREDENTIAL,
    CREDENTIAL_HEADERS,
    ESCAPED_FIELD,
    FORM_FIELD,
    HARMLESS_HEADERS,
    JSON_FIELD,
    MASK,
    MIN_FRAGMENT,
    MIN_LITERAL,
    SECRET_FIELDS,
    SHORTENED_HEADERS,
    URL_PATTERN,
    harmless_header,
    hinted,
    looks_secret,
    mask,
    mask_url,
    run_end,
    run_start,
    shorten,
    spellings,
    url_secrets,
)

__all__ = ["HARMLESS_HEADERS", "MASK", "RULES", "SecretPolicy", "mask", "mask_url"]


#: `SecretPolicy.value()` remembers its verdicts on dict values up to this long, this many of them
LEAF_MEMO_CHARS = 256
LEAF_MEMO_SIZE = 2048
_UNSEEN = object()
_SCALARS = frozenset({int, float, bool, type(None)})
#: dicts of at most this many items have their verdict remembered whole (`SecretPolicy._nested`)
DICT_MEMO_ITEMS = 32


class SecretPolicy:
    """The masking rules plus the secret values this session knows (`literals`)."""

    def __init__(self, literals: Iterable[str] = (), secret_headers: Iterable[str] = ()) -> None:
        self._literals: set[str] = set()
        self._ordered: list[str] = []
        self.secret_headers: frozenset[str] = CREDENTIAL_HEADERS
        #: `value()`'s verdicts on the short strings of dicts, by key: the masked text, or None for "as it
        #: is". Facts repeat the same names and header values event after event (a recording masks every
        #: event's), and each verdict is a scan for every known secret; kept while `generation` holds
        self._leaves: dict[tuple[str | None, str], str | None] = {}
        self._leaves_under: tuple[object, object] = (None, None)
        self.add(*literals)
        self.name_headers(secret_headers)

    # -- learning ------------------------------------------------------------------------------------
    @property
    def literals(self) -> list[str]:
        """Every spelling of every known secret, longest first."""
        return list(self._ordered)

    @property
    def generation(self) -> tuple[object, object]:
        """A token that is a new pair of objects whenever masking could come out otherwise (a secret learned,
        a header named secret): what a cache of masked text compares, by identity, to know it still holds."""
        return (self._ordered, self.secret_headers)

    def add(self, *values: str) -> None:
        """Know these secret values (each in all its spellings) from now on."""
        new = False
        for value in values:
            if not isinstance(value, str) or len(value) < MIN_LITERAL or MASK in value:
                continue
            for form in spellings(value):
                if form not in self._literals:
                    self._literals.add(form)
                    new = True
        if new:
            self._ordered = sorted(self._literals, key=len, reverse=True)

    def name_headers(self, names: Iterable[str]) -> None:
        """Header names the user calls secret (`--secret-header`): masked in both directions."""
        self.secret_headers = self.secret_headers | {n.strip().lower() for n in names if n.strip()}

    def learn_headers(self, headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        """Request headers: every value not on the harmless list is a secret from now on."""
        items = headers.items() if isinstance(headers, Mapping) else headers
        for name, value in items:
            if not isinstance(value, str):
                continue
            if not harmless_header(name) or name.lower() in self.secret_headers:
                scheme, sep, rest = value.partition(" ")
                self.add(value, *([rest] if sep and scheme.isalpha() else []))

    def learn_env(self, env: Mapping[str, str]) -> None:
        """Environment values whose names look secret."""
        self.add(*(v for k, v in env.items() if isinstance(v, str) and looks_secret(k)))

    def learn_url(self, url: str) -> None:
        self.add(*url_secrets(url))

    def learn_target(
        self,
        *,
        env: Mapping[str, str] = {},
        headers: Mapping[str, str] = {},
        secret_headers: Iterable[str] = (),
        url: str | None = None,
        inherited: bool = False,
    ) -> None:
        """Everything a server is started or reached with; `inherited`: the server also gets mcpx's own
        environment (a stdio server), whose secret-looking values it may echo."""
        self.name_headers(secret_headers)
        if inherited:
            self.learn_env(os.environ)
        self.learn_env(env)
        self.learn_headers(headers)
        if url:
            self.learn_url(url)

    # -- masking -------------------------------------------------------------------------------------
    def text(self, raw: str) -> str:
        """`raw` with every secret in it masked (the same string object when there is none)."""
        if hinted(raw.lower()):
            raw = JSON_FIELD.compiled.sub(lambda m: m.group(1) + mask(m.group(2)) + m.group(3), raw)
            raw = ESCAPED_FIELD.compiled.sub(lambda m: m.group(1) + (MASK if m.group(2) else ""), raw)
            raw = FORM_FIELD.compiled.sub(lambda m: m.group(1) + mask(m.group(2)), raw)
            raw = CREDENTIAL.compiled.sub(lambda m: m.group(1) + mask(m.group(2)), raw)
        if "://" in raw and ("@" in raw or "=" in raw):
            raw = URL_PATTERN.compiled.sub(lambda m: mask_url(m.group(0)), raw)
        for literal in self._ordered:
            if literal in raw:
                raw = raw.replace(literal, mask(literal))
        return raw

    def untouched(self, text: str) -> bool:
        """True when `text()` leaves `text` as it is, and so every piece of it too: none of the words, URLs
        or known values it masks occurs in it. A relay asks once for a read of many frames, not per frame."""
        if hinted(text.lower()) or ("://" in text and ("@" in text or "=" in text)):
            return False
        return not any(literal in text for literal in self._ordered)

    def fragments(self, line: str) -> str:
        """`line` with the pieces of known secrets that a wrap cut off masked: a run of text that ends with
        the start of a secret (at least `MIN_FRAGMENT` characters), or begins with its end, where the run
        meets a space or a box-drawing border. A screen wraps a long secret over two lines, so neither
        line holds it whole and `text()` cannot see it; this is for drawn lines, never for the wire."""
        if not self._ordered:
            return line
        spans: list[tuple[int, int]] = []
        for literal in self._ordered:
            head, tail = literal[:MIN_FRAGMENT], literal[-MIN_FRAGMENT:]
            start = line.find(head)
            while start != -1:  # a start of the secret running to the end of its run
                end = run_end(line, start)
                if 0 < end - start < len(literal) and literal.startswith(line[start:end]):
                    spans.append((start, end))
                start = line.find(head, start + 1)
            found = line.find(tail)
            while found != -1:  # the end of the secret, from the start of its run
                end, begin = found + MIN_FRAGMENT, run_start(line, found)
                if 0 < end - begin < len(literal) and literal.endswith(line[begin:end]):
                    spans.append((begin, end))
                found = line.find(tail, found + 1)
        if not spans:
            return line
        chars = list(line)
        for begin, end in spans:
            chars[begin:end] = "•" * (end - begin)  # the same width: a drawn line keeps its layout
        return "".join(chars)

    def header(self, name: str, value: str, *, request: bool) -> str:
        """One header's value as shown: request headers masked unless harmless; credentials always."""
        low = name.lower()
        if low in self.secret_headers or (request and not harmless_header(low)):
            return mask(value)
        if low in SHORTENED_HEADERS:
            return shorten(value)
        if low in ("location", "content-location"):
            return self.text(mask_url(value))
        return self.text(value)

    def headers(
        self, headers: Mapping[str, str] | Iterable[tuple[str, str]], *, request: bool
    ) -> dict[str, str]:
        """Headers as a plain dict (names as given, repeated headers joined), masked."""
        items = headers.items() if isinstance(headers, Mapping) else headers
        out: dict[str, str] = {}
        for name, value in items:
            shown = self.header(name, value, request=request)
            out[name] = f"{out[name]}, {shown}" if name in out else shown
        return out

    def url(self, url: str) -> str:
        return self.text(mask_url(url))

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        return {k: mask(v) if looks_secret(k) else self.text(v) for k, v in env.items()}

    def error(self, exc: BaseException) -> BaseException:
        """Mask an error's sentence and details in place (an mcpx error quoting a URL, a server's text)."""
        message = getattr(exc, "message", None)
        if isinstance(message, str):
            masked = self.text(message)
            if masked is not message:
                exc.message = masked  # type: ignore[attr-defined]
                exc.args = (masked, *exc.args[1:])
        details = getattr(exc, "details", None)
        if isinstance(details, dict):
            exc.details = self.value(details)  # type: ignore[attr-defined]
        return exc

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        """A copy of `facts` with secrets masked (the same dict when there is none)."""
        masked = self.value(facts)
        return masked if isinstance(masked, dict) else facts

    def value(self, value: Any, key: str | None = None) -> Any:
        """Any JSON-like value with secrets masked in its strings (the same object when there is none)."""
        if isinstance(value, str):
            if key is not None:
                lowered = key.lower()
                if lowered in self.secret_headers or lowered in SECRET_FIELDS:
                    return mask(value)
                if key.isupper() and looks_secret(key):  # an environment variable's name
                    return mask(value)
            return self.text(value)
        if isinstance(value, dict):
            leaves = self._leaves
            if self._leaves_under[0] is not self._ordered or self._leaves_under[1] is not self.secret_headers:
                leaves.clear()
                self._leaves_under = (self._ordered, self.secret_headers)
            out: dict[Any, Any] | None = None
            for k, v in value.items():
                name = k if isinstance(k, str) else None
                if type(v) is str and len(v) <= LEAF_MEMO_CHARS:  # (in line: most of a dict's values)
                    found = leaves.get((name, v), _UNSEEN)
                    if found is _UNSEEN:
                        masked = self.value(v, name)
                        found = None if masked is v else masked
                        if len(leaves) >= LEAF_MEMO_SIZE:
                            leaves.clear()
                        leaves[(name, v)] = found
                    if found is None:
                        continue
                    new = found
                elif type(v) in _SCALARS:  # (a number, a flag, null: nothing to mask, no call made)
                    continue
                else:
                    new = self._nested(v, name, leaves)
                    if new is v:
                        continue
                if out is None:
                    out = dict(value)
                out[k] = new
            return value if out is None else out
        if isinstance(value, (list, tuple)):
            items = [self.value(v, key) for v in value]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                return items
            return value
        return value

    def _nested(self, value: Any, key: str | None, leaves: dict[Any, Any]) -> Any:
        """`value(value, key)` for a value inside a dict; a small dict of scalars (an HTTP fact's headers,
        the same event after event) has its verdict remembered whole, as a dict's short strings do."""
        if type(value) is not dict or len(value) > DICT_MEMO_ITEMS:
            return self.value(value, key)
        try:
            memo = (key, tuple(value.items()))
            found = leaves.get(memo, _UNSEEN)  # (hashing it raises for a list or a dict inside)
        except TypeError:
            return self.value(value, key)
        if found is _UNSEEN:
            masked = self.value(value, key)
            found = None if masked is value else masked
            if len(leaves) >= LEAF_MEMO_SIZE:
                leaves.clear()
            leaves[memo] = found
        return value if found is None else dict(found)  # (a copy: whoever gets it may keep it)


#: a policy with no known values, for text that belongs to no session (it still masks by the rules)
RULES = SecretPolicy()
