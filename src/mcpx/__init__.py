"""mcpx — a terminal inspector and debugger for MCP servers.

`import mcpx` stays light: the names below load on first use, so scripts that only need the client
never pay for the CLI or the TUI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpx.__about__ import __version__

if TYPE_CHECKING:
    from mcpx.protocol.client import Client
    from mcpx.protocol.connect import connect
    from mcpx.target import ServerSpec
    from mcpx.wire.traffic import TrafficEvent, TrafficLog

_LAZY = {
    "connect": "mcpx.protocol.connect",
    "Client": "mcpx.protocol.client",
    "ServerSpec": "mcpx.target",
    "TrafficLog": "mcpx.wire.traffic",
    "TrafficEvent": "mcpx.wire.traffic",
}

__all__ = ["Client", "ServerSpec", "TrafficEvent", "TrafficLog", "__version__", "connect"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcpx' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
