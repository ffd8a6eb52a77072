"""`mcpx inspect --attach [NAME]`: watch a session that `mcpx proxy` is relaying, as it happens.

A proxied session is recorded as it happens, so watching it is replaying its recording while it grows:
the replay view (read-only: nothing is sent to a session that belongs to a host) reads the file on from
where it stopped while the proxy still runs, and the moment follows the newest event until the user
moves it. A session that has ended opens the same way, as the recording it is.

The attach view is that replay view (a `ReplayApp`, not a subclass of it) with a `LiveLabel` under the
header (LIVE, then ENDED when the proxy stops) and the Check tab, which judges what was seen (nothing is
sent into a host's session).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from mcpx.proxy.sessions import SessionEntry
from mcpx.record.reader import open_recording
from mcpx.tui.attach.live_label import LiveLabel
from mcpx.tui.replay.replay_app import FIRST_EVENTS, ReplayApp
from mcpx.tui.settings import InspectSettings

#: seconds a session just started has to write its recording's first line
HEADER_WAIT = 5.0


def _wait_for_header(path: Path, entry: SessionEntry) -> None:
    deadline = time.monotonic() + HEADER_WAIT
    while entry.live and time.monotonic() < deadline:
        try:
            with path.open("rb") as file:
                if file.readline().endswith(b"\n"):
                    return
        except FileNotFoundError:
            pass
        time.sleep(0.05)


def make_attach_app(entry: SessionEntry, *, settings: InspectSettings | None = None) -> ReplayApp:
    """The replay view on `entry`'s recording, following it while the session is live."""
    _wait_for_header(entry.recording, entry)
    loader = open_recording(entry.recording, follow=lambda: entry.live)
    loader.load(FIRST_EVENTS)
    app = ReplayApp(
        loader,
        settings=settings if settings is not None else InspectSettings(),
        live=LiveLabel(entry, id="attach-live"),
        hidden_tabs=("history-tab", "roots-tab"),  # Check stays: it judges what was seen, sending nothing
    )
    app.title = "mcpx attach"
    app.sub_title = f"{entry.name} ({'live' if entry.live else 'ended'}): {os.fspath(entry.recording)}"
    return app


def run_attach(entry: SessionEntry, *, settings: InspectSettings | None = None) -> int:
    """Run the TUI on a proxied session (`mcpx.proxy.sessions.find_session`) until the user quits."""
    app = make_attach_app(entry, settings=settings if settings is not None else InspectSettings.load())
    result = app.run()
    return result if isinstance(result, int) else (app.return_code or 0)
