"""`ResultView`: a tools/call result in full — status, latency, size, every content block, and
`structuredContent` as a tree checked against the tool's `outputSchema` field by field.

An `isError: true` result is unmistakable: an ERROR badge, error colours and a border. Content blocks are
`ContentBlockView`s (tui/content_view.py), so prompts and resource reads render the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from mcpx.schema.output import output_mismatches
from mcpx.tui.content_view import ContentBlockView, json_renderable
from mcpx.tui.event_list_view import printable
from mcpx.tui.json_tree import JsonTree, size_label
from mcpx.tui.traffic_view import format_latency


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
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.result = result
        self.tool = tool
        self.latency = latency
        self.result_size = size
        raw: Any = result
        self.is_error = isinstance(raw, Mapping) and raw.get("isError") is True
        self.set_class(self.is_error, "-error")
        schema = tool.get("outputSchema") if isinstance(tool, Mapping) else None
        self.mismatches = (
            output_mismatches(
                schema,
                raw.get("structuredContent"),
                present="structuredContent" in raw,
                is_error=self.is_error,
            )
            if schema is not None and isinstance(raw, Mapping)
            else []
        )
        """Where `structuredContent` breaks the tool's outputSchema: (path, message) pairs."""

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
            for index, block in enumerate(content):
                yield ContentBlockView(block, index=index)
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
        schema = self.tool.get("outputSchema") if isinstance(self.tool, Mapping) else None
        present = "structuredContent" in result
        if not present and schema is None:
            return
        yield Static("Structured content", classes="result-heading")
        if schema is not None:
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
            elif present:
                yield Static("✓ matches the tool's outputSchema", id="result-conforms")
        else:
            yield Static(Text("(the tool declares no outputSchema: not validated)", "dim"))
        if present:
            value = result["structuredContent"]
            if isinstance(value, (dict, list)) and value:
                yield JsonTree(value, label="structuredContent", expand_depth=3)
            else:
                yield Static(json_renderable(value))
