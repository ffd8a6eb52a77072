"""The demo's resources: text, JSON, binary (an image and a sound), one that changes on a timer (subscribe
to it to see updates pushed), and two templates whose variables complete (one with more than 100 values,
so a client sees `hasMore`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcpx.demo import media
from mcpx.demo.core import Context, McpServer, Resource, ResourceTemplate, blob_contents, text_contents
from mcpx.demo.tools import DAYS, forecast_for

TICKER = "demo://ticker"
CITIES = (
    "Amsterdam",
    "Athens",
    "Berlin",
    "Bordeaux",
    "Brussels",
    "Lisbon",
    "London",
    "Lyon",
    "Madrid",
    "Marseille",
    "Milan",
    "Oslo",
    "Paris",
    "Porto",
    "Prague",
    "Rome",
    "Vienna",
    "Warsaw",
    "Zurich",
)
USERS = tuple(f"u{n:03d}" for n in range(1, 151))

README = """# mcpx demo server

A real MCP server that ships inside mcpx, to show every client feature:

- **tools** with rich input schemas, structured output (and a mismatch), progress, logging,
  elicitation (form and URL), sampling, roots, and a tool that adds tools;
- **resources**: this text, JSON, an image, a sound, a ticker you can subscribe to;
- **templates** `demo://weather/{city}/{day}` and `demo://users/{user_id}` with completion;
- **prompts** with arguments, completion, embedded resources and images.

Run `mcpx demo --misbehave MODE` to watch mcpx report a server that breaks the rules.
"""


class Ticker:
    """A counter that moves every `interval` seconds and tells whoever watches `demo://ticker`."""

    def __init__(self, server: McpServer, interval: float) -> None:
        self.server = server
        self.interval = interval
        self.count = 0

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self.count += 1
            if TICKER in self.server.push.watched_uris:
                await self.server.push.resource_updated(TICKER)

    async def read(self, ctx: Context) -> list[dict[str, Any]]:
        return [text_contents(TICKER, f"tick {self.count} (every {self.interval:g} s)")]


def matching(values: tuple[str, ...], typed: str) -> list[str]:
    typed = typed.lower()
    return [v for v in values if v.lower().startswith(typed)] or [v for v in values if typed in v.lower()]


def complete_day(typed: str, chosen: dict[str, str]) -> list[str]:
    # context-aware: once a city is chosen, only days it has a forecast for (the next three)
    days = DAYS[:3] if chosen.get("city") else DAYS
    return matching(("today", "tomorrow", *days), typed)


def register(server: McpServer, *, tick: float = 2.0) -> Ticker:
    async def readme(ctx: Context) -> list[dict[str, Any]]:
        return [text_contents("demo://readme", README, "text/markdown")]

    async def config(ctx: Context) -> list[dict[str, Any]]:
        data = {"server": server.info, "era": ctx.era, "revision": ctx.version, "tick_seconds": tick}
        return [text_contents("demo://config.json", json.dumps(data, indent=2), "application/json")]

    async def logo(ctx: Context) -> list[dict[str, Any]]:
        return [blob_contents("demo://logo.png", media.b64(media.logo_png()), "image/png")]

    async def beep(ctx: Context) -> list[dict[str, Any]]:
        return [blob_contents("demo://beep.wav", media.b64(media.beep_wav()), "audio/wav")]

    async def weather(variables: dict[str, str], ctx: Context) -> list[dict[str, Any]]:
        data = forecast_for(variables["city"], "celsius")
        data["day"] = variables["day"]
        uri = f"demo://weather/{variables['city']}/{variables['day']}"
        return [text_contents(uri, json.dumps(data, indent=2), "application/json")]

    async def user(variables: dict[str, str], ctx: Context) -> list[dict[str, Any]]:
        user_id = variables["user_id"]
        profile = {"id": user_id, "name": f"Demo user {user_id[1:]}", "known": user_id in USERS}
        return [text_contents(f"demo://users/{user_id}", json.dumps(profile), "application/json")]

    ticker = Ticker(server, tick)
    for resource in (
        Resource(
            "demo://readme",
            "readme",
            readme,
            title="README",
            mime_type="text/markdown",
            description="What the demo server offers.",
            size=len(README.encode()),
            annotations={"audience": ["user"], "priority": 1.0},
            icons=media.icons(),
        ),
        Resource(
            "demo://config.json",
            "config",
            config,
            title="Configuration",
            mime_type="application/json",
            description="JSON text, including the era this very read was served in.",
        ),
        Resource(
            "demo://logo.png",
            "logo",
            logo,
            title="Logo",
            mime_type="image/png",
            description="A binary resource (blob).",
            size=len(media.logo_png()),
        ),
        Resource(
            "demo://beep.wav",
            "beep",
            beep,
            title="Beep",
            mime_type="audio/wav",
            description="A short sound (blob).",
            size=len(media.beep_wav()),
        ),
        Resource(
            TICKER,
            "ticker",
            ticker.read,
            title="Ticker",
            mime_type="text/plain",
            description=f"Changes every {tick:g} s: subscribe to it to receive updates.",
        ),
    ):
        server.add_resource(resource)
    server.add_template(
        ResourceTemplate(
            "demo://weather/{city}/{day}",
            "weather",
            weather,
            title="Weather by city and day",
            mime_type="application/json",
            description="Made-up weather; city and day complete.",
            complete={"city": lambda typed, chosen: matching(CITIES, typed), "day": complete_day},
        )
    )
    server.add_template(
        ResourceTemplate(
            "demo://users/{user_id}",
            "user",
            user,
            title="User profile",
            mime_type="application/json",
            description="150 users: completion returns at most 100 values and says there are more.",
            complete={"user_id": lambda typed, chosen: matching(USERS, typed)},
        )
    )
    server.background(ticker.run)
    return ticker
