"""Kept for imports written before `mcpx.target`: a target is a plain value on the ground floor now, and
`mcpx.transports.open_transport()` opens one."""

from mcpx.target import TRANSPORT_NAMES, ServerSpec, TransportName, is_url, resolve_target

__all__ = ["TRANSPORT_NAMES", "ServerSpec", "TransportName", "is_url", "resolve_target"]
