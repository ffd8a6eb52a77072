"""MCP Apps in the TUI, against @modelcontextprotocol/server-pdf (an Apps server, pinned in package.json):
`advertise_apps` (`mcpx inspect --advertise-apps`) declares the extension through the session options; a
tool's detail shows its `ui://` link and marks app-only tools; reading the app resource shows its size,
MIME type, CSP domains and permissions, saves the HTML and opens it in the browser `$BROWSER` names (a
private temp file). On the scripted server: a non-HTML resource offers neither, and a snapshot of a tool's
detail with its app link."""

from __future__ import annotations

import io
import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from call_scenes import open_tool
from rich.console import Console
from scripted import TOOLS, Script, quiet, scripted_app, settle, wait_for
from test_tui_results_live import CONNECT, SIZE, select
from textual.app import App, ComposeResult
from textual.content import Content
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static
from typer.testing import CliRunner

from mcpx.protocol import apps
from mcpx.target import ServerSpec
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.catalogue.resource_panel import ResourcePanel
from mcpx.tui.results.app_view import AppResourceView, remove_temp_html
from mcpx.tui.results.content_view import ResourceContentsView, TextBody
from mcpx.tui.results.save_screen import SaveScreen
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import make_app
from mcpx.tui.widgets.browser import open_in_browser

ROOT = Path(__file__).resolve().parents[3]
PDF = ROOT / "node_modules" / ".bin" / "mcp-pdf-server"
VIEWER = "ui://pdf-viewer/mcp-app.html"


