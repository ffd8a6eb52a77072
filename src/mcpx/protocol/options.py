"""`SessionOptions`: everything about *how* to talk to a server, in one frozen value checked once.

The target says *which* server (`mcpx.target.ServerSpec`); these options say how: the protocol era and
version, the timeouts, extra HTTP headers and a sign-in, and what mcpx answers when the server asks
(roots, elicitation, sampling). `open_session(target, options)` (in `session`) is the one way faces and
features turn the two into a client. Variations are new values: `dataclasses.replace(options, …)`.

Building one checks everything at once — an unknown era, a version mcpx does not know or one of the
other era, a negative probe timeout — and raises `UsageError` with one sentence, before any server starts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from mcpx.errors import UsageError
from mcpx.protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS, era_of

if TYPE_CHECKING:
    from mcpx.protocol.eras import Era
    from mcpx.wire import TrafficLog

EraName = Literal["legacy", "auto", "modern"]
#: the eras `--protocol-era` accepts, in the order help texts give them
ERA_NAMES: tuple[EraName, ...] = get_args(EraName)
#: what answers one thing the server asks (elicitation, sampling): the params in, the result out
ServerRequestHandler = Callable[[Any], Awaitable[Any]]
#: builds the `httpx.Auth` of a URL server from the traffic log (e.g. `mcpx.auth.oauth_for(url)`)
AuthFactory = Callable[["TrafficLog"], Any]


def check_era(era: str, version: str | None = None) -> EraName:
    """The era `era` and `version` ask for together (a version pins its era), or one sentence why not."""
    if era not in ERA_NAMES:
        raise UsageError(f"--protocol-era must be legacy, auto or modern, not {era!r}")
    if version is None:
        return era
    pinned = era_of(version)
    if pinned is None:
        known = ", ".join((*MODERN_VERSIONS, *LEGACY_VERSIONS))
        raise UsageError(f"--protocol-version {version!r} is not a revision mcpx knows ({known})")
    if era not in ("auto", pinned):
        raise UsageError(f"--protocol-version {version} belongs to the {pinned} era, not {era}")
    return pinned  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """How to talk to a server (the server itself is the target)."""

    #: legacy (initialize handshake), modern (2026-07-28, no handshake) or auto (probe, then fall back)
    era: EraName = "auto"
    #: one protocol revision to insist on (it pins its era); None: the newest mcpx speaks
    protocol_version: str | None = None
    #: seconds `auto` waits for `server/discover` before the handshake
    probe_timeout: float = 2.0
    #: seconds each answer may take (progress resets it); None (or 0 and less) waits forever
    timeout: float | None = 60.0
    #: seconds opening may take; None: `timeout`
    connect_timeout: float | None = None
    #: seconds one request may take in all, progress or not (a person's answer pauses it); None: no bound
    max_total_timeout: float | None = None
    #: HTTP headers on every request, over the target's own
    headers: Mapping[str, str] = field(default_factory=dict)
    #: the sign-in of a URL server; None: the target's own, if it has one
    auth: AuthFactory | None = None
    #: roots to offer (None: the roots capability is not declared)
    roots: list[dict[str, Any]] | None = None
    #: answers `elicitation/create` (None: the capability is not declared)
    on_elicit: ServerRequestHandler | None = None
    #: answers `sampling/createMessage` (None: the capability is not declared)
    on_sample: ServerRequestHandler | None = None
    #: the sampling capability declared with `on_sample` (None: `{}`)
    sampling: Mapping[str, Any] | None = None
    #: who mcpx says it is (None: mcpx and its version)
    client_info: Mapping[str, Any] | None = None
    #: client extensions declared under `capabilities.extensions` (name → settings), e.g. MCP Apps'
    extensions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_era(self.era, self.protocol_version)
        if self.probe_timeout < 0:
            raise UsageError(f"--probe-timeout must be 0 or more seconds, not {self.probe_timeout:g}")
        # one spelling of "forever": 0 and less mean no timeout, as `--timeout 0` always has
        if self.timeout is not None and self.timeout <= 0:
            object.__setattr__(self, "timeout", None)
        if self.connect_timeout is not None and self.connect_timeout <= 0:
            object.__setattr__(self, "connect_timeout", None)
        if self.max_total_timeout is not None and self.max_total_timeout <= 0:
            object.__setattr__(self, "max_total_timeout", None)

    @property
    def pinned_era(self) -> EraName:
        """The era these options speak before any probe: `era`, unless a version pinned another."""
        return check_era(self.era, self.protocol_version)

    def make_era(self, key: str | None = None) -> Era:
        """A fresh era strategy for one connection (`auto` remembers its verdict per server `key`)."""
        from mcpx.protocol.auto import make_era

        return make_era(self.era, self.protocol_version, probe_timeout=self.probe_timeout, key=key)

    def handlers(self) -> dict[str, Any]:
        """What the server may ask, as `Client` takes it."""
        return {
            "roots": self.roots,
            "on_elicit": self.on_elicit,
            "on_sample": self.on_sample,
            "sampling": dict(self.sampling) if self.sampling is not None else None,
        }


__all__ = ["ERA_NAMES", "AuthFactory", "EraName", "ServerRequestHandler", "SessionOptions", "check_era"]
