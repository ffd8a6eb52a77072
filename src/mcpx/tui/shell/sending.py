"""What the inspector's screen sends when the user asks: ping, `logging/setLevel`, a raw frame.

Each asks the screen's context for the client (refused with the reason in a recording, or while not
connected) and runs in a `requests` worker of the screen, whose failures the screen reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpx.tui.traffic.traffic_panel import TrafficPanel
from mcpx.tui.widgets.formats import format_latency

if TYPE_CHECKING:
    from mcpx.protocol.client import Client
    from mcpx.tui.shell.inspect_screen import InspectScreen


def ping(screen: InspectScreen) -> None:
    client = screen.context.client_for(screen)
    if client is not None:
        screen.run_worker(_ping(screen, client), name="ping", group="requests", exit_on_error=False)


async def _ping(screen: InspectScreen, client: Client) -> None:
    clock = screen.context.clock
    started = clock()
    await client.ping()
    screen.notify(f"pong in {format_latency(clock() - started)}")


def set_log_level(screen: InspectScreen, level: str) -> None:
    client = screen.context.client_for(screen)
    if client is not None:
        screen.run_worker(
            _set_level(screen, client, level), name="logging/setLevel", group="requests", exit_on_error=False
        )


async def _set_level(screen: InspectScreen, client: Client, level: str) -> None:
    for panel in screen.query(TrafficPanel):
        panel.set_level(level)
    await client.set_logging_level(level)
    screen.notify(f"Log level set to {level}.")


def send_raw(screen: InspectScreen) -> None:
    """Ask for a frame (any text, malformed too) and send it as it is."""
    if screen.context.refused(screen, "Not sent"):
        return

    def send(text: str | None) -> None:
        client = screen.context.client_for(screen)
        if text is not None and client is not None:
            screen.run_worker(client.send_raw(text), name="send raw", group="requests", exit_on_error=False)
            for panel in screen.query(TrafficPanel):
                panel.show_traffic()

    from mcpx.tui.shell.raw_message_screen import RawMessageScreen

    screen.app.push_screen(RawMessageScreen(), send)
