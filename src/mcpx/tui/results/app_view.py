"""MCP Apps in the inspector: a tool's interface link, and an app's HTML with what it says of itself.

mcpx shows apps, it does not host them. A tool's detail says which `ui://` resource is its interface and
who may call it ("app only" tools are for the interface, never the model); an app resource read shows its
size, MIME type and `_meta.ui` (the CSP domains it may reach, the permissions it asks for, its domain and
border preference), with **Save HTML…** and **Open in browser**. Opening writes the HTML to a private temp
file (0600, in a 0700 folder) and hands its `file://` URI to the browser: outside a host its CSP is not
enforced and its calls to the host go unanswered, which the notification says. The temp folders go when mcpx
exits (a server's page is not left in /tmp for every later user session to find); Save HTML… keeps a copy.
"""

from __future__ import annotations

import asyncio
import atexit
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from mcpx.protocol import apps
from mcpx.schema.content import decode_base64, file_name
from mcpx.tui.widgets.browser import open_in_browser
from mcpx.tui.widgets.event_list_view import printable
from mcpx.tui.widgets.json_tree import size_label
from mcpx.wire.private_files import write_private


def is_app_html(contents: Any) -> bool:
    """Whether a resource contents item is an app's HTML: the app profile, or HTML behind a `ui://` URI."""
    if not isinstance(contents, Mapping):
        return False
    mime = contents.get("mimeType")
    if mime == apps.APP_MIME:
        return True
    uri = contents.get("uri")
    html = isinstance(mime, str) and mime.split(";")[0].strip().lower() == "text/html"
    return html and isinstance(uri, str) and uri.startswith("ui://")


def tool_app_rows(tool: Any) -> list[tuple[str, str]]:
    """The facts of a tool's interface link, for its detail (none: the tool has no app)."""
    link = apps.app_link(tool)
    if link is None:
        return []
    rows = [("UI resource", link.resource_uri or "(none: the tool has no interface of its own)")]
    if link.app_only:
        rows.append(("visibility", "app only — called by its interface, never offered to the model"))
    else:
        rows.append(("visibility", ", ".join(link.visibility)))
    return rows


def app_only(tool: Any) -> bool:
    link = apps.app_link(tool)
    return link is not None and link.app_only


def facts_grid(rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim", no_wrap=True)
    table.add_column()
    for label, value in rows:
        table.add_row(label, printable(value))
    return table


def _names(value: Any) -> str:
    """A list of strings, or an object's keys (permissions: `{"clipboardWrite": {}}`), joined."""
    if isinstance(value, Mapping):
        return ", ".join(str(k) for k in value) or "(none)"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    return str(value)


def app_rows(contents: Mapping[str, Any]) -> list[tuple[str, str]]:
    facts = apps.app_resource_facts(contents)
    # the MIME type and size are in the facts above it: this says what the HTML is, then what it asks for
    rows = [("app", "an MCP App's interface (a host runs it in a sandbox; mcpx shows it)")]
    csp = facts["csp"]
    if isinstance(csp, Mapping):
        for key, domains in csp.items():
            label = key.removesuffix("Domains") if key.endswith("Domains") else key
            rows.append((f"CSP {label}", _names(domains)))
    elif csp is not None:
        rows.append(("CSP", _names(csp)))
    else:
        rows.append(("CSP", "(none declared: no outside domain)"))
    rows.append(
        ("permissions", _names(facts["permissions"]) if facts["permissions"] is not None else "(none)")
    )
    for label, key in (("domain", "domain"), ("prefers border", "prefersBorder")):
        if facts[key] is not None:
            rows.append((label, str(facts[key]).lower() if isinstance(facts[key], bool) else str(facts[key])))
    return rows


def html_bytes(contents: Mapping[str, Any]) -> bytes:
    text = contents.get("text")
    if isinstance(text, str):
        return text.encode("utf-8", "replace")
    return decode_base64(contents.get("blob"))[0]


#: the folders `write_temp_html` made in this process, removed when it exits
_TEMP_FOLDERS: list[Path] = []


def write_temp_html(data: bytes, name: str) -> Path:
    """The HTML in a fresh private folder (0700) as a file only its owner reads (0600), removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="mcpx-app-"))
    if not _TEMP_FOLDERS:
        atexit.register(remove_temp_html)
    _TEMP_FOLDERS.append(folder)
    path = folder / name
    write_private(path, data)
    return path


def remove_temp_html() -> None:
    """Remove every folder `write_temp_html` made (the browser has long read the page by then)."""
    while _TEMP_FOLDERS:
        shutil.rmtree(_TEMP_FOLDERS.pop(), ignore_errors=True)


class AppResourceView(Vertical):
    """An app's HTML as read: what it is and asks for, Save HTML… and Open in browser."""

    DEFAULT_CSS = """
    AppResourceView { height: auto; margin-bottom: 1; }
    AppResourceView > .panel-buttons { height: auto; }
    AppResourceView > .panel-buttons > Button { margin-right: 1; }
    """

    def __init__(self, contents: Mapping[str, Any]) -> None:
        super().__init__(classes="app-resource")
        self.contents = contents
        self.html = html_bytes(contents)
        uri = contents.get("uri")
        name = file_name("app", "text/html", uri if isinstance(uri, str) else None)
        self.file_name = name if name.lower().endswith((".html", ".htm")) else f"{name}.html"
        #: where Open in browser last wrote the HTML (None: not opened yet)
        self.opened_path: Path | None = None

    def compose(self) -> ComposeResult:
        yield Static(facts_grid(app_rows(self.contents)), classes="app-facts")
        with Horizontal(classes="panel-buttons"):
            yield Button("Save HTML…", id="app-save", compact=True)
            yield Button("Open in browser", id="app-open", compact=True)

    @on(Button.Pressed, "#app-save")
    def save_html(self, event: Button.Pressed | None = None) -> None:
        if event is not None:
            event.stop()
        from mcpx.tui.results.save_screen import SaveScreen

        def saved(path: Any) -> None:
            if path is not None:
                self.notify(f"Saved {size_label(len(self.html))} of HTML to {path}")

        self.app.push_screen(SaveScreen(self.html, self.file_name, "HTML"), saved)

    @on(Button.Pressed, "#app-open")
    def open_html(self, event: Button.Pressed | None = None) -> None:
        if event is not None:
            event.stop()
        self.run_worker(self._open(), name="open-app", group="browser", exit_on_error=False)

    async def _open(self) -> None:
        try:
            path = await asyncio.to_thread(write_temp_html, self.html, self.file_name)
        except OSError as exc:
            self.notify(f"Cannot write the HTML: {exc.strerror or exc}", severity="error")
            return
        self.opened_path = path
        problem = await open_in_browser(path.as_uri())
        if problem is None:
            self.notify(
                f"Opened {path} in the browser (removed when mcpx exits): outside an MCP host its CSP "
                "is not enforced and its calls to the host go unanswered."
            )
        else:
            self.notify(
                f"Not opened: {problem}. The HTML is at {path} until mcpx exits (Save HTML… keeps a copy)",
                severity="warning",
                timeout=10,
            )


def app_link_section(tool: Any) -> RenderableType | None:
    """The tool detail's "App" section, or None for a tool without one."""
    rows = tool_app_rows(tool)
    return facts_grid(rows) if rows else None


__all__ = ["AppResourceView", "app_link_section", "app_only", "is_app_html"]
