"""One traffic event as one line of the recording format, and back.

The recording format (`docs/recording-format.md`) is owned by `mcpx.record`, but its event line lives here,
on the wire floor, because the traffic log itself writes and reads it: old events spill to an on-disk log
in this format (`mcpx.wire.spill`). Keeping the one codec here means a spilled event and a recorded event
are the same bytes, and a reader of either decodes them the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

from mcpx.wire.jsonrpc import decode_text
from mcpx.wire.traffic import CHANNELS, DIRECTIONS, TrafficEvent


def dumps(obj: Any) -> bytes:
    """One line of compact JSON (with its newline); never raises on odd values in facts."""
    try:
        return orjson.dumps(obj, default=str, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        # orjson refuses integers over 64 bits and lone surrogates: the stdlib writes both
        return json.dumps(obj, default=str, separators=(",", ":")).encode("utf-8") + b"\n"


def event_obj(
    event: TrafficEvent,
    started_mono: float,
    raw: str,
    facts: dict[str, Any],
    redacted: bool,
) -> dict[str, Any]:
    """One event line. `raw` and `facts` are passed in already masked by the caller."""
    obj: dict[str, Any] = {
        "seq": event.seq,
        # to the microsecond; round(x, 6) costs 3 µs (it goes through decimal strings), this 0.1 µs
        "t": round((event.mono - started_mono) * 1e6) / 1e6,
        "wall": round(event.wall * 1e6) / 1e6,
        "direction": event.direction,
        "channel": event.channel,
        "raw": raw,
    }
    if facts:
        obj["facts"] = facts
    if event.flags:
        obj["flags"] = list(event.flags)
    if redacted:
        obj["redacted"] = True
    return obj


_EMPTY_RAW = b',"raw":""}\n'


def plain_lines(
    events: list[TrafficEvent], started_mono: float, other: Callable[[TrafficEvent], bytes]
) -> bytes:
    """The lines of `events`, joined: an event with facts or flags by `other`, any other event as
    `dumps(event_obj(event, started_mono, event.raw, {}, False))` writes it, byte for byte (for a `raw`
    with nothing to mask). Those (a relay's usual frame) are put together from a template of the fields
    they share with the one before (a read's frames share their time, direction and channel) instead of
    a dict each."""
    out: list[bytes] = []
    key: tuple[float, float, str, str] | None = None
    middle = b""
    dump = orjson.dumps
    for event in events:
        if event.facts or event.flags:
            out.append(other(event))
            continue
        if key != (event.mono, event.wall, event.direction, event.channel):
            key = (event.mono, event.wall, event.direction, event.channel)
            middle = dumps(event_obj(event, started_mono, "", {}, False))  # {"seq":…,"t":…,…,"raw":""}\n
            middle = middle[middle.index(b",") : -len(_EMPTY_RAW)]  # ,"t":…,"channel":"…"
        try:
            out.append(b'{"seq":%d%s,"raw":%s}\n' % (event.seq, middle, dump(event.raw)))
        except TypeError:  # a lone surrogate: the stdlib writes it
            out.append(dumps(event_obj(event, started_mono, event.raw, {}, False)))
    return b"".join(out)


def event_from_line(line: bytes, seq: int, started_mono: float) -> TrafficEvent:
    """The event a line holds, as the recording reader rebuilds it: `raw` decoded again with the live
    decoder, the recorded flags kept. The links to other events (request, response, latency, method)
    are not in the line: the caller supplies them. A line that is not an event (it was checked when it
    was indexed, so only a file changed underneath can do this) becomes an `info` event saying so."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        obj = None
    if not isinstance(obj, dict):
        return TrafficEvent(seq, started_mono, 0.0, "info", "protocol", "(this event could not be read back)")
    raw = obj.get("raw")
    direction = obj.get("direction")
    channel = obj.get("channel")
    if not isinstance(raw, str) or direction not in DIRECTIONS or channel not in CHANNELS:
        return TrafficEvent(seq, started_mono, 0.0, "info", "protocol", "(this event could not be read back)")
    t, wall, facts, flags = obj.get("t"), obj.get("wall"), obj.get("facts"), obj.get("flags")
    message = None
    if direction != "info" and channel != "stderr":
        message = decode_text(raw).message
    return TrafficEvent(
        seq,
        started_mono + (float(t) if isinstance(t, (int, float)) else 0.0),
        float(wall) if isinstance(wall, (int, float)) else 0.0,
        direction,
        channel,
        raw,
        message,
        facts if isinstance(facts, dict) else {},
        [str(f) for f in flags] if isinstance(flags, list) else [],
    )
