"""Transports move frames and report their own facts into the traffic log."""

from mcpx.transports.base import ProtocolVersionAware, Transport
from mcpx.transports.spec import ServerSpec, resolve_target
from mcpx.transports.stdio import StdioTransport

__all__ = ["ProtocolVersionAware", "ServerSpec", "StdioTransport", "Transport", "resolve_target"]
