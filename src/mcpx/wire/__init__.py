"""Bytes and JSON-RPC: lenient decoding and the traffic log. Knows nothing of MCP."""

from mcpx.wire.controls import escape_controls
from mcpx.wire.jsonrpc import (
    Decoded,
    ErrorResponse,
    JsonId,
    Malformed,
    Message,
    Notification,
    Request,
    Response,
    decode,
    encode,
)
from mcpx.wire.traffic import TrafficEvent, TrafficLog

__all__ = [
    "Decoded",
    "ErrorResponse",
    "JsonId",
    "Malformed",
    "Message",
    "Notification",
    "Request",
    "Response",
    "TrafficEvent",
    "TrafficLog",
    "decode",
    "encode",
    "escape_controls",
]
