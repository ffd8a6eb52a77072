"""The TUI on a recording: read-only, the scrubber, the browsers as of a moment, and saving a session."""

from __future__ import annotations

from textual.app import App

from mcpx.tui.app import READ_ONLY_REASON, make_app
from mcpx.tui.settings import InspectSettings
from mcpx.wire.traffic import TrafficLog

SIZE = (120, 40)


async def test_read_only_app_refuses_to_send_with_a_sentence() -> None:
    app = make_app(settings=InspectSettings(), traffic=TrafficLog(), read_only=True)
    notes: list[str] = []
    original = App.notify

    def notify(self: App[object], message: str, **kwargs: object) -> None:
        notes.append(message)
        original(self, message, **kwargs)  # type: ignore[arg-type]

    app.notify = notify.__get__(app)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        assert app.read_only
        app.action_ping()
        await pilot.press("r")
        await pilot.pause()
    assert notes == [f"Not sent: {READ_ONLY_REASON}", f"No reconnect: {READ_ONLY_REASON}"]
