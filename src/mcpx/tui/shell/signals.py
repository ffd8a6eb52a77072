"""SIGINT, SIGTERM and SIGHUP end the TUI the way `q` does, with the exit code 128 + the signal.

Without this a SIGTERM (or SIGHUP, the terminal going away) kills Python outright: Textual never leaves
application mode, so the terminal is left in the alternate screen with mouse reporting on and the cursor
hidden, and the server is not stopped in order. Here the signal becomes `app.exit(128 + n)` on the app's
loop: the app unmounts (its server is stopped) and Textual's driver restores the terminal on the way out.
A signal before the loop runs ends the process at once (the terminal is not touched yet); a second signal
while quitting gets the default action (mcpx's exit handlers still kill the server's process group).

Python-level handlers (not the loop's) so the whole of `app.run()` is covered, start-up included.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from textual.app import App

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextmanager
def exit_on_signals(app: App[Any]) -> Iterator[None]:
    """Around `app.run()`."""
    previous: dict[int, Any] = {}

    def received(signum: int, frame: FrameType | None) -> None:
        signal.signal(signum, previous[signum])  # a second one: the default action, no waiting
        try:
            loop = asyncio.get_running_loop()  # a signal handler runs on the main thread: the app's loop
        except RuntimeError:
            raise SystemExit(128 + signum) from None
        loop.call_soon_threadsafe(app.exit, 128 + signum)

    for signum in SIGNALS:
        previous[signum] = signal.signal(signum, received)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
