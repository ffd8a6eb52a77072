"""`LiveLabel`: the line under the header of `mcpx inspect --attach` that says whether the proxied
session is still being relayed (LIVE) or is over (ENDED, with the proxy's exit code).

It looks at the session's index (the proxy's pid, its end) twice a second while the session is live,
and stops looking once it has ended: a session never comes back to life.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from mcpx.proxy.sessions import SessionEntry

#: seconds between looks at a live session's index
LOOK_EVERY = 0.5


class LiveLabel(Static):
    """LIVE while the proxy relays the session, ENDED once it is over."""

    DEFAULT_CSS = """
    LiveLabel {
        height: 1;
        padding: 0 1;
        background: $success 30%;
        text-style: bold;
        &.-ended { background: $panel; color: $text-muted; text-style: none; }
    }
    """

    live: reactive[bool] = reactive(True, init=False)
    """The proxy still relays the session (its index has no end and its pid runs)."""

    def __init__(self, entry: SessionEntry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        self.set_reactive(LiveLabel.live, entry.live)

    def on_mount(self) -> None:
        self._render_state()
        if self.live:
            self._timer = self.set_interval(LOOK_EVERY, self._look)

    def _look(self) -> None:
        if self.entry.live:
            return
        self._timer.stop()
        self.entry = self.entry.refreshed()
        self.live = False

    def watch_live(self, live: bool) -> None:
        self._render_state()

    def _render_state(self) -> None:
        entry = self.entry
        self.set_class(not self.live, "-ended")
        if self.live:
            where = f" on {entry.listen}" if entry.listen else ""
            self.update(
                Text.assemble(
                    ("● LIVE", "bold"),
                    f"  {entry.name}: relayed by mcpx proxy{where} (pid {entry.pid}), growing as it "
                    "happens · read-only",
                )
            )
            return
        code = f" (exit {entry.exit_code})" if entry.exit_code is not None else ""
        self.update(
            Text.assemble(
                ("■ ENDED", "bold"), f"{code}  {entry.name}: the recording of a proxied session · read-only"
            )
        )
