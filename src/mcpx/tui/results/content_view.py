"""Content blocks and resource contents, rendered: shared by tool results, prompt messages and reads.

`ContentBlockView` shows one block of any type — text (as it is, whitespace kept; Markdown when its
MIME type says so or the user asks with "Show as Markdown"; JSON pretty-printed when it parses), image
and audio (MIME type, size, dimensions or duration, save; a small PNG also as a half-block preview),
`resource_link` (Open reads it with resources/read), an embedded `resource`, and its annotations.
`ResourceContentsView` shows one item of a resources/read result: text syntax-highlighted by MIME type,
a blob by size and type with Save. Long texts show a preview first.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.json import JSON
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Button, Static

from mcpx.schema.content import (
    MediaInfo,
    annotation_facts,
    audio_info,
    content_kind,
    decode_base64,
    file_name,
    image_info,
    text_format,
)
from mcpx.tui.context import InspectContext
from mcpx.tui.widgets.event_list_view import printable
from mcpx.tui.widgets.formats import format_latency
from mcpx.tui.widgets.json_tree import JsonTree, size_label

#: characters (and lines) of a text shown before "Show all" (the first paint of a 10 MB result stays fast)
PREVIEW_CHARS = 16_000
PREVIEW_LINES = 200


def preview_cut(text: str) -> int:
    """Where a long text's preview ends: `PREVIEW_CHARS` characters or `PREVIEW_LINES` lines at most."""
    end = min(len(text), PREVIEW_CHARS)
    newline = -1
    for _ in range(PREVIEW_LINES):
        newline = text.find("\n", newline + 1, end)
        if newline < 0:
            return end
    return newline


