"""The recording format: JSON Lines, a header line then one line per traffic event.

    {"mcpx_recording": 1, "mcpx_version": "0.1.0", "started": "2026-…Z", "target": {…}, "era": "auto", …}
    {"seq": 0, "t": 0.000412, "wall": 1767…, "direction": "info", "channel": "process", "raw": "spawned …"}
    {"seq": 3, "t": 0.231, "wall": 1767…, "direction": "in", "channel": "stdio", "raw": "{\"jsonrpc\":…}"}

`raw` is the frame exactly as it crossed the wire (masked where it held a secret, and then `redacted` is
true); the decoded message is not stored, the reader decodes `raw` again. `docs/recording-format.md` is
the reference. The version is bumped only for changes an older reader would misread; a reader takes every
version up to its own and refuses newer ones with a sentence.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from mcpx.errors import UsageError

# the event line is the wire floor's: the traffic log spills old events in this same format
from mcpx.wire.event_line import dumps, event_obj

__all__ = ["dumps", "event_obj"]

#: the key of the header line that names the format, and its current version
MAGIC = "mcpx_recording"
FORMAT_VERSION = 1
#: suffix of the files `MCPX_RECORD_DIR` collects
SUFFIX = ".mcpx.jsonl"
#: the environment variable naming a folder where every session is recorded
RECORD_DIR_ENV = "MCPX_RECORD_DIR"


class RecordingError(UsageError):
    """A file that cannot be read as a recording (not one, or from a newer mcpx)."""

    code = "recording"


def iso(wall: float) -> str:
    return _dt.datetime.fromtimestamp(wall, _dt.timezone.utc).isoformat().replace("+00:00", "Z")


def header_obj(
    *,
    mcpx_version: str,
    started_wall: float,
    target: dict[str, Any],
    transport: str,
    era: str,
    secrets: str,
    protocol_version: str | None = None,
) -> dict[str, Any]:
    """The first line of a recording."""
    return {
        MAGIC: FORMAT_VERSION,
        "mcpx_version": mcpx_version,
        "started": iso(started_wall),
        "started_wall": round(started_wall, 6),
        "target": target,
        "transport": transport,
        "era": era,
        "protocol_version": protocol_version,
        "secrets": secrets,
    }


def check_header(obj: Any, where: str) -> dict[str, Any]:
    """The header as a dict of the current version, or `RecordingError` with one sentence."""
    if not isinstance(obj, dict) or MAGIC not in obj:
        raise RecordingError(f"{where} is not an mcpx recording (its first line is not a recording header)")
    version = obj[MAGIC]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise RecordingError(f"{where} names recording format {version!r}, which is not a version number")
    if version > FORMAT_VERSION:
        from mcpx.__about__ import __version__

        raise RecordingError(
            f"{where} was written by a newer mcpx (recording format {version}, by mcpx "
            f"{obj.get('mcpx_version', '?')}); this mcpx {__version__} reads formats up to {FORMAT_VERSION}: "
            "upgrade mcpx to open it"
        )
    header = dict(obj)
    for old in range(version, FORMAT_VERSION):
        header = UPGRADES[old](header)
    return header


#: header upgrades, format N → N+1 (event lines are upgraded by `EVENT_UPGRADES`); none yet
UPGRADES: dict[int, Any] = {}
EVENT_UPGRADES: dict[int, Any] = {}
