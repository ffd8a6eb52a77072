"""An animation asked for while the app leaves ends at once instead of waiting forever for a stopped clock.

Textual's animator stops when the app's message loop ends (`q`, ctrl+c, `App.exit`), but the widgets keep
handling what is already queued until the app shuts them down. One of them asking for an animation then
(a tab relabelled by a late count, as the server's last stderr lines arrive: `Tabs` slides its underline 20 ms
and a refresh after the relabel) registers it with an animator whose timer is gone, and clears its "all
animations complete" event for good. Whatever waits on that event waits forever: Textual's Pilot does after
every key (`App._press_keys` → `Animator.wait_until_complete`), so `await pilot.press("q")` hung after the app
had quit (test_the_tui_first_screen_from_the_installed_wheel, 4 of 10 runs in the installed wheel's venv
once start-up's imports moved after the first screen and the CPU was busy when `q` came).

`install` gives an app an animator that, once stopped, sets the animated attribute to its final value and
runs the completion callback, as the animation's end would have: nothing is left pending.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual._animator import Animator

if TYPE_CHECKING:
    from textual.app import App


class LeavingAnimator(Animator):
    """Textual's animator, except that an animation asked for after `stop` ends at once."""

    def __init__(self, app: App[Any], frames_per_second: int = 60) -> None:
        super().__init__(app, frames_per_second)
        self.stopped = False

    async def start(self) -> None:
        self.stopped = False
        await super().start()

    async def stop(self) -> None:
        self.stopped = True  # first: an animation asked for while the timer stops ends at once too
        await super().stop()

    def animate(self, obj: object, attribute: str, value: Any, **options: Any) -> None:
        if not self.stopped:
            super().animate(obj, attribute, value, **options)
            return
        # no timer will move it (a `delay` would be a timer too): the end of the animation, now
        final_value = options.get("final_value", ...)
        setattr(obj, attribute, value if final_value is ... else final_value)
        on_complete = options.get("on_complete")
        if on_complete is not None:
            self.app.call_later(on_complete)


def install(app: App[Any]) -> None:
    """Give `app` a `LeavingAnimator` (call in its `__init__`, before it runs)."""
    app._animator = LeavingAnimator(app)
    app._animate = app._animator.bind(app)
