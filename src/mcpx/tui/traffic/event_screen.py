"""`EventScreen`: one traffic event in full — pretty JSON, the raw frame, facts, and its pair.

A large frame opens as a preview (the tree builds lazily, the raw text is cut); `a` shows all of it and
`s` saves it to a file. `p` jumps to the request this response answers, or to the response of a request.
The screen's result is the sequence number of the event last shown, so the log can put its cursor there.
Secrets are masked as everywhere (the log's policy); `u` reveals this event's exact bytes on purpose, and
copy and save then take them as they are.
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
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Log, Static

from mcpx.tui.traffic.traffic_filter import latency_of, status_of
from mcpx.tui.widgets.event_list_view import printable, session_start
from mcpx.tui.widgets.formats import format_latency
from mcpx.tui.widgets.glyphs import ARROWS
from mcpx.tui.widgets.json_tree import JsonTree, size_label
from mcpx.wire.jsonrpc import Malformed
from mcpx.wire.traffic import TrafficEvent, TrafficLog

RAW_PREVIEW = 16_000
#: "show all" cuts lines this long
WRAP = 2_000
_NO_JSON = object()


def wrapped(text: str, width: int = WRAP) -> list[str]:
    """Lines of `text`, the long ones cut every `width` characters (a 10 MB line would be unreadable
    and slow to measure)."""
    lines: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
        else:
            lines.extend(line[i : i + width] for i in range(0, len(line), width))
    return lines


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


class EventScreen(Screen[int]):
    """One event over the whole terminal; Esc closes it.

    An opaque screen rather than a modal: the log under a translucent modal would be composited on every
    frame, and a 10 MB frame has to open fast.
    """

    BINDING_GROUP_TITLE = "Event"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="event-close", tooltip="Back to the log"),
        Binding("p", "pair", "Request ⇄ response", id="event-pair", tooltip="Jump to the paired event"),
        Binding("c", "copy", "Copy JSON", id="event-copy", tooltip="Copy the raw frame to the clipboard"),
        Binding(
            "a", "show_all", "Show all", id="event-show-all", tooltip="Show the whole frame, however big"
        ),
        Binding("s", "save", "Save", id="event-save", tooltip="Save the frame to a file"),
        Binding("u", "reveal", "Unmask", id="event-reveal", tooltip="Show this event's secrets"),
        Binding("j", "view('json')", "JSON", id="event-view-json", tooltip="The frame as a foldable tree"),
        Binding("r", "view('raw')", "Raw", id="event-view-raw", tooltip="The exact text on the wire"),
        Binding("f", "view('facts')", "Facts", id="event-view-facts", tooltip="Transport facts, problems"),
        Binding(
            "tab", "next_view", "Next view", show=False, id="event-view-next", tooltip="JSON → raw → facts"
        ),
    ]
    HELP: ClassVar[str] = """\
