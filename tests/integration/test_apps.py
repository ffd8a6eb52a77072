"""MCP Apps against @modelcontextprotocol/server-pdf (an Apps server, pinned in package.json): a client that
declares the extension says so in its handshake; tools' UI links and visibility are read; the app's
ui:// resource is HTML of the app profile with its CSP and permissions."""

from __future__ import annotations

import pytest
from call_harness import ROOT

from mcpx.protocol import apps
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.session import open_session
from mcpx.target import ServerSpec

pytestmark = pytest.mark.npm
BIN = ROOT / "node_modules" / ".bin" / "mcp-pdf-server"


@pytest.mark.skipif(not BIN.exists(), reason="npm test peers not installed (npm ci)")
async def test_apps_links_and_the_app_resource() -> None:
    spec = ServerSpec(command=[str(BIN), "--stdio"])
    options = SessionOptions(era="legacy", timeout=30.0, extensions={apps.APPS_EXTENSION: apps.capability()})
    client = open_session(spec, options)
    async with client:
        links = {link.tool: link for t in await client.list_tools() if (link := apps.app_link(t))}
        display = links["display_pdf"]
        assert display.resource_uri == "ui://pdf-viewer/mcp-app.html" and not display.app_only
        assert links["save_pdf"].app_only and links["save_pdf"].resource_uri is None
        read = await client.request("resources/read", {"uri": display.resource_uri})
        facts = apps.app_resource_facts(read["contents"][0])
    assert facts["is_app"] and facts["size"] > 1000
    assert "https://unpkg.com" in facts["csp"]["connectDomains"] and "clipboardWrite" in facts["permissions"]
    sent = next(e for e in client.traffic if e.method == "initialize" and e.direction == "out")
    assert '"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}' in sent.raw
