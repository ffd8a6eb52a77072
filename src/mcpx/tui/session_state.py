"""What the screen shows about the connection, as plain immutable data (no Textual here).

The app holds one `SessionState` and one `Lists` in reactives; widgets bind to them. A new value replaces
the old one whole, so a watcher always sees a consistent picture.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcpx.protocol.names import LIST_NAMES, LISTS, ListName
from mcpx.protocol.types import Prompt, Resource, ResourceTemplate, Tool

State = Literal["idle", "connecting", "connected", "closing", "exited", "disconnected", "failed", "closed"]
#: a browser tab: one of the server's lists, spelled as MCP spells it (`mcpx.protocol.names`)
ItemKind = ListName
KINDS: tuple[ItemKind, ...] = LIST_NAMES
#: which server capability each browser tab needs
CAPABILITY: dict[ItemKind, str] = {name: spec.capability for name, spec in LISTS.items()}


@dataclass(frozen=True, slots=True)
class SessionState:
    """The connection as the header and the death banner show it."""

    state: State = "idle"
    #: how the server is reached: the command line or the URL
    target: str = ""
    #: 1 for the first connection, +1 for each reconnect
    attempt: int = 0
    server_name: str = ""
    server_version: str = ""
    server_title: str | None = None
    era: str | None = None
    protocol_version: str | None = None
    transport: str | None = None
    #: seconds from starting to connect to the end of the handshake
    connect_seconds: float | None = None
    #: exit code of a stdio server that ended
    returncode: int | None = None
    #: one sentence: why the connection ended or failed
    error: str | None = None
    stderr_tail: tuple[str, ...] = ()
    #: an OAuth sign-in for this server: "signed in as CLIENT · expires HH:MM" (None: no OAuth)
    signed_in: str | None = None

    @property
    def is_dead(self) -> bool:
        return self.state in ("exited", "disconnected", "failed")

    @property
    def state_label(self) -> str:
        if self.state == "exited":
            code = self.returncode
            if code is not None and code < 0:
                try:
                    return f"server killed by {signal.Signals(-code).name}"
                except ValueError:
                    return f"server killed by signal {-code}"
            return f"server exited with code {code}" if code is not None else "server exited"
        if self.state == "failed":
            return "could not connect"
        if self.state == "closing":
            return "stopping the server…"
        return self.state


@dataclass(frozen=True, slots=True)
class Lists:
    """What the server offers, per browser tab; None while a list has not arrived."""

    tools: tuple[Tool, ...] | None = None
    resources: tuple[Resource, ...] | None = None
    resourceTemplates: tuple[ResourceTemplate, ...] | None = None
    prompts: tuple[Prompt, ...] | None = None
    #: tab → why it is disabled (a capability the server lacks, or the error the list request got)
    unavailable: dict[ItemKind, str] = field(default_factory=dict)

    def with_items(self, kind: ItemKind, items: tuple[Any, ...]) -> Lists:
        """A copy with the list of one tab replaced."""
        return replace(self, **{kind: items})  # type: ignore[arg-type]

    def items(self, kind: ItemKind) -> tuple[Any, ...] | None:
        value: tuple[Any, ...] | None = getattr(self, kind)
        return value


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What the Info view shows: instructions, both sides' capabilities, the opening exchange, the process."""

    instructions: str | None = None
    server_info: dict[str, Any] = field(default_factory=dict)
    server_capabilities: dict[str, Any] = field(default_factory=dict)
    client_info: dict[str, Any] = field(default_factory=dict)
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    #: the handshake (or discover) frames as they crossed the wire: (direction, method, raw text)
    exchange: tuple[tuple[str, str, str], ...] = ()
    #: what the transport says about itself: command, pid, cwd, URL…
    transport: dict[str, Any] = field(default_factory=dict)
    #: sentences worth showing (version fallback, deviations)
    notes: tuple[str, ...] = ()
