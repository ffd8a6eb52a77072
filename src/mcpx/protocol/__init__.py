"""MCP itself: lenient types, the eras, a symmetric JSON-RPC peer and the client the faces use."""

from mcpx.protocol.auto import AutoEra
from mcpx.protocol.client import Client
from mcpx.protocol.connect import connect
from mcpx.protocol.eras import LegacyEra, Opened
from mcpx.protocol.modern import ModernEra
from mcpx.protocol.peer import Peer

__all__ = ["AutoEra", "Client", "LegacyEra", "ModernEra", "Opened", "Peer", "connect"]
