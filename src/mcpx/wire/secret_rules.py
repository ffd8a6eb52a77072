"""The secret policy's rules, without any session's secrets: which header names are harmless, which field
and parameter names hold secrets, the patterns that find them in text, how a value is masked and spelt.

`SecretPolicy` (`secret_policy.py`) applies them together with the secret values a session has learnt;
the module docstring there says what is masked and why.
"""

from __future__ import annotations

import json
import re

# pathlib and urllib.parse (which loads ipaddress) cost ~9 and ~6 ms of CPU on top of asyncio's imports,
# and `mcpx call` over a pipe needs neither: the file functions (private_files.py) work in os.path's words,
# and the URL functions import urllib.parse when first called (a URL target's connection loads it anyway)

MASK = "••••"
#: request headers shown as they are: they carry no credential (everything else is masked)
HARMLESS_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-encoding",
        "content-length",
        "content-type",
        "host",
        "last-event-id",
        "mcp-method",
        "mcp-name",
        "mcp-protocol-version",
        "mcp-session-id",
        "origin",
        "pragma",
        "te",
        "transfer-encoding",
        "user-agent",
    }
)
#: `Mcp-Param-{Name}` headers mirror tool arguments that the body shows anyway
HARMLESS_PREFIXES = ("mcp-param-",)
#: headers whose values are credentials in either direction
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
SHORTENED_HEADERS = frozenset({"mcp-session-id"})
#: JSON fields (and form fields) holding OAuth secrets and passwords
SECRET_FIELDS = (
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "code_verifier",
    "client_assertion",
    "registration_access_token",
    "device_code",
    "subject_token",
    "password",
    "api_key",
    "apikey",
)


class LazyPattern:
    """A pattern compiled when first used: a run uses few of these (a `mcpx call` over stdio none but the
    env names'), and compiling them all at import cost every start-up ~1-2 ms."""

    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern, self._flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled


#: a query parameter whose value is a secret: api_key, key, token, access_token, secret, password, sig, code…
SECRET_PARAM_NAME = LazyPattern(
    r"^(?:.*[_.-])?(?:api_?key|key|token|secret|password|passwd|pwd|sig|signature|code|code_verifier"
    r"|verifier|assertion|credentials?|auth)$",
    re.IGNORECASE,
)
#: an environment variable whose name says it holds a secret (API_TOKEN, OPENAI_API_KEY, DB_PASSWORD)
SECRET_ENV_NAME = re.compile(r"TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL|PASSPHRASE", re.IGNORECASE)
FIELDS_ALTERNATION = "|".join(SECRET_FIELDS)
JSON_FIELD = LazyPattern(rf'("(?:{FIELDS_ALTERNATION})"\s*:\s*")((?:[^"\\]|\\.)*)(")', re.IGNORECASE)
# the same inside JSON text carried in a JSON string: \"access_token\": \"…\" (any depth of escaping)
ESCAPED_FIELD = LazyPattern(rf'(\\+"(?:{FIELDS_ALTERNATION})\\+"\s*:\s*\\+")([^"\\]*)', re.IGNORECASE)
FORM_FIELD = LazyPattern(rf"(\b(?:{FIELDS_ALTERNATION})=)([^&\s\"'\\]+)", re.IGNORECASE)
CREDENTIAL = LazyPattern(r"(\b(?:Bearer|Basic)\s+)([A-Za-z0-9\-._~+/]{6,}=*)", re.IGNORECASE)
QUERY_PAIR = LazyPattern(r"(?P<lead>[?&;#]|^)(?P<name>[^=&;#\s]+)=(?P<value>[^&;#\s\"'<>]*)")
URL_PATTERN = LazyPattern(r"\bhttps?://[^\s\"'<>\\]+", re.IGNORECASE)
TAIL_OK = LazyPattern(r"[A-Za-z0-9._~+/=-]{4}")
#: known secret values shorter than this are not hunted in text (too many false hits)
MIN_LITERAL = 6


