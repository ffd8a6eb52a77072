"""A key as the terminal driver delivers it, timed until the app is quiet: shared by the TUI benchmarks'
child processes (`tui_catalogue.py`, `tui_keys.py`), which put this folder on their PYTHONPATH.

Why not Pilot's `press`: it waits for the screen by posting a callback to every widget on it and then for
idle, twice per key, which costs ~35–40 ms of CPU on mcpx's screen and nothing on a small one; a real key
wakes only the widgets it concerns.
"""

import asyncio
import time

from textual import events

#: the nodes of each screen, listed once per key (walking ~180 of them at each look cost ~8 ms a key)
NODES = {}


def busy(app):
    # reads only: nothing queued on the app or any node of its screen, nothing waiting to be laid out or drawn
    screen = app.screen
    nodes = NODES.get(screen)
    if nodes is None:
        nodes = NODES[screen] = [app, *screen.walk_children(with_self=True)]
    if any(not n._message_queue.empty() for n in nodes):
        return True
    return bool(
        screen._layout_required or screen._repaint_required or screen._dirty_widgets or screen._callbacks
    )


async def settle(app, quiet=0.1):
    # -> CPU time once nothing happened for `quiet` seconds (the polling itself costs well under 1 ms; a key
    # handled between two looks is still counted, as the count runs to the end)
    last = time.perf_counter()
    while True:
        await asyncio.sleep(0.01)
        if busy(app):
            last = time.perf_counter()
        elif time.perf_counter() - last > quiet:
            return time.process_time()


async def key(app, name, character=None):
    # as the terminal driver delivers a key; -> (wall s, CPU s) until the app is quiet
    NODES.clear()
    w, c = time.perf_counter(), time.process_time()
    app._driver.send_message(events.Key(name, character))
    cpu = await settle(app)
    return (time.perf_counter() - w, cpu - c)
