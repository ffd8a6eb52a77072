"""`TrafficView`: every event of the session in columns, with a latency waterfall and a filter.

Columns: time since the session started, direction (→ sent, ← received, • transport fact), method (a
response shows the method of the request it answers; a tool call names its tool), JSON-RPC id, status
(ok, isError, error code, malformed, … while in flight, then cancelled, timed out or no answer for a
request that ended unanswered), latency, and a waterfall bar that places each request's span on the
session's timeline and stops when it is answered or ends. The timeline's scale snaps to 1-2-5 steps so
rows re-render only when it grows past a step.
"""

from __future__ import annotations

import math
from array import array
from bisect import insort
from collections.abc import Callable, Hashable, Iterable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive

from mcpx.tui.traffic.poll_groups import PollGroup, PollGroups
from mcpx.tui.traffic.traffic_filter import (
    TOOL_ERROR,
    FilterError,
    Matcher,
    TrafficFilter,
    label_of,
    latency_of,
    status_of,
)
from mcpx.tui.widgets.event_list_view import EventListView, cell, printable, session_start
from mcpx.tui.widgets.formats import format_latency
from mcpx.tui.widgets.glyphs import ARROWS
from mcpx.wire.jsonrpc import Malformed, Request
from mcpx.wire.traffic import REQUEST_OUTCOMES, SEQ_TYPECODE, TrafficEvent, TrafficLog

Clock = Callable[[], float]
_EIGHTHS = " ▏▎▍▌▋▊▉"
#: an info event with facts["event"] == this is drawn as a rule across the log
SEPARATOR_EVENT = "reconnect"


def nice_ceiling(seconds: float) -> float:
    """The smallest of 1, 2, 5 × 10ⁿ that is ≥ `seconds` (at least 1 s), counted in seconds up to 50 s,
    then in minutes up to 50 m, then in hours: so the axis always reads a round `2m`, never `1.66667m`."""
    unit = 1.0 if seconds <= 50 else 60.0 if seconds <= 3000 else 3600.0
    return unit * _nice(seconds / unit)


def _nice(value: float) -> float:
    if value <= 1.0:
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        candidate = step * 10.0**exponent
        if candidate >= value * (1 - 1e-12):
            return candidate
    return 10.0 ** (exponent + 1)  # pragma: no cover


def format_span(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:g}s"
    return f"{seconds / 60:g}m" if seconds < 3600 else f"{seconds / 3600:g}h"


def bar(start: float, end: float, cells: int) -> str:
    """A bar from `start` to `end` (in cells, floats) drawn with eighth blocks, `cells` wide."""
    first = min(int(start), cells - 1)
    eighths = max(1, round((min(end, cells) - first) * 8))
    full, rest = divmod(eighths, 8)
    text = " " * first + "█" * full + (_EIGHTHS[rest] if rest else "")
    return text[:cells].ljust(cells)


def tick(at: float, cells: int, mark: str = "·") -> str:
    position = min(int(at), cells - 1)
    return (" " * position + mark).ljust(cells)


