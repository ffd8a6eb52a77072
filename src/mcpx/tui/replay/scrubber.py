"""`Scrubber`: the time bar of `mcpx replay` — which moment of the recording the screen shows.

Two lines: the moment (event number, time since the start, what the event was) and a bar over the whole
recording with a knob at the moment. The position comes down from the app (`position`, `total`,
`loading`); the user's moves go up as `Scrubber.Moved` (keys while it has focus, a click on the bar).
The app has the same moves on keys that work everywhere (`,` `.` `<` `>` and `g`).
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from mcpx.tui.widgets.event_list_view import printable, session_start
from mcpx.tui.widgets.glyphs import ARROWS
from mcpx.wire.traffic import TrafficEvent, TrafficLog


def describe_event(event: TrafficEvent) -> str:
    """`→ tools/call #3`, `← stderr: starting…`: one event in a few words."""
    arrow = ARROWS[event.direction]
    if event.message is None:
        label = "stderr" if event.channel == "stderr" else event.channel
        return f"{arrow} {label}: {printable(event.raw[:120])}"
    what = event.method or event.kind
    rpc_id = event.rpc_id
    suffix = f" #{rpc_id}" if rpc_id is not None else ""
    if event.kind in ("response", "error"):
        suffix += " error" if event.kind == "error" else " result"
    return f"{arrow} {printable(what)}{printable(suffix)}"


class Scrubber(Widget, can_focus=True):
    """The moment of the recording the screen shows, and a bar to move it."""

    BINDING_GROUP_TITLE = "Time scrubber"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Back", show=False, id="scrub-back", tooltip="One event back"),
        Binding("right", "step(1)", "Forward", show=False, id="scrub-forward", tooltip="One event forward"),
        Binding("pageup", "page(-1)", "Back 5 %", show=False, id="scrub-page-back", tooltip="5 % back"),
        Binding("pagedown", "page(1)", "On 5 %", show=False, id="scrub-page-forward", tooltip="5 % on"),
        Binding("home", "jump(0)", "Start", show=False, id="scrub-start", tooltip="The first event"),
        Binding("end", "jump(-1)", "End", show=False, id="scrub-end", tooltip="The last event"),
    ]
    HELP: ClassVar[str] = """\
The moment of the recording the screen shows. The browsers, the Info view and the Calls tab show the
session **as of** the highlighted event: the catalogue as last listed by then, the handshake once it
happened, the calls made so far. **←/→** step one event, **PgUp/PgDn** 5 %, **Home/End** the start and
the end; a click on the bar jumps there. From anywhere: **,** and **.** step, **<** and **>** jump to the
start and end, **g** goes to the event highlighted in the traffic log, **m** focuses this bar.
"""
    DEFAULT_CSS = """
    Scrubber {
        height: 2;
        padding: 0 1;
        background: $panel;
        &:focus { background: $boost; }
    }
    """

    position: reactive[int] = reactive(0)
    """Sequence number of the event the screen shows the session as of."""
    total: reactive[int] = reactive(0)
    """Events read from the recording so far."""
    loading: reactive[bool] = reactive(False)
    """The recording is still being read (the end moves)."""

    class Moved(Message):
        """The user moved the scrubber to event `seq`."""

        def __init__(self, scrubber: Scrubber, seq: int) -> None:
            super().__init__()
            self.scrubber = scrubber
            self.seq = seq

        @property
        def control(self) -> Scrubber:
            return self.scrubber

    def __init__(self, traffic: TrafficLog, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.traffic = traffic

    def move_to(self, seq: int) -> None:
        """Ask for event `seq` (clamped to the recording)."""
        last = max(self.total - 1, 0)
        self.post_message(self.Moved(self, min(max(seq, 0), last)))

    def action_step(self, delta: int) -> None:
        self.move_to(self.position + delta)

    def action_page(self, direction: int) -> None:
        self.move_to(self.position + direction * max(1, self.total // 20))

    def action_jump(self, where: int) -> None:
        self.move_to(self.total - 1 if where < 0 else where)

    def on_click(self, event: events.Click) -> None:
        width = self.content_region.width
        offset = event.get_content_offset(self)
        if offset is not None and offset.y == 1 and width > 1 and self.total:  # the bar's line
            self.move_to(round(offset.x / (width - 1) * (self.total - 1)))

    def render(self) -> Content:
        width = max(self.content_region.width, 10)
        total, seq = self.total, self.position
        if not total:
            return Content.styled("the recording holds no events", "$foreground-muted")
        event = self.traffic[min(seq, len(self.traffic) - 1)]
        elapsed = event.mono - session_start(self.traffic)
        of = f"{seq + 1:,}/{total:,}" + (" (reading…)" if self.loading else "")
        line = Content.assemble(
            ("◆ ", "$accent"),
            (f"event #{seq}", "bold"),
            (f"  {of}", "$foreground-muted"),
            (f"  {elapsed:9.3f} s  ", "$foreground-muted"),
            describe_event(event),
        )
        knob = 0 if total <= 1 else round(seq / (total - 1) * (width - 1))
        bar = Content.assemble(
            ("━" * knob, "$primary"), ("●", "bold $accent"), ("─" * (width - knob - 1), "$foreground 30%")
        )
        return Content.assemble(line.truncate(width, ellipsis=True), "\n", bar)
