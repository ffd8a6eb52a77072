"""MCP itself: lenient types, the eras, a symmetric JSON-RPC peer and the client the faces use.

Names load on first use: servers built on the peer (the demo, the mock) need not import pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpx.protocol.auto import AutoEra
    from mcpx.protocol.client import Client
    from mcpx.protocol.connect import connect
    from mcpx.protocol.eras import LegacyEra, Opened
    from mcpx.protocol.facade import Session
    from mcpx.protocol.modern import ModernEra
    from mcpx.protocol.options import SessionOptions
    from mcpx.protocol.peer import Peer
    from mcpx.protocol.session import open_session

_LAZY = {
    "AutoEra": "mcpx.protocol.auto",
    "Client": "mcpx.protocol.client",
    "connect": "mcpx.protocol.connect",
    "LegacyEra": "mcpx.protocol.eras",
    "Opened": "mcpx.protocol.eras",
    "ModernEra": "mcpx.protocol.modern",
    "Peer": "mcpx.protocol.peer",
    "Session": "mcpx.protocol.facade",
    "SessionOptions": "mcpx.protocol.options",
    "open_session": "mcpx.protocol.session",
}
__all__ = [
    "AutoEra",
    "Client",
    "LegacyEra",
    "ModernEra",
    "Opened",
    "Peer",
    "Session",
    "SessionOptions",
    "connect",
    "open_session",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcpx.protocol' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