class TrafficView(EventListView):
    """The traffic log: columns, waterfall, filter and follow mode over the whole `TrafficLog`."""

    HEADER_LINES = 1
    BINDING_GROUP_TITLE = "Traffic log"
    HELP: ClassVar[str] = """\
Every frame sent (→) and received (←), and every transport fact (•): process spawned and exited, stderr.

- **Enter** opens the highlighted event: pretty JSON, the raw frame, facts, and the request or response
  it pairs with. **↑ ↓ PgUp PgDn Home End** move; **f** toggles follow mode (End resumes it).
- **/** filters. Free text searches the raw frames; fields: `method:tools/call`, `dir:in|out|info`,
  `status:ok|error|malformed|pending|cancelled|timeout|no-answer|-32601` (error includes a tool's
  isError), `id:7`, `dur:>500ms`, `kind:notification`,
  `channel:stderr`, `is:flagged`. Terms combine with AND; `-` negates; `a,b` means either.
- The bar on the right is the waterfall: each request's span on the session's timeline.
- A task's `tasks/get` polls are one row, `▸ tasks/get ×N`, with the task's latest status: **Enter**
  unfolds it (its polls back in place, the first marked ▾); **z** shows every poll of every task, or
  folds them again. The log keeps every poll either way.
"""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "z",
            "toggle_polls",
            "Polls",
            show=False,
            id="log-fold-polls",
            tooltip="Show every tasks/get poll, or fold each task's polls into one row",
        ),
    ]

    filter_text: reactive[str] = reactive("", init=False)
    """The filter line's text (syntax in `mcpx.tui.traffic.traffic_filter`)."""

    class FilterApplied(Message):
        """The filter changed: `error` says why the text could not be used (the old filter stays)."""

        def __init__(self, view: TrafficView, error: str | None) -> None:
            super().__init__()
            self.view = view
            self.error = error

        @property
        def control(self) -> TrafficView:
            return self.view

    def __init__(
        self,
        log: TrafficLog,
        *,
        clock: Clock,
        follow: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        self._filter = TrafficFilter()
        self._matcher: Matcher = self._filter.compile(log)
        #: requests that did not match but may once answered (for filters on status or latency)
        self._undecided: set[int] = set()
        #: requests of ours not answered yet (their bars grow until now)
        self._in_flight: set[int] = set()
        self.clock = clock
        self._scale = 1.0
        self._now = 0.0
        self._t0 = log.started_mono
        self._columns = (0, 0, 0, 0, 0, 0)
        #: each task's tasks/get polls, folded into one row unless unfolded
        self.polls = PollGroups()
        super().__init__(log, follow=follow, name=name, id=id, classes=classes)

    # -- filtering -----------------------------------------------------------------------------------
    def accepts(self, event: TrafficEvent) -> bool:
        return self._matcher(event)

    def watch_filter_text(self, text: str) -> None:
        try:
            parsed = TrafficFilter.parse(text)
            matcher = parsed.compile(self.traffic)
        except FilterError as exc:
            self.post_message(self.FilterApplied(self, str(exc)))
            return
        self.pump()  # events not seen yet go through ingest (in-flight bookkeeping) first
        self._filter, self._matcher = parsed, matcher
        self.polls.asked = "tasks/get" in text  # looking for polls: each is shown
        self._undecided.clear()
        self.rebuild()
        self.post_message(self.FilterApplied(self, None))

    def rebuild(self) -> None:
        self._undecided.clear()  # (refilter finds them again, a piece at a time over a long log)
        super().rebuild()

    def refilter(self, events: Iterable[TrafficEvent]) -> array[int]:
        if self._filter.depends_on_response:
            events = list(events)  # (gone through twice)
        rows = array(SEQ_TYPECODE, self.polls.hide(self._matcher.scan(events)))
        if self._filter.depends_on_response:
            # requests still waiting may match once answered: ingest() checks them again then
            chosen = set(rows)
            self._undecided.update(
                e.seq
                for e in events
                if e.response_seq is None and type(e.message) is Request and e.seq not in chosen
            )
        return rows

    @property
    def filter(self) -> TrafficFilter:
        return self._filter

    def ingest(self, new: Iterable[TrafficEvent]) -> bool:
        events = new if isinstance(new, list) else list(new)
        rows = self.rows
        before = len(rows)
        regrouped = self.polls.note(events)  # a folded row's count and status changed
        matched = self.polls.hide(self._matcher.scan(events))
        rows.extend(matched)
        in_flight = self._in_flight
        undecided = self._undecided if self._filter.depends_on_response else None
        inserted = False
        for event in events:
            answered = event.request_seq
            if answered is None and event.message is None:
                answered = self.traffic.ended_request(event)  # a request ended unanswered: its bar stops
            if answered is not None:
                in_flight.discard(answered)
                if undecided is not None and answered in undecided:
                    undecided.discard(answered)
                    if self._matcher(self.traffic[answered]) and not self.polls.hidden(answered):
                        insort(rows, answered)
                        inserted = True
            elif event.response_seq is None and type(event.message) is Request:
                if event.direction == "out":
                    in_flight.add(event.seq)
                if undecided is not None:
                    undecided.add(event.seq)  # (a matching one is in the rows already: see below)
        if undecided is not None and matched:
            undecided.difference_update(matched)
        return inserted or regrouped or len(rows) != before

    # -- a task's polls ------------------------------------------------------------------------------
    def action_open(self) -> None:
        event = self.event_at_cursor()
        group = self.polls.folded(event.seq) if event is not None else None
        if group is None:
            super().action_open()
            return
        self.polls.expanded.add(group.key)  # Enter on a folded task: its polls come back in place
        self.rebuild()

    def action_toggle_polls(self) -> None:
        self.polls.folding = not self.polls.folding
        self.polls.expanded.clear()
        self.rebuild()
        count = sum(g.polls for g in self.polls.by_key.values())
        shown = "shown one by one" if not self.polls.folding else "folded: one row per task"
        self.notify(f"tasks/get polls {shown} ({count} in the log)")

    # -- rendering -----------------------------------------------------------------------------------
    def prepare_render(self) -> None:
        log = self.traffic
        self._t0 = session_start(log)
        end = log[len(log) - 1].mono if len(log) else self._t0
        if self._in_flight:
            self._now = self.clock()
            end = max(end, self._now)
        self._scale = nice_ceiling(end - self._t0)
        width = self.scrollable_content_region.width
        if self._columns[0] != width:
            self._columns = self._layout(width)

    @staticmethod
    def _layout(width: int) -> tuple[int, int, int, int, int, int]:
        """(width, method, id, status, latency, waterfall) cell widths for a row `width` wide."""
        fixed = 9 + 2 + 7 + 9 + 8
        waterfall = 0 if width < 80 else max(12, min(48, width // 4))
        method = max(8, width - fixed - waterfall - (1 if waterfall else 0))
        return (width, method, 7, 9, 8, waterfall)

    def row_key(self, event: TrafficEvent) -> Hashable:
        group = self.polls.head(event.seq)
        if group is not None:
            folded = group.key not in self.polls.expanded
            return (self._scale, group.polls, group.status, group.last, folded, self._columns)
        if event.seq in self._in_flight:
            self._in_motion = True
            pending = int((self._now - self._t0) / self._scale * self._columns[5] * 8)
            return (self._scale, None, pending, self._columns)
        ending = self.traffic.ending_of(event.seq) if event.response_seq is None else None
        return (self._scale, event.response_seq, ending is None, len(event.flags), self._columns)

    def render_header(self, width: int) -> list[Segment]:
        _, method_w, id_w, status_w, latency_w, waterfall = self._columns
        style = self.style("dim")
        text = f"{'time':>8}   {'method':<{method_w}}{'id':>{id_w - 1}} "
        text += f"{'status':<{status_w}}{'latency':>{latency_w}}"
        segments = [Segment(text, style)]
        if waterfall:
            axis = "0" + format_span(self._scale).rjust(waterfall - 1)
            segments.append(Segment(" " + axis, style))
        return segments

    def render_row(self, event: TrafficEvent, width: int) -> list[Segment]:
        _, method_w, id_w, status_w, latency_w, waterfall = self._columns
        style = self.style
        elapsed = event.mono - self._t0
        time_text = f"{elapsed:8.3f} " if elapsed < 1e5 else f"{elapsed:8.0f} "
        kind = event.kind
        if kind == "info" and event.facts.get("event") == SEPARATOR_EVENT:
            label = f" {printable(event.raw)} "
            rule = label.center(max(0, width - len(time_text)), "─")
            return [Segment(time_text, style("dim")), Segment(rule, style("separator"))]
        segments = [Segment(time_text, style("dim"))]
        arrow = ARROWS[event.direction]
        span = method_w + id_w + status_w + latency_w
        if kind in ("info", "stderr"):
            tag = "stderr " if kind == "stderr" else ""
            segments.append(Segment(arrow + " ", style("info" if kind == "info" else "warning")))
            segments.append(Segment(tag, style("warning")))
            segments.append(Segment(cell(printable(event.raw), span - len(tag)), style("dim")))
        else:
            segments.append(Segment(arrow + " ", style(event.direction)))
            msg = event.message
            if isinstance(msg, Malformed):
                method = f"malformed: {msg.reason}"
                method_style = style("error")
            else:
                method = label_of(event, self.traffic) or (
                    "(unknown id)" if kind in ("response", "error") else "?"
                )
                method_style = style(
                    "dim" if kind in ("response", "error") else "in" if event.direction == "in" else "out"
                )
            group = self.polls.head(event.seq)
            if group is not None:
                if group.key in self.polls.expanded:
                    method = "▾ " + method
                else:
                    return segments + self._folded_row(event, group, waterfall)
            rid = event.rpc_id
            status = status_of(event, self.traffic)
            status_text, status_style = _status_cell(status, style)
            if event.flags and status_text in ("", "ok"):
                status_text, status_style = "⚠ " + (status_text or "flag"), style("warning")
            segments += [
                Segment(cell(printable(method), method_w), method_style),
                Segment(
                    cell("" if rid is None else printable(str(rid)), id_w - 1).rjust(id_w - 1) + " ",
                    style("dim"),
                ),
                Segment(cell(status_text, status_w), status_style),
                Segment(format_latency(latency_of(event, self.traffic)).rjust(latency_w), style("dim")),
            ]
        if waterfall:
            segments.append(Segment(" "))
            segments.append(self._waterfall(event, kind, waterfall))
        return segments

    def _folded_row(self, event: TrafficEvent, group: PollGroup, waterfall: int) -> list[Segment]:
        """A task's polls as one row: how many, which task, its latest status, polling's span."""
        _, method_w, id_w, status_w, latency_w, _ = self._columns
        style = self.style
        label = f"▸ {event.method} ×{group.polls}  task {group.task_id}"
        status = group.status or "…"
        colour = {"completed": "ok", "failed": "error", "cancelled": "warning", "error": "error"}
        segments = [
            Segment(cell(printable(label), method_w + id_w), style(event.direction)),
            Segment(cell(printable(status), status_w + latency_w), style(colour.get(status, "dim"))),
        ]
        if waterfall:
            scale = waterfall / self._scale
            start = (event.mono - self._t0) * scale
            end = (self.traffic[group.last].mono - self._t0) * scale
            segments += [Segment(" "), Segment(bar(start, end, waterfall), self.style("bar-answer"))]
        return segments

    def _waterfall(self, event: TrafficEvent, kind: str, cells: int) -> Segment:
        scale = cells / self._scale
        start = (event.mono - self._t0) * scale
        if kind == "request":
            ending = self.traffic.ending_of(event.seq)
            if ending is not None:  # ended unanswered (a late answer does not stretch it)
                end = (ending.mono - self._t0) * scale
                return Segment(bar(start, end, cells), self.style("bar-pending"))
            if event.response_seq is not None:
                end = (self.traffic[event.response_seq].mono - self._t0) * scale
                return Segment(bar(start, end, cells), self.style("bar"))
            if event.seq in self._in_flight:
                return Segment(bar(start, (self._now - self._t0) * scale, cells), self.style("bar-pending"))
            return Segment(tick(start, cells, "▏"), self.style("bar-pending"))
        if kind in ("response", "error") and event.request_seq is not None:
            begin = (self.traffic[event.request_seq].mono - self._t0) * scale
            return Segment(bar(begin, start, cells), self.style("bar-answer"))
        return Segment(tick(start, cells), self.style("dim"))


def _status_cell(status: str, style: Callable[[str], Style]) -> tuple[str, Style]:
    if status == "ok":
        return "ok", style("ok")
    if status == "pending":
        return "…", style("warning")
    if status == "":
        return "", style("dim")
    if status in REQUEST_OUTCOMES:
        return status, style("warning")
    if status == TOOL_ERROR:
        return status, style("error")
    return status, style("error")
