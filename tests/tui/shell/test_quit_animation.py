"""An animation asked for while the app quits leaves nothing waiting (shell/animator.py).

`await pilot.press("q")` hung in test_the_tui_first_screen_from_the_installed_wheel although the app had
quit (loop ended, return code 0): a tab relabelled by a late count (the server's last stderr lines) had
queued `Tabs`' slide of its underline on the screen, which ran it at its next idle, just after the animator
had stopped. The animation was registered with no clock to move it, the animator's "all complete" event
stayed cleared, and Pilot waits on that event after every key. Here the same slide is asked for once the
loop has ended.
"""

from __future__ import annotations

import asyncio

from textual.widgets import TabbedContent
from textual.widgets._tabs import Underline

from mcpx.tui.shell.app import make_app


async def test_an_animation_asked_for_after_the_app_quit_ends_at_once() -> None:
    app = make_app()  # the log viewer: the inspector's screen and tabs, no server to start
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        underline = app.query_one("#traffic-tabs", TabbedContent).query_one(Underline)
        place = underline.highlight_end
        assert place > 0, "the active tab is underlined"

        app.exit()
        for _ in range(500):
            if not app.is_running:
                break  # the loop has ended: the animator is stopped
            await asyncio.sleep(0.01)
        assert not app.is_running

        # what `Tabs` asks for after a relabel (`move_underline`): a 0.3 s slide back under the tab
        underline.highlight_end = 0
        underline.animate("highlight_end", place, duration=0.3, level="basic")
        assert underline.highlight_end == place, "no clock will move it: it ends at once"

        await asyncio.wait_for(app.animator.wait_until_complete(), 5)
        await asyncio.wait_for(pilot.press("q"), 10)  # what hung: Pilot waits for the animations after a key