def text_of(static: Static) -> str:
    """What a Static shows, as plain text."""
    content = static.content
    if isinstance(content, (str, Content)):
        return str(content)
    console = Console(width=140, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


@pytest.mark.npm
@pytest.mark.skipif(not PDF.exists(), reason="npm test peers not installed (npm ci)")
async def test_app_links_and_the_app_resource(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a "browser" that writes down the URL it was given: proof the command ran, and with what
    opened = tmp_path / "opened.txt"
    recorder = f"import sys, pathlib; pathlib.Path({json.dumps(str(opened))}).write_text(sys.argv[1])"
    monkeypatch.setenv("BROWSER", f"{sys.executable} -c '{recorder}' %s")
    settings = InspectSettings(protocol_era="legacy", timeout=30.0, advertise_apps=True)
    app = make_app(ServerSpec(command=[str(PDF), "--stdio"]), settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.catalog.tools is not None, CONNECT)
        sent = next(e for e in app.traffic if e.method == "initialize" and e.direction == "out")
        assert f'"{apps.APPS_EXTENSION}":{{"mimeTypes":["{apps.APP_MIME}"]}}' in sent.raw

        detail = app.query_one(ItemDetail)
        await open_tool(pilot, app, "display_pdf")
        body = text_of(detail.query_one("#detail-body", Static))
        assert "App (MCP Apps)" in body and VIEWER in body and "model, app" in body
        assert "app only" not in text_of(detail.query_one("#detail-title", Static))
        await open_tool(pilot, app, "save_pdf")
        assert "app only" in text_of(detail.query_one("#detail-title", Static))
        assert "never offered to the model" in text_of(detail.query_one("#detail-body", Static))

        await select(pilot, app, "resources", VIEWER)
        panel = app.query_one(ResourcePanel)
        panel.query_one("#resource-read", Button).press()
        # the view once composed (is_mounted): it is in the DOM before its facts are (NoMatches under load)
        await wait_for(
            pilot,
            lambda: any(v.is_mounted for v in panel.query(AppResourceView)) and bool(panel.query(TextBody)),
        )
        view = panel.query_one(AppResourceView)
        html = panel.query_one(ResourceContentsView).contents["text"]
        assert view.html == html.encode() and len(view.html) > 1_000_000
        facts = text_of(view.query_one(".app-facts", Static))
        size = text_of(panel.query_one(".resource-facts", Static))
        assert apps.APP_MIME in size and "4.1 MB" in size
        for said in ("MCP App", "CSP connect", "https://unpkg.com", "CSP resource", "clipboardWrite"):
            assert said in facts, facts

        view.query_one("#app-save", Button).press()
        await wait_for(pilot, lambda: isinstance(app.screen, SaveScreen))
        assert app.screen.query_one("#save-path", Input).value.endswith("mcp-app.html")
        saved = tmp_path / "viewer.html"
        app.screen.query_one("#save-path", Input).value = str(saved)
        await pilot.press("enter")
        await wait_for(pilot, lambda: saved.exists())
        assert saved.read_bytes() == view.html and stat.S_IMODE(saved.stat().st_mode) == 0o600

        view.query_one("#app-open", Button).press()
        await wait_for(pilot, lambda: opened.exists())
        written = view.opened_path
        assert written is not None and opened.read_text() == written.as_uri()
        assert written.read_bytes() == view.html
        assert stat.S_IMODE(written.stat().st_mode) == 0o600
        assert stat.S_IMODE(written.parent.stat().st_mode) == 0o700
        # what runs at exit: the page does not stay in /tmp after mcpx
        remove_temp_html()
        assert not written.parent.exists()


async def test_browser_commands() -> None:
    assert await open_in_browser("file:///x", {"BROWSER": "/no/such/browser"}) == (
        "/no/such/browser: No such file or directory"
    )
    # the first that starts wins; each one that fails is said
    assert await open_in_browser("file:///x", {"BROWSER": "false:true %s"}) is None
    assert await open_in_browser("file:///x", {"BROWSER": "false:false"}) == (
        "false exited with 1; false exited with 1"
    )
    assert "SSH" in (await open_in_browser("file:///x", {"SSH_TTY": "/dev/pts/1"}) or "")


APP_TOOL: dict[str, Any] = {
    "name": "show_chart",
    "title": "Chart",
    "description": "Draws the forecast as a chart in its own interface.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
    "_meta": {"ui": {"resourceUri": "ui://weather/chart.html", "visibility": ["model", "app"]}},
}
APP_ONLY_TOOL: dict[str, Any] = {
    "name": "refresh_chart",
    "description": "Called by the chart to redraw.",
    "inputSchema": {"type": "object"},
    "_meta": {"ui": {"visibility": ["app"]}},
}


CHART: dict[str, Any] = {
    "uri": "ui://weather/chart.html",
    "mimeType": apps.APP_MIME,
    "text": "<!doctype html><p>chart</p>",
    "_meta": {
        "ui": {"permissions": ["camera", "microphone"], "domain": "chart.example", "prefersBorder": True}
    },
}


def apps_script() -> Script:
    return Script(tools=[*TOOLS, APP_TOOL, APP_ONLY_TOOL])


class Contents(App[None]):
    """Resource contents as a read shows them, without a server: an app's HTML and a JSON file."""

    def compose(self) -> ComposeResult:
        yield ResourceContentsView(CHART)
        yield ResourceContentsView({"uri": "weather://cities", "mimeType": "application/json", "text": "[]"})
        yield ResourceContentsView({"uri": "https://example.com/", "mimeType": "text/html", "text": "<p>"})


async def test_only_app_html_offers_save_and_open() -> None:
    app = Contents()
    told: list[Notification] = []

    def hear(message: Message) -> None:
        if isinstance(message, Notify):
            told.append(message.notification)

    async with app.run_test(message_hook=hear) as pilot:
        views = list(app.query(ResourceContentsView))
        await wait_for(pilot, lambda: all(v.is_mounted for v in views))
        chart, cities, page = views
        assert chart.query(AppResourceView) and chart.query("#app-open")
        assert not cities.query(AppResourceView) and not page.query(AppResourceView)  # HTML outside ui://
        facts = " ".join(text_of(chart.query_one(".app-facts", Static)).split())
        for said in (
            "CSP (none declared",
            "permissions camera, microphone",
            "domain chart.example",
            "border true",
        ):
            assert said in facts, facts
        # BROWSER=false (tests/conftest.py): the command runs and fails; the user is told where the file is
        view = chart.query_one(AppResourceView)
        view.query_one("#app-open", Button).press()
        await wait_for(pilot, lambda: view.opened_path is not None and view.opened_path.exists())
        assert view.opened_path is not None and view.opened_path.read_text() == CHART["text"]
        await wait_for(pilot, lambda: any("Not opened: false exited with 1" in n.message for n in told))
        assert any(str(view.opened_path) in n.message for n in told)


def test_tool_detail_with_its_app_link(snap_compare: Any) -> None:
    session = scripted_app(apps_script())

    async def run_before(pilot: Pilot[Any]) -> None:
        app = session.app
        await settle(pilot, app)
        await open_tool(pilot, app, "show_chart")
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=(130, 36), run_before=run_before)


def test_inspect_advertise_apps_reaches_the_session_options(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcpx.tui as tui_app
    from mcpx.cli.main import app as cli
    from mcpx.tui.settings import session_options

    seen: list[InspectSettings] = []
    monkeypatch.setattr(tui_app, "run_inspect", lambda spec, **kw: seen.append(kw["settings"]) or 0)
    for flags in ([], ["--advertise-apps"]):
        result = CliRunner().invoke(cli, ["inspect", __file__, *flags])  # never started
        assert result.exit_code == 0, result.output
    plain, declaring = (session_options(settings).extensions for settings in seen)
    assert plain == {} and declaring == {apps.APPS_EXTENSION: {"mimeTypes": [apps.APP_MIME]}}


def test_workspace_advertise_apps_reaches_every_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """With no TARGET (a workspace), `--advertise-apps` and the era reach the options every server opens with."""
    import mcpx.tui as tui_app
    from mcpx.cli.main import app as cli
    from mcpx.workspace.manager import Workspace

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"one": {"command": sys.executable, "args": [__file__]}}}))
    seen: list[Workspace] = []
    monkeypatch.setattr(tui_app, "run_workspace", lambda workspace, **kw: seen.append(workspace) or 0)
    for flags in ([], ["--advertise-apps", "--protocol-era", "legacy"]):
        result = CliRunner().invoke(cli, ["inspect", "--config", str(config), *flags])  # never started
        assert result.exit_code == 0, result.output
    plain, declaring = (workspace.options for workspace in seen)
    assert plain.extensions == {} and plain.connect_timeout == 30.0
    assert declaring.extensions == {apps.APPS_EXTENSION: {"mimeTypes": [apps.APP_MIME]}}
    assert declaring.era == "legacy"
