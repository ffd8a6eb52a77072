"""`ResultView`: a tools/call result in full — status, latency, size, every content block, and
`structuredContent` as a tree checked against the tool's `outputSchema` field by field.

An `isError: true` result is unmistakable: an ERROR badge, error colours and a border. Content blocks are
`ContentBlockView`s (tui/content_view.py), so prompts and resource reads render the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Button, Static

from mcpx.schema.output import output_mismatches
from mcpx.tui.context import InspectContext
from mcpx.tui.results.content_view import ContentBlockView, json_renderable
from mcpx.tui.widgets.dom import child
from mcpx.tui.widgets.event_list_view import printable
from mcpx.tui.widgets.formats import format_latency
from mcpx.tui.widgets.json_tree import JsonTree, size_label

#: content blocks drawn at first (the rest behind a button: a widget per block is not free)
SHOWN_BLOCKS = 50
#: results bigger than this (bytes) are checked against the outputSchema in a thread, after the first paint
VALIDATE_INLINE = 1 << 20


class ResultView(Vertical):
    """One tool call's result, as the server sent it."""

    HELP: ClassVar[str] = """\
The result of a tool call: OK or ERROR (`isError`), how long it took and how big it was, then each
content block — text as Markdown or pretty JSON, images and audio with their MIME type, size and
dimensions or duration (Save… writes the bytes to a file), resource links (Open reads them), embedded
resources, annotations — and `structuredContent` as a tree, checked against the tool's `outputSchema`.
"""

    DEFAULT_CSS = """
    ResultView {
        height: auto;
        padding: 0 1;
        border-left: outer $success;
        &.-error { border-left: outer $error; background: $error 8%; }
        & > #result-summary { margin-bottom: 1; }
        & > .result-heading { color: $text-accent; text-style: bold; }
        & > #result-mismatches { color: $text-error; }
        & > #result-conforms { color: $text-success; }
        & > JsonTree { height: auto; max-height: 24; margin-bottom: 1; }
    }
    """

    def __init__(
        self,
        result: Mapping[str, Any],
        *,
        tool: Mapping[str, Any] | None = None,
        latency: float | None = None,
        size: int | None = None,
        context: InspectContext | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.result = result
        #: what a resource link in the result is read with (None: a view on its own)
        self.context = context
        self.tool = tool
        self.latency = latency
        self.result_size = size
        raw: Any = result
        self.is_error = isinstance(raw, Mapping) and raw.get("isError") is True
        self.set_class(self.is_error, "-error")
        self.schema = tool.get("outputSchema") if isinstance(tool, Mapping) else None
        self.deferred = self.schema is not None and size is not None and size > VALIDATE_INLINE
        self.mismatches: list[tuple[str, str]] = [] if self.deferred else self._check()
        """Where `structuredContent` breaks the tool's outputSchema: (path, message) pairs."""

    def _check(self) -> list[tuple[str, str]]:
        raw: Any = self.result
        if self.schema is None or not isinstance(raw, Mapping):
            return []
        structured = raw.get("structuredContent")
        present = "structuredContent" in raw
        return output_mismatches(self.schema, structured, present=present, is_error=self.is_error)

    def on_mount(self) -> None:
        if self.deferred:  # a big result: checked in a thread, after the first paint
            self.run_worker(self._check_later, thread=True, name="outputSchema", exit_on_error=False)

    def _check_later(self) -> None:
        mismatches = self._check()
        self.app.call_from_thread(lambda: self.run_worker(self._checked(mismatches), exit_on_error=False))

    async def _checked(self, mismatches: list[tuple[str, str]]) -> None:
        self.deferred = False
        self.mismatches = mismatches
        summary = child(self, "#result-summary", Static)
        checking = child(self, "#result-checking", Static)
        if summary is None or checking is None:
            return
        summary.update(self._summary())
        await self.mount_all(list(self._verdict()), after=checking)
        await checking.remove()

    def compose(self) -> ComposeResult:
        result: Any = self.result
        yield Static(self._summary(), id="result-summary")
        if not isinstance(result, Mapping):
            yield Static(Text(f"the result is not an object: {type(result).__name__}", "bold"))
            yield Static(json_renderable(result))
            return
        content = result.get("content")
        if not isinstance(content, list):
            problem = (
                "no content list" if content is None else f"content is {type(content).__name__}, not a list"
            )
            yield Static(Text(problem, "bold"), classes="result-problem")
        else:
            for index, block in enumerate(content[:SHOWN_BLOCKS]):
                yield ContentBlockView(block, index=index, context=self.context)
            if len(content) > SHOWN_BLOCKS:
                more = len(content) - SHOWN_BLOCKS
                yield Button(f"Show {more:,} more content blocks", id="result-more-blocks", compact=True)
        yield from self._structured(result)

    def _summary(self) -> Content:
        result: Any = self.result
        parts: list[tuple[str, str] | str] = []
        if self.is_error:
            parts.append((" ERROR ", "bold $text-error reverse"))
            parts.append(("  the tool reported an error (isError: true)", "bold $text-error"))
        else:
            parts.append((" OK ", "bold $text-success reverse"))
        facts = []
        if self.latency is not None:
            facts.append(format_latency(self.latency))
        if self.result_size is not None:
            facts.append(size_label(self.result_size))
        if isinstance(result, Mapping) and isinstance(result.get("content"), list):
            count = len(result["content"])
            facts.append(f"{count} content block{'s' if count != 1 else ''}")
            if "structuredContent" in result:
                facts.append("structured content")
        if facts:
            parts.append(("  " + " · ".join(facts), "$foreground-muted"))
        if self.mismatches:
            parts.append(("  ✗ outputSchema", "bold $text-warning"))
        return Content.assemble(*parts)

    def _structured(self, result: Mapping[str, Any]) -> ComposeResult:
        present = "structuredContent" in result
        if not present and self.schema is None:
            return
        yield Static("Structured content", classes="result-heading")
        if self.schema is not None and self.deferred:
            yield Static(Text("checking against the outputSchema…", "dim"), id="result-checking")
        elif self.schema is not None:
            yield from self._verdict()
        else:
            yield Static(Text("(the tool declares no outputSchema: not validated)", "dim"))
        if present:
            value = result["structuredContent"]
            if isinstance(value, (dict, list)) and value:
                yield JsonTree(value, label="structuredContent", expand_depth=3)
            else:
                yield Static(json_renderable(value))

    def _verdict(self) -> Iterator[Widget]:
        mismatches = self.mismatches
        if mismatches:
            table = Table(box=None, padding=(0, 2), show_edge=False, header_style="bold")
            table.add_column("field", no_wrap=True)
            table.add_column("does not match the outputSchema")
            for path, message in mismatches:
                table.add_row(printable(path), printable(message))
            count = len(mismatches)
            yield Static(
                Text(f"✗ {count} mismatch{'es' if count != 1 else ''} with the tool's outputSchema"),
                id="result-mismatches",
            )
            yield Static(table, id="result-mismatch-table")
        elif isinstance(self.result, Mapping) and "structuredContent" in self.result:
            yield Static("✓ matches the tool's outputSchema", id="result-conforms")

    @on(Button.Pressed, "#result-more-blocks")
    async def _more_blocks(self, event: Button.Pressed) -> None:
        event.stop()
        content = self.result.get("content") if isinstance(self.result, Mapping) else None
        if isinstance(content, list):
            blocks = [
                ContentBlockView(b, index=i, context=self.context)
                for i, b in enumerate(content)
                if i >= SHOWN_BLOCKS
            ]
            await self.mount_all(blocks, after=event.button)
        await event.button.remove()
