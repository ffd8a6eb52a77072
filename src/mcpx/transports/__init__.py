"""Transports move frames and report their own facts into the traffic log; `open_transport()` is the
one way a target (`mcpx.target.ServerSpec`) becomes one."""

from mcpx.target import ServerSpec, resolve_target
from mcpx.transports.base import ProtocolVersionAware, Transport
from mcpx.transports.open import open_transport
from mcpx.transports.stdio import StdioTransport

__all__ = [
    "ProtocolVersionAware",
    "ServerSpec",
    "StdioTransport",
    "Transport",
    "open_transport",
    "resolve_target",
]
