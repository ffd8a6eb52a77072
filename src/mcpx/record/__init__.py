"""Recordings: the format, the recorder (a tap on the traffic log), the reader, redaction, replay against
a server, the mock server and the catalogue diff. `docs/recording-format.md` describes the file.

    recorder = start_recording("session.mcpx.jsonl", client.traffic, spec)   # writes as it happens
    recording = read_recording("session.mcpx.jsonl")                         # .log, .header, .problems

Names load on first use so that `mcpx call --record` pays only for the writer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpx.record.format import FORMAT_VERSION, RecordingError
    from mcpx.record.mock import MockServer
    from mcpx.record.reader import Recording, RecordingLoader, open_recording, read_recording
    from mcpx.record.replay import ReplayReport, replay
    from mcpx.record.writer import Recorder, recording_path, start_recording

_LAZY = {
    "FORMAT_VERSION": "mcpx.record.format",
    "RecordingError": "mcpx.record.format",
    "MockServer": "mcpx.record.mock",
    "Recording": "mcpx.record.reader",
    "read_recording": "mcpx.record.reader",
    "open_recording": "mcpx.record.reader",
    "RecordingLoader": "mcpx.record.reader",
    "ReplayReport": "mcpx.record.replay",
    "replay": "mcpx.record.replay",
    "Recorder": "mcpx.record.writer",
    "recording_path": "mcpx.record.writer",
    "start_recording": "mcpx.record.writer",
}

__all__ = [
    "FORMAT_VERSION",
    "MockServer",
    "Recorder",
    "Recording",
    "RecordingError",
    "RecordingLoader",
    "ReplayReport",
    "open_recording",
    "read_recording",
    "recording_path",
    "replay",
    "start_recording",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcpx.record' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
