"""How a check run connects and what it does: `CheckOptions`, the session a check connects with
(`check_session`), and the protocol revisions in order."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from mcpx.check.session import START_GRACE
from mcpx.protocol.options import EraName, SessionOptions
from mcpx.protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS
from mcpx.wire import TrafficLog

#: revisions oldest first (they are an enumerated set: order by this list, never by the strings)
REVISIONS: tuple[str, ...] = (*reversed(LEGACY_VERSIONS), *MODERN_VERSIONS)


def older(version: str, than: str) -> bool:
    """Whether revision `version` came before `than` (False when either is unknown)."""
    if version not in REVISIONS or than not in REVISIONS:
        return False
    return REVISIONS.index(version) < REVISIONS.index(than)


#: seconds a check waits for each answer when not told (a check never waits forever)
CHECK_TIMEOUT = 10.0


def check_session(
    session: SessionOptions | None = None, *, timeout: float | None = None, probe_timeout: float | None = None
) -> SessionOptions:
    """`session` (how the command connects: era, version, timeouts) as a check connects with it.

    Each answer gets `timeout` (else the session's, else `CHECK_TIMEOUT`: never forever). Opening, and
    auto's wait for `server/discover` (unless `probe_timeout` says), get at least a start-up's grace: a
    check is not in a hurry, and a slow-starting dual-era server must not pass for legacy.
    """
    session = session if session is not None else SessionOptions()
    timeout = timeout or session.timeout or CHECK_TIMEOUT
    grace = max(timeout, START_GRACE)
    return replace(
        session,
        timeout=timeout,
        connect_timeout=session.connect_timeout or grace,
        probe_timeout=probe_timeout or grace,
    )


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What a check run does; how it connects is `session`, the front door's options (see `check_session`)."""

    #: how to connect (era, version, timeouts): every connection of the run opens with these
    session: SessionOptions = field(default_factory=check_session)
    call_tools: bool = False
    all_tools: bool = False
    #: seconds to listen for frames that must not come (a reply to a notification, a late answer)
    quiet: float = 0.3
    #: seconds each tool call may take in all, progress or not (None: `timeout`)
    tool_timeout: float | None = None
    #: at most this many resources are read, and this many tools called
    max_reads: int = 25
    max_calls: int = 50

    @property
    def timeout(self) -> float:
        """Seconds to wait for each answer (the session's)."""
        return self.session.timeout or CHECK_TIMEOUT

    @property
    def protocol_era(self) -> EraName:
        """The era the main connection opens in (the session's)."""
        return self.session.era


#: told about each connection's traffic log as it is opened, with the label findings use for it
LogListener = Callable[[str, TrafficLog], None]
