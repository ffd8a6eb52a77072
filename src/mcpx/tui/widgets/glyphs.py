"""The glyphs the TUI draws for the traffic log's words: one table, read by every view that draws them
(the traffic log, problems, notifications, the event screen, the Info view, the scrubber) and by the
filter syntax, which accepts them (`dir:←`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from mcpx.wire.traffic import Direction

#: an event's direction: received from the server, sent by mcpx, a fact of the transport or process
ARROWS: Final[Mapping[Direction, str]] = {"in": "←", "out": "→", "info": "•"}
