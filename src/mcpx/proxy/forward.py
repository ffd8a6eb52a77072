"""Which of an HTTP host's request headers `mcpx proxy --listen` passes on to a URL target.

The host addressed its request to the proxy (`http://127.0.0.1:PORT`), not to the server behind it: the
target is another origin. So, as for a redirect to another origin (DESIGN.md: credentials never follow
one), nothing that may be a credential goes on unless the user names it:

- passed: what describes the message or the host and is harmless by the secret policy's own list —
  `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, `MCP-Protocol-Version` (the host's own, even a wrong one: the
  server answers it as it would answer the host), `User-Agent`, `Accept-Language`;
- never passed: `Authorization`, `Proxy-Authorization`, `Cookie` and every other header the secret policy
  masks (any name not on its harmless list: `X-Api-Key`, a tenant id…) — unless `--forward-header NAME`
  names it; the hop's own (`Host`, `Connection`, `Content-Length`, `Transfer-Encoding`, `TE`, …), what
  the proxy's transport sets for itself (`Accept`, `Content-Type`, `Accept-Encoding`), and what belongs
  to the host's connection with the proxy (`Origin`, `Mcp-Session-Id` — the proxy's session, not the
  server's —, `Last-Event-ID` — the proxy's stream).

The proxy's own `--header`/`--bearer` still go with every request and win over a passed header.
"""

from __future__ import annotations

from collections.abc import Iterable

#: passed on by default: they describe the message or the host and carry no credential
PASSED = frozenset({"mcp-method", "mcp-name", "mcp-protocol-version", "user-agent", "accept-language"})
PASSED_PREFIXES = ("mcp-param-",)
#: never passed, even when named: the hop's, the transport's or the proxy's own connection's
NEVER = frozenset(
    {
        "accept",
        "accept-encoding",
        "connection",
        "content-length",
        "content-type",
        "expect",
        "host",
        "keep-alive",
        "last-event-id",
        "mcp-session-id",
        "origin",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)


class HeaderFilter:
    """The host's headers that go on to the target: the default set plus the names the user gave."""

    def __init__(self, named: Iterable[str] = ()) -> None:
        self.named = frozenset(name.strip().lower() for name in named if name.strip())
        #: a header name as spelled -> its lower case if it passes, else None (a host sends the same
        #: few names request after request)
        self._verdicts: dict[str, str | None] = {}

    def passes(self, name: str) -> bool:
        low = name.lower()
        if low in NEVER:
            return False
        return low in PASSED or low.startswith(PASSED_PREFIXES) or low in self.named

    def __call__(self, headers: Iterable[tuple[str, str]]) -> dict[str, str]:
        passed: dict[str, str] = {}
        spelled: dict[str, str] = {}  # lower case -> the first spelling of the name, the key in `passed`
        verdicts = self._verdicts
        for name, value in headers:
            low = verdicts.get(name, "")
            if low == "":
                if len(verdicts) > 256:
                    verdicts.clear()
                low = verdicts[name] = name.lower() if self.passes(name) else None
            if low is None:
                continue
            # a repeated header is one list (RFC 9110 §5.3); the first spelling of its name is kept
            key = spelled.setdefault(low, name)
            passed[key] = f"{passed[key]}, {value}" if key in passed else value
        return passed


def refused_names(named: Iterable[str]) -> list[str]:
    """The names given to `--forward-header` that are never passed (said to the user, not ignored)."""
    return [name for name in named if name.strip().lower() in NEVER]
