"""Pilot tests of the resource panel against the SDK-based `tests/servers/sdk_resources.py`, in both
eras: read text and a blob (its size, type, dimensions, Save…), subscribe, and see an update arrive
(legacy: resources/subscribe; modern: subscriptions/listen).
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from scripted import wait_for
from test_tui_results_live import CONNECT, SIZE, select
from textual.widgets import Button, Input, Static

from mcpx.transports.spec import resolve_target
from mcpx.tui.catalogue.resource_panel import ResourcePanel
from mcpx.tui.results.content_view import MediaBody, ResourceContentsView, TextBody
from mcpx.tui.results.save_screen import SaveScreen
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import InspectApp, make_app

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "tests" / "servers" / "sdk_resources.py"


def resources_app(era: str) -> InspectApp:
    spec = resolve_target(str(SERVER), [])
    return make_app(spec, settings=InspectSettings(protocol_era=era, timeout=30.0))


def shown(widget: Any) -> str:
    return str(widget.render())


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_subscribe_and_see_updates(era: str) -> None:
    app = resources_app(era)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session.state == "connected", CONNECT)
        await select(pilot, app, "resources", "memo://note")
        panel = app.query_one(ResourcePanel)
        panel.query_one("#resource-subscribe", Button).press()
        await wait_for(pilot, lambda: panel.subscribed)
        assert str(panel.query_one("#resource-subscribe", Button).label) == "Unsubscribe"
        method = "resources/subscribe" if era == "legacy" else "subscriptions/listen"
        assert any(e.method == method and e.direction == "out" for e in app.traffic)
        assert app.client is not None
        await app.client.call_tool("touch", {"uri": "memo://note"})
        updates = panel.query_one("#resource-updates", Static)
        await wait_for(pilot, lambda: "1 update" in shown(updates))
        assert "notifications/resources/updated" in shown(updates)

        panel.query_one("#resource-read", Button).press()
        await wait_for(pilot, lambda: bool(panel.query(TextBody)))
        contents = panel.query_one(ResourceContentsView).contents
        assert contents["mimeType"] == "text/markdown"
        assert "version 2" in contents["text"]

        panel.query_one("#resource-subscribe", Button).press()
        await wait_for(pilot, lambda: not panel.subscribed)


async def test_read_a_blob_and_save_it(tmp_path: Path) -> None:
    app = resources_app("legacy")
    async with app.run_test(size=SIZE) as pilot:
        await select(pilot, app, "resources", "memo://logo")
        panel = app.query_one(ResourcePanel)
        panel.query_one("#resource-read", Button).press()
        await wait_for(pilot, lambda: bool(panel.query(MediaBody)))
        media = panel.query_one(MediaBody)
        assert (media.info.sniffed, media.info.width, media.info.height) == ("image/png", 2, 2)
        await wait_for(pilot, lambda: bool(media.query(".save-media")))
        media.query_one(".save-media", Button).press()
        await wait_for(pilot, lambda: isinstance(app.screen, SaveScreen))
        target = tmp_path / "logo.png"
        path_input = app.screen.query_one("#save-path", Input)
        path_input.value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.exists())
        assert target.read_bytes() == media.payload
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert stat.S_IMODE(target.stat().st_mode) == 0o600  # a server's bytes: the owner's only
