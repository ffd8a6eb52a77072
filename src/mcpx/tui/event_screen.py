"""`EventScreen`: one traffic event in full — pretty JSON, the raw frame, facts, and its pair.

A large frame opens as a preview (the tree builds lazily, the raw text is cut); `a` shows all of it and
`s` saves it to a file. `p` jumps to the request this response answers, or to the response of a request.
The screen's result is the sequence number of the event last shown, so the log can put its cursor there.
"""

from __future__ import annotations

import json
import tempfile
from typing import Any, ClassVar

import orjson
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Log, Static, TabbedContent, TabPane

from mcpx.tui.event_list_view import printable, session_start
from mcpx.tui.json_tree import JsonTree, size_label
from mcpx.tui.traffic_filter import latency_of, status_of
from mcpx.tui.traffic_view import format_latency
from mcpx.wire.jsonrpc import Malformed
from mcpx.wire.traffic import TrafficEvent, TrafficLog

RAW_PREVIEW = 16_000
_NO_JSON = object()


def parse_frame(event: TrafficEvent) -> Any:
    """The frame's JSON as the peer sent it (extra fields included), or _NO_JSON."""
    if event.message is None:
        return _NO_JSON
    if isinstance(event.message, Malformed):
        return event.message.obj if event.message.obj is not None else _NO_JSON
    try:
        return orjson.loads(event.raw)
    except orjson.JSONDecodeError:
        try:
            return json.loads(event.raw)
        except (ValueError, RecursionError):
            return event.message.to_obj()


class EventScreen(ModalScreen[int]):
    """A modal over the app showing one event; Esc closes it."""

    BINDING_GROUP_TITLE = "Event"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="event-close", tooltip="Back to the log"),
        Binding("p", "pair", "Request ⇄ response", id="event-pair", tooltip="Jump to the paired event"),
        Binding("c", "copy", "Copy JSON", id="event-copy", tooltip="Copy the raw frame to the clipboard"),
        Binding(
            "a", "show_all", "Show all", id="event-show-all", tooltip="Show the whole frame, however big"
        ),
        Binding("s", "save", "Save", id="event-save", tooltip="Save the frame to a file"),
    ]
    HELP: ClassVar[str] = """\
One event in full. **JSON** is the frame as a tree (Enter or click folds a node), **Raw** the exact text
that crossed the wire (a preview when it is large: **a** shows all, **s** saves it to a file), **Facts**
what the transport knew and any problems found. **p** goes to the request of a response (and back).
"""

    def __init__(self, log: TrafficLog, event: TrafficEvent) -> None:
        super().__init__()
        self.traffic = log
        self.event = event

    def compose(self) -> ComposeResult:
        event = self.event
        with Vertical(id="event-dialog"):
            yield Static(self._summary(), id="event-summary")
            with TabbedContent(id="event-tabs"):
                value = parse_frame(event)
                if value is not _NO_JSON:
                    with TabPane("JSON", id="event-json-tab"):
                        yield JsonTree(value, label=event.method or event.kind, id="event-json")
                with TabPane("Raw", id="event-raw-tab"), VerticalScroll(id="event-raw-scroll"):
                    yield Static(self._raw_preview(), id="event-raw")
                    if len(event.raw) > RAW_PREVIEW:
                        yield Button(f"Show all {size_label(len(event.raw))}  (a)", id="event-show-all")
                with TabPane("Facts", id="event-facts-tab"):
                    yield Static(self._facts(), id="event-facts")
            yield Footer()

    def _summary(self) -> Content:
        event = self.event
        arrow = {"in": "←", "out": "→", "info": "•"}[event.direction]
        parts: list[tuple[str, str] | str] = [
            (f"#{event.seq} ", "$foreground-muted"),
            (f"{arrow} {printable(event.method or event.kind)}", "bold"),
        ]
        rid = event.rpc_id
        if rid is not None:
            parts.append(f"  id {printable(repr(rid))}")
        status = status_of(event, self.traffic)
        if status:
            parts.append((f"  {status}", "$text-success" if status in ("ok", "pending") else "$text-error"))
        latency = latency_of(event, self.traffic)
        if latency is not None:
            parts.append(f"  {format_latency(latency)}")
        size = size_label(len(event.raw))
        parts.append((f"  {event.kind} · {event.channel} · {size}", "$foreground-muted"))
        parts.append((f"  at {event.mono - session_start(self.traffic):.3f}s", "$foreground-muted"))
        pair = self._pair()
        if pair is not None:
            what = "request" if pair.seq < event.seq else "response"
            parts.append((f"   p → its {what} #{pair.seq}", "$text-accent"))
        return Content.assemble(*parts)

    def _raw_preview(self) -> Text:
        raw = self.event.raw
        if len(raw) <= RAW_PREVIEW:
            return Text(printable(raw))
        text = Text(printable(raw[:RAW_PREVIEW]))
        text.append(
            f"\n… {size_label(len(raw) - RAW_PREVIEW)} more; press a to show all, s to save", style="bold"
        )
        return text

    def _facts(self) -> Table:
        event = self.event
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="dim")
        grid.add_column()
        grid.add_row("sequence", str(event.seq))
        grid.add_row("direction", event.direction)
        grid.add_row("channel", event.channel)
        grid.add_row("kind", event.kind)
        grid.add_row("time", f"{event.mono - session_start(self.traffic):.6f} s after the session started")
        grid.add_row("size", f"{len(event.raw):,} characters")
        if isinstance(event.message, Malformed):
            grid.add_row("malformed", event.message.reason)
        for key, value in event.facts.items():
            grid.add_row(printable(str(key)), printable(str(value))[:2000])
        for flag in event.flags:
            grid.add_row(Text("problem", style="bold"), printable(flag))
        return grid

    def _pair(self) -> TrafficEvent | None:
        other = self.event.request_seq if self.event.request_seq is not None else self.event.response_seq
        return self.traffic[other] if other is not None else None

    # -- actions -------------------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss(self.event.seq)

    async def action_pair(self) -> None:
        pair = self._pair()
        if pair is None:
            self.notify("This event has no request or response paired with it.", severity="warning")
            return
        self.event = pair
        await self.recompose()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.event.raw)
        self.notify(f"Copied {size_label(len(self.event.raw))} of JSON to the clipboard.")

    @on(Button.Pressed, "#event-show-all")
    def action_show_all(self) -> None:
        if self.query("#event-raw-all"):
            return
        value = parse_frame(self.event)
        if value is _NO_JSON:
            lines = self.event.raw.splitlines() or [""]
        else:
            lines = json.dumps(value, indent=2, ensure_ascii=False, default=repr).splitlines()
        self.query_one("#event-tabs", TabbedContent).active = "event-raw-tab"
        scroll = self.query_one("#event-raw-scroll", VerticalScroll)
        scroll.remove()
        full = Log(id="event-raw-all", highlight=False, auto_scroll=False)
        self.query_one("#event-raw-tab", TabPane).mount(full)
        full.write_lines(printable(line) for line in lines)
        full.focus()

    def action_save(self) -> None:
        with tempfile.NamedTemporaryFile(
            "w", prefix=f"mcpx-event-{self.event.seq}-", suffix=".json", delete=False, encoding="utf-8"
        ) as handle:
            handle.write(self.event.raw)
        self.notify(f"Saved to {handle.name}", timeout=8)