def facts_table(rows: list[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim", no_wrap=True)
    table.add_column()
    for label, value in rows:
        table.add_row(label, printable(value))
    return table


def syntax_for(text: str, mime_type: str | None, uri: str | None) -> RenderableType:
    """`text` highlighted by its MIME type (else by the URI's file name; else plain)."""
    from pygments.lexers import get_lexer_for_filename, get_lexer_for_mimetype
    from pygments.util import ClassNotFound

    lexer = None
    mime = (mime_type or "").split(";")[0].strip()
    try:
        lexer = get_lexer_for_mimetype(mime) if mime else None
    except ClassNotFound:
        lexer = None
    if lexer is None and uri:
        try:
            lexer = get_lexer_for_filename(uri.rsplit("/", 1)[-1])
        except ClassNotFound:
            lexer = None
    if lexer is None or lexer.name == "Text only":
        return Text(printable(text, multiline=True))
    from rich.syntax import Syntax  # here, not at import: Pygments is not needed before a file result

    return Syntax(text, lexer, theme="ansi_dark", background_color="default", word_wrap=True)


class TextBody(Vertical):
    """A text: formatted when short; a plain preview and "Show all" when long."""

    DEFAULT_CSS = """
    TextBody { height: auto; }
    TextBody > JsonTree { height: auto; max-height: 30; }
    """

    def __init__(self, text: str, *, mime_type: str | None = None, uri: str | None = None) -> None:
        super().__init__(classes="text-body")
        self.text = text
        self.mime_type = mime_type
        self.uri = uri

    def compose(self) -> ComposeResult:
        text = self.text
        cut = preview_cut(text)
        if cut < len(text):
            yield Static(Text(printable(text[:cut], multiline=True)), classes="text-preview")
            size = size_label(len(text.encode("utf-8", "replace")))
            yield Static(
                Text(f"… preview: the first {cut:,} of {len(text):,} characters ({size})", "dim"),
                classes="preview-note",
            )
            yield Button(f"Show all ({size})", classes="show-all", compact=True)
            return
        yield Static(self.formatted(text, self.mime_type, self.uri), classes="text")
        toggle = self.toggle(text, self.mime_type)
        if toggle is not None:
            yield toggle

    @on(Button.Pressed, ".markdown-toggle")
    def _toggle_markdown(self, event: Button.Pressed) -> None:
        event.stop()
        flip_markdown(self, self.text, event.button)

    @staticmethod
    def formatted(
        text: str, mime_type: str | None = None, uri: str | None = None, *, markdown: bool = False
    ) -> RenderableType:
        """A short text as it reads best: by MIME type, else JSON, else the text as it is (every space and
        newline kept). Markdown only when the MIME type says so or `markdown` (the user's toggle): a YAML
        result read as Markdown lost its newlines and indentation, and its `-` became bullets."""
        mime = (mime_type or "").split(";")[0].strip()
        if mime and mime not in ("text/plain", "text/markdown", "application/json"):
            return syntax_for(text, mime, uri)
        if markdown or mime == "text/markdown":
            from rich.markdown import Markdown  # here, not at import: markdown-it is ~35 ms of a start-up

            return Markdown(printable(text, multiline=True))
        form, value = text_format(text)
        if form == "json":
            try:
                return JSON.from_data(value, indent=2, default=repr)
            except (TypeError, ValueError, RecursionError):
                return Text(printable(text, multiline=True))
        return Text(printable(text, multiline=True))

    @staticmethod
    def toggle(text: str, mime_type: str | None = None) -> Button | None:
        """A button that renders the text as Markdown and back, for text that may be Markdown."""
        mime = (mime_type or "").split(";")[0].strip()
        if mime not in ("", "text/plain") or text_format(text)[0] != "markdown":
            return None
        return Button("Show as Markdown", classes="markdown-toggle", compact=True)

    @on(Button.Pressed, ".show-all")
    async def _show_all(self, event: Button.Pressed) -> None:
        event.stop()
        await self.remove_children()
        form, value = text_format(self.text)
        if form == "json":
            await self.mount(JsonTree(value, label="text", expand_depth=1))
        else:
            from mcpx.tui.results.plain_text_view import PlainTextView

            await self.mount(PlainTextView(self.text))


def flip_markdown(holder: Vertical, text: str, button: Button) -> None:
    """Show the text of `holder` (its `.text` Static) as Markdown, or as it is again."""
    markdown = not button.has_class("-markdown")
    button.set_class(markdown, "-markdown")
    button.label = "Show as text" if markdown else "Show as Markdown"
    for shown in holder.query_children(".text").results(Static):
        shown.update(TextBody.formatted(text, markdown=markdown))


class MediaBody(Vertical):
    """Image, audio or blob bytes: what they are, Save…, and a preview of a small PNG."""

    DEFAULT_CSS = """
    MediaBody { height: auto; }
    MediaBody > .media-preview { width: auto; height: auto; margin: 1 0 0 0; }
    """

    def __init__(self, data: Any, mime_type: Any, *, kind: str, uri: str | None = None) -> None:
        super().__init__(classes="media-body")
        self.payload, self.problem = decode_base64(data)
        self.mime_type = mime_type if isinstance(mime_type, str) else None
        self.kind = kind
        self.uri = uri
        self.info: MediaInfo = audio_info(self.payload) if kind == "audio" else image_info(self.payload)

    def compose(self) -> ComposeResult:
        info = self.info
        rows = [("MIME type", self.mime_type or "(none)"), ("size", size_label(info.size))]
        if info.sniffed and self.mime_type and info.sniffed != self.mime_type.split(";")[0].strip().lower():
            rows.append(("content", f"{info.sniffed} (the bytes say; the block says {self.mime_type})"))
        elif info.sniffed is None and info.size and self.kind in ("image", "audio"):
            rows.append(("content", f"not a format mcpx reads ({self.kind} details unknown)"))
        if info.width is not None and info.height is not None:
            rows.append(("dimensions", f"{info.width} × {info.height} px"))
        if info.duration is not None:
            rows.append(("duration", f"{info.duration:.2f} s"))
        if info.sample_rate:
            rows.append(("format", f"{info.sample_rate} Hz, {info.channels or '?'} channel(s)"))
        if self.problem:
            rows.append(("problem", self.problem))
        yield Static(facts_table(rows), classes="media-facts")
        if self.payload:
            yield Button("Save…", classes="save-media", compact=True)
        preview = self._preview()
        if preview is not None:
            yield Static(preview, classes="media-preview")

    def _preview(self) -> RenderableType | None:
        if self.kind != "image" or self.info.sniffed != "image/png":
            return None
        from mcpx.tui.results.image_preview import png_preview

        return png_preview(self.payload)

    @on(Button.Pressed, ".save-media")
    def _save(self, event: Button.Pressed) -> None:
        event.stop()
        from mcpx.tui.results.save_screen import SaveScreen

        name = file_name(self.kind, self.info.sniffed or self.mime_type, self.uri)

        def saved(path: Any) -> None:
            if path is not None:
                self.notify(f"Saved {size_label(len(self.payload))} to {path}")

        self.app.push_screen(SaveScreen(self.payload, name, self.kind), saved)


class ResourceContentsView(Vertical):
    """One item of a resources/read result (or an embedded resource): text or blob, with its URI."""

    DEFAULT_CSS = """
    ResourceContentsView { height: auto; }
    """

    def __init__(self, contents: Any) -> None:
        super().__init__(classes="resource-contents")
        self.contents = contents

    def compose(self) -> ComposeResult:
        contents = self.contents
        if not isinstance(contents, Mapping):
            yield Static(Text(f"not a resource contents object: {printable(repr(contents)[:200])}", "bold"))
            return
        uri = contents.get("uri")
        mime = contents.get("mimeType")
        rows = [("URI", str(uri) if uri is not None else "(missing)")]
        has_text, has_blob = "text" in contents, "blob" in contents
        if mime is not None and not has_blob:  # a blob's MIME type shows with its other facts
            rows.append(("MIME type", str(mime)))
        if has_text and isinstance(contents["text"], str):
            rows.append(("size", size_label(len(contents["text"].encode("utf-8", "replace")))))
        if has_text == has_blob:
            rows.append(("problem", "needs exactly one of text and blob"))
        rows += annotation_facts(contents.get("annotations"))
        yield Static(facts_table(rows), classes="resource-facts")
        from mcpx.tui.results.app_view import AppResourceView, is_app_html

        if is_app_html(contents):  # an MCP App: its metadata, Save HTML… and Open in browser
            yield AppResourceView(contents)
        if has_text:
            text = contents["text"]
            if isinstance(text, str):
                yield TextBody(
                    text,
                    mime_type=mime if isinstance(mime, str) else None,
                    uri=uri if isinstance(uri, str) else None,
                )
            else:
                yield Static(Text(f"text is {type(text).__name__}, not a string", "bold"))
        elif has_blob:
            kind = "image" if isinstance(mime, str) and mime.startswith("image/") else "blob"
            kind = "audio" if isinstance(mime, str) and mime.startswith("audio/") else kind
            yield MediaBody(contents["blob"], mime, kind=kind, uri=uri if isinstance(uri, str) else None)


class ContentBlockView(Vertical):
    """One content block of any type, with a header line and its annotations."""

    DEFAULT_CSS = """
    ContentBlockView { height: auto; margin-bottom: 1; }
    ContentBlockView > .content-header { color: $text-accent; }
    ContentBlockView > .content-problem { color: $text-error; text-style: bold; }
    ContentBlockView > .read-result { height: auto; border-left: outer $primary 50%; padding-left: 1; }
    """

    def __init__(
        self, block: Any, *, index: int | None = None, context: InspectContext | None = None
    ) -> None:
        kind, reason = content_kind(block)
        super().__init__(classes=f"content-block -{kind.replace('_', '-')}")
        self.block = block
        #: where a resource link is read from (None: a view on its own, with no server to ask)
        self.context = context
        self.kind = kind
        self.reason = reason
        self.index = index

    def compose(self) -> ComposeResult:
        block, kind = self.block, self.kind
        label = f"#{self.index + 1} " if self.index is not None else ""
        yield Static(Text(f"{label}{kind.replace('_', ' ')}"), classes="content-header")
        if kind == "invalid":
            yield Static(Text(self.reason), classes="content-problem")
            yield Static(json_renderable(block))
            return
        if kind == "unknown":
            yield Static(Text(f"unknown content type {printable(repr(block.get('type')))[:60]}", "italic"))
            yield Static(json_renderable(block))
        elif kind == "text" and preview_cut(block["text"]) == len(block["text"]):
            yield Static(
                TextBody.formatted(block["text"]), classes="text"
            )  # one widget: many blocks stay cheap
            toggle = TextBody.toggle(block["text"])
            if toggle is not None:
                yield toggle
        elif kind == "text":
            yield TextBody(block["text"])
        elif kind in ("image", "audio"):
            yield MediaBody(block["data"], block["mimeType"], kind=kind)
        elif kind == "resource_link":
            rows = [("URI", block["uri"])]
            for key, label_ in (("name", "name"), ("title", "title"), ("mimeType", "MIME type")):
                if isinstance(block.get(key), str):
                    rows.append((label_, block[key]))
            if isinstance(block.get("size"), int):
                rows.append(("size", size_label(block["size"])))
            if isinstance(block.get("description"), str):
                rows.append(("description", block["description"]))
            yield Static(facts_table(rows), classes="link-facts")
            yield Button("Open (resources/read)", classes="open-link", compact=True)
        elif kind == "resource":
            yield ResourceContentsView(block["resource"])
        facts = annotation_facts(block.get("annotations"))
        if facts:
            yield Static(Text("annotations  ", "dim") + Text(" · ".join(f"{k}: {v}" for k, v in facts)))

    @on(Button.Pressed, ".markdown-toggle")
    def _toggle_markdown(self, event: Button.Pressed) -> None:
        event.stop()
        if self.kind == "text":
            flip_markdown(self, self.block["text"], event.button)

    @on(Button.Pressed, ".open-link")
    def _open(self, event: Button.Pressed) -> None:
        event.stop()
        if self.context is None:
            self.notify("Not read: not connected (press r to reconnect).", severity="warning")
            return
        client = self.context.client_for(self, "Not read")
        if client is None:
            return
        event.button.disabled = True
        uri = self.block["uri"]
        self.run_worker(
            self._follow(client, uri, event.button),
            name="resources/read",
            group="requests",
            exit_on_error=False,
        )

    async def _follow(self, client: Any, uri: str, button: Button) -> None:
        clock = self.context.clock if self.context is not None else time.monotonic
        started = clock()
        try:
            result = await client.read_resource(uri)
        finally:
            button.disabled = False
        view = ReadResultView(result.raw, latency=clock() - started)
        await self.mount(view, after=button)
        view.scroll_visible(animate=False)


class ReadResultView(Vertical):
    """A whole resources/read result: every item of `contents`."""

    DEFAULT_CSS = """
    ReadResultView { height: auto; margin-top: 1; }
    ReadResultView > .read-summary { color: $text-muted; }
    """
    HELP: ClassVar[str] = "What resources/read returned: each item's URI, MIME type and text or blob."

    def __init__(self, result: Any, *, latency: float | None = None) -> None:
        super().__init__(classes="read-result")
        self.result = result
        self.latency = latency

    def compose(self) -> ComposeResult:
        contents = self.result.get("contents") if isinstance(self.result, Mapping) else None
        if not isinstance(contents, list):
            yield Static(Text("resources/read result without a contents list", "bold"))
            yield Static(json_renderable(self.result))
            return
        summary = f"resources/read: {len(contents)} item{'s' if len(contents) != 1 else ''}"
        if self.latency is not None:
            summary += f" in {format_latency(self.latency)}"
        yield Static(summary, classes="read-summary")
        for item in contents:
            yield ResourceContentsView(item)


def json_renderable(value: Any) -> RenderableType:
    try:
        return JSON.from_data(value, indent=2, default=repr)
    except (TypeError, ValueError, RecursionError):
        return Text(printable(repr(value)[:2000]))
