"""Opening a page in the user's browser from the TUI, only where that opens it in front of them.

Over SSH a browser would open on the remote machine, if anywhere; on Linux without a display Python's
choice is a text browser, which would take over the terminal the TUI draws on. `$BROWSER` is the user's
own choice and is run as named (it may forward the page to their machine).
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from collections.abc import Mapping

from mcpx.wire.waiting import within

#: seconds a browser command may run before it counts as started (a first Firefox runs until closed)
BROWSER_WAIT = 5.0
_CONSOLE_BROWSERS = ("lynx", "links", "elinks", "w3m", "www-browser", "browsh")


def browser_refusal(environ: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    """Why mcpx should not start a browser here (None: it may)."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if environ.get("SSH_CONNECTION") or environ.get("SSH_TTY") or environ.get("SSH_CLIENT"):
        return "this is an SSH session: a browser would open on the remote machine, if anywhere"
    if platform.startswith("linux") and not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        return "there is no graphical display here (a text browser would take over the terminal)"
    return None


async def open_in_browser(url: str, environ: Mapping[str, str] | None = None) -> str | None:
    """Hand `url` to the browser; None when it was started, else why not.

    `$BROWSER` (commands separated by the path separator, `%s` for the URL) is run as named: the user chose
    it, and it may forward to another machine. Without it, Python's choice is used only where there is a
    display and it is not a text browser (one would take over the terminal the TUI is drawing on)."""
    environ = os.environ if environ is None else environ
    chosen = environ.get("BROWSER")
    if chosen:
        problems = []
        for entry in chosen.split(os.pathsep):
            words = shlex.split(entry)
            if not words:
                continue
            command = [w.replace("%s", url) for w in words] if "%s" in entry else [*words, url]
            problem = await _run(command)
            if problem is None:
                return None
            problems.append(problem)
        return "; ".join(problems) or "$BROWSER names no command"
    refusal = browser_refusal(environ)
    if refusal is not None:
        return refusal
    import webbrowser

    try:
        browser = webbrowser.get()
        name = str(getattr(browser, "name", "") or getattr(browser, "basename", "")).lower()
        if any(console in name for console in _CONSOLE_BROWSERS):
            return f"the browser found is a text one ({name}): it would take over this terminal"
        opened = await within(asyncio.to_thread(browser.open, url), BROWSER_WAIT * 2)
    except (webbrowser.Error, asyncio.TimeoutError, OSError) as exc:
        return f"no browser could be started ({exc or type(exc).__name__})"
    return None if opened else "no browser could be started"


async def _run(command: list[str]) -> str | None:
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,  # the browser outlives the TUI and never gets its Ctrl-C
        )
    except OSError as exc:
        return f"{command[0]}: {exc.strerror or exc}"
    try:
        code = await within(process.wait(), BROWSER_WAIT)
    except asyncio.TimeoutError:
        return None  # still running: a browser that stays in the foreground until it is closed
    return None if code == 0 else f"{command[0]} exited with {code}"


__all__ = ["browser_refusal", "open_in_browser"]