One event in full. **j** JSON: the frame as a tree (Enter or a click folds a node); **r** raw: the exact
text that crossed the wire (a preview when it is large: **a** shows all, **s** saves it to a file);
**f** facts: what the transport knew and any problems found. **Tab** goes round the three; **p** goes to
the request of a response (and back). Secrets are masked; **u** shows this event's exact bytes (and
copy/save take them) until you press it again or leave.
"""
    VIEWS = ("json", "raw", "facts")

    def __init__(self, log: TrafficLog, event: TrafficEvent) -> None:
        super().__init__()
        self.traffic = log
        self.event = event
        self._value: Any = _NO_JSON
        self.view = "json"
        #: the user asked to see this event's secrets (`u`); never by default
        self.reveals_secrets = False

    @property
    def raw(self) -> str:
        """The frame as shown: masked by the session's policy unless revealed."""
        return self.event.raw if self.reveals_secrets else self.traffic.secrets.text(self.event.raw)

    def compose(self) -> ComposeResult:
        # one view at a time, built when chosen: a TabbedContent would style all three up front, and a
        # 10 MB frame has to open fast
        self._value = parse_frame(self.event)
        if not self.reveals_secrets and self._value is not _NO_JSON:
            self._value = self.traffic.secrets.value(self._value)
        if self._value is _NO_JSON and self.view == "json":
            self.view = "raw"
        with Vertical(id="event-dialog"):
            yield Static(self._summary(), id="event-summary")
            yield Static(self._view_bar(), id="event-views")
            with Vertical(id="event-body"):
                yield from self._build(self.view)
            # a hint line, not a Footer (a widget per key): same reason
            yield Static(self._keys_hint(), id="event-keys")

    def _build(self, view: str) -> list[Widget]:
        """The widgets of one view (built explicitly: this runs outside compose too)."""
        if view == "json" and self._value is not _NO_JSON:
            return [JsonTree(self._value, label=self.event.method or self.event.kind, id="event-json")]
        if view == "facts":
            return [VerticalScroll(Static(self._facts(), id="event-facts"), id="event-facts-scroll")]
        children: list[Widget] = [Static(self._raw_preview(), id="event-raw")]
        if len(self.event.raw) > RAW_PREVIEW:
            children.append(Button(f"Show all {size_label(len(self.event.raw))}  (a)", id="event-show-all"))
        return [VerticalScroll(*children, id="event-raw-scroll")]

    def _view_bar(self) -> Content:
        parts: list[tuple[str, str] | str] = []
        for view, key in (("json", "j"), ("raw", "r"), ("facts", "f")):
            if view == "json" and self._value is _NO_JSON:
                continue
            style = "bold reverse $accent" if view == self.view else "$foreground-muted"
            parts += [(f" {view.upper() if view == 'json' else view.capitalize()} ({key}) ", style), " "]
        return Content.assemble(*parts)

    async def action_view(self, view: str) -> None:
        if view == "json" and self._value is _NO_JSON:
            view = "raw"
        if view == self.view and self.query("#event-body > *"):
            return
        self.view = view
        body = self.query_one("#event-body", Vertical)
        await body.remove_children()
        await body.mount_all(self._build(view))
        self.query_one("#event-views", Static).update(self._view_bar())
        focusable = [w for w in body.query("*") if w.can_focus]
        if focusable:
            focusable[0].focus()

    async def action_next_view(self) -> None:
        views = [v for v in self.VIEWS if v != "json" or self._value is not _NO_JSON]
        await self.action_view(
            views[(views.index(self.view) + 1) % len(views)] if self.view in views else views[0]
        )

    def _summary(self) -> Content:
        event = self.event
        arrow = ARROWS[event.direction]
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

    def _keys_hint(self) -> Content:
        parts: list[tuple[str, str] | str] = []
        for binding in self.BINDINGS:
            if isinstance(binding, Binding):
                key = self.app.get_key_display(Binding(binding.key.split(",")[0], binding.action))
                parts += [(f" {key} ", "bold $text-accent"), f"{binding.description}  "]
        return Content.assemble(*parts)

    def _raw_preview(self) -> Text:
        raw = self.raw
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
        facts = event.facts if self.reveals_secrets else self.traffic.secrets.facts(event.facts)
        for key, value in facts.items():
            grid.add_row(printable(str(key)), printable(str(value))[:2000])
        for flag in event.flags:
            shown = flag if self.reveals_secrets else self.traffic.secrets.text(flag)
            grid.add_row(Text("problem", style="bold"), printable(shown))
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

    async def action_reveal(self) -> None:
        self.reveals_secrets = not self.reveals_secrets
        await self.recompose()
        self.notify("Secrets of this event shown." if self.reveals_secrets else "Secrets masked again.")

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.raw)
        self.notify(f"Copied {size_label(len(self.raw))} of JSON to the clipboard.")

    @on(Button.Pressed, "#event-show-all")
    async def action_show_all(self) -> None:
        if self.query("#event-raw-all"):
            return
        if self._value is _NO_JSON:
            text = self.raw
        else:
            text = json.dumps(self._value, indent=2, ensure_ascii=False, default=repr)
        self.view = "raw"
        body = self.query_one("#event-body", Vertical)
        await body.remove_children()
        full = Log(id="event-raw-all", highlight=False, auto_scroll=False)
        await body.mount(full)
        full.write_lines(wrapped(printable(text, multiline=True)))
        self.query_one("#event-views", Static).update(self._view_bar())
        full.focus()

    def action_save(self) -> None:
        with tempfile.NamedTemporaryFile(
            "w", prefix=f"mcpx-event-{self.event.seq}-", suffix=".json", delete=False, encoding="utf-8"
        ) as handle:
            handle.write(self.raw)
        self.notify(f"Saved to {handle.name}", timeout=8)