def mask(value: str) -> str:
    """`Bearer abcdef…1a2b` → `Bearer ••••1a2b`; short secrets show nothing of themselves."""
    if MASK in value:
        return value  # masked already
    scheme, sep, secret = value.partition(" ")
    if not sep or not scheme.isalpha():
        scheme, secret = "", value
    # four characters of a long secret help tell tokens apart; of a short one they give too much away
    tail = secret[-4:] if len(secret) >= 12 and TAIL_OK.compiled.fullmatch(secret[-4:]) else ""
    return f"{scheme} {MASK}{tail}" if scheme else f"{MASK}{tail}"


def shorten(value: str) -> str:
    """A session id, enough of it to tell sessions apart: `3f2a9c1e…`."""
    return value if len(value) <= 12 else value[:8] + "…"


def looks_secret(name: str) -> bool:
    """An environment variable (or config key) whose name says it holds a secret."""
    return bool(SECRET_ENV_NAME.search(name))


def secret_param(name: str) -> bool:
    """A URL query parameter (or form field) whose value is a secret."""
    from urllib.parse import unquote

    return bool(SECRET_PARAM_NAME.compiled.match(unquote(name)))


def harmless_header(name: str) -> bool:
    low = name.lower()
    return low in HARMLESS_HEADERS or low.startswith(HARMLESS_PREFIXES)


def mask_query(text: str) -> str:
    """`a=1&api_key=XYZ` → `a=1&api_key=••••` (a query string or a form body; other bytes kept)."""
    if "=" not in text:
        return text
    from urllib.parse import unquote

    def masked(match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("value")
        if value and MASK not in value and secret_param(name):
            value = mask(unquote(value))
        return f"{match.group('lead')}{name}={value}"

    return QUERY_PAIR.compiled.sub(masked, text)


def mask_url(url: str) -> str:
    """A URL without its userinfo and with secret-looking query values masked (a bare query string or
    form body gets its secret values masked)."""
    if "://" not in url:
        return mask_query(url)
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return mask_query(url)
    netloc = parts.netloc.rpartition("@")[2] if "@" in parts.netloc else parts.netloc
    query = mask_query(parts.query) if parts.query else parts.query
    fragment = mask_query(parts.fragment) if "=" in parts.fragment else parts.fragment
    if netloc == parts.netloc and query == parts.query and fragment == parts.fragment:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def url_secrets(url: str) -> list[str]:
    """The secret values a URL carries: its userinfo's password (and user) and secret query values."""
    from urllib.parse import unquote, urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[str] = []
    if parts.password:
        found.append(unquote(parts.password))
    if parts.username and parts.password:
        found.append(unquote(parts.username) + ":" + unquote(parts.password))
    for source in (parts.query, parts.fragment):
        for match in QUERY_PAIR.compiled.finditer(source):
            if match.group("value") and secret_param(match.group("name")):
                found.append(unquote(match.group("value")))
    return found


def spellings(value: str) -> set[str]:
    """How a value may be written in traffic: as is, JSON-escaped (once, twice), URL-encoded."""
    from urllib.parse import quote, quote_plus

    once = json.dumps(value)[1:-1]
    forms = {value, once, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(once)[1:-1]}
    forms.update({quote(value, safe=""), quote_plus(value, safe="")})
    return {form for form in forms if len(form) >= MIN_LITERAL}


#: how much of a secret's start or end, cut off by a wrap, is masked on a drawn line
MIN_FRAGMENT = 4


def breaks(char: str) -> bool:
    """Where a run of drawn text ends: white space, a box-drawing or block character (a widget's border)."""
    return char.isspace() or "\u2500" <= char <= "\u259f"


def run_end(line: str, start: int) -> int:
    end = start
    while end < len(line) and not breaks(line[end]):
        end += 1
    return end


def run_start(line: str, end: int) -> int:
    begin = end
    while begin > 0 and not breaks(line[begin - 1]):
        begin -= 1
    return begin


def hinted(low: str) -> bool:
    """A cheap first look: most frames hold none of these words and skip the regexes."""
    return (
        "_token" in low
        or "secret" in low
        or "bearer" in low
        or "basic" in low
        or "verifier" in low
        or "assertion" in low
        or "password" in low
        or "apikey" in low
        or "api_key" in low
        or "device_code" in low
    )
