"""`--record FILE`, `--record-secrets` and `MCPX_RECORD_DIR` for the commands that reach a server.

A command builds a `RecordingPlan` from its flags while it checks them (so an unwritable path fails
before any server starts), attaches it to the traffic log it creates (the recorder is a tap on the log),
and lets `run()` close the file however the command ends.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpx.errors import UsageError
from mcpx.record.format import RECORD_DIR_ENV
from mcpx.transports.spec import ServerSpec
from mcpx.wire.controls import escape_controls
from mcpx.wire.traffic import TrafficLog

RECORD_DIR = RECORD_DIR_ENV


def _say(text: str) -> None:
    sys.stderr.write(f"mcpx: {escape_controls(text)}\n")
    sys.stderr.flush()


@dataclass(slots=True)
class RecordingPlan:
    path: Path
    spec: ServerSpec
    era: str
    secrets: bool
    recorder: Any = field(default=None)

    @classmethod
    def from_flags(
        cls, record: str | None, secrets: bool, spec: ServerSpec, era: str
    ) -> RecordingPlan | None:
        """The recording the flags ask for (or `MCPX_RECORD_DIR` implies), or None."""
        directory = os.environ.get(RECORD_DIR)
        if record is None and not directory:
            if secrets:
                raise UsageError("--record-secrets needs --record FILE (or MCPX_RECORD_DIR)")
            return None
        if record is not None:
            path = Path(record).expanduser()
            if path.is_dir():
                raise UsageError(f"--record {record!r} is a directory; name a file")
            if not path.parent.exists():
                raise UsageError(f"--record {record!r}: the folder {str(path.parent)!r} does not exist")
        else:
            from mcpx.record.writer import recording_path

            try:
                path = recording_path(directory or ".", spec.label)
            except OSError as exc:
                raise UsageError(
                    f"{RECORD_DIR}={directory!r} cannot be used: {exc.strerror or exc}"
                ) from None
        return cls(path, spec, era, secrets)

    def attach(self, log: TrafficLog, on_error: Callable[[OSError], None] | None = None) -> None:
        """Start writing `log` to the file (events already in it first); a failed write goes to
        `on_error` (default: one line on stderr)."""
        from mcpx.record.writer import start_recording

        if self.secrets:
            _say(
                f"--record-secrets: {self.path} will hold tokens, cookies and secret environment values IN "
                "CLEAR; it is readable by you only, do not share it"
            )
        self.recorder = start_recording(
            self.path,
            log,
            self.spec,
            era=self.era,
            record_secrets=self.secrets,
            on_error=on_error or (lambda exc: _say(self.stopped(exc))),
        )

    def stopped(self, exc: OSError) -> str:
        """The sentence for a recording that could not go on."""
        return f"recording to {self.path} stopped: {exc.strerror or exc}"

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()

    async def run(self, coroutine: Coroutine[Any, Any, int]) -> int:
        """Await the command, then close the recording whatever happened."""
        try:
            return await coroutine
        finally:
            self.close()
