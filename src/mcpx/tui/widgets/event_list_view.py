"""`EventListView`: a Line API view over a `TrafficLog` (as toolong's LogLines is over a file).

The view keeps only an array of the sequence numbers it shows; rows are rendered when they scroll into
sight, and rendered strips are kept in an LRU cache. New events come through a `LogFeed` (listening to the
log, at most `PUMP_HZ` passes a second, a long way behind a piece at a time: `mcpx.tui.widgets.log_feed`),
so a quiet log costs nothing and a flood one pass per tick. A new filter is applied the same way over a
long log: the old rows stay on screen while the new ones are found a piece at a time. Follow mode keeps
the newest row in sight until the user scrolls up (End or `f` resumes it).

Subclasses say which events they show (`accepts`) and how a row looks (`render_row`, `row_key`).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events, on
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollDown, ScrollTo, ScrollUp
from textual.strip import Strip
from textual.widget import Widget

from mcpx.tui.widgets.log_feed import PUMP_HZ, LogFeed
from mcpx.tui.widgets.row_text import cell as cell
from mcpx.tui.widgets.row_text import foreground as foreground
from mcpx.tui.widgets.row_text import printable as printable
from mcpx.tui.widgets.row_text import session_start as session_start
from mcpx.wire.traffic import SEQ_TYPECODE, TrafficEvent, TrafficLog

#: rendered rows kept per view: a few screens' worth. Each strip holds Textual's caches of its cropped,
#: styled and filtered copies (~1.5 KB a row); 2,048 of them were 4-5 MB of a replay's steady memory
STRIPS = 256


class EventListView(ScrollView, can_focus=True, inherit_bindings=False):
    """A virtualised, followable list of traffic events with a cursor."""

    BINDING_GROUP_TITLE = "Event list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="log-cursor-up", tooltip="Previous event"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="log-cursor-down", tooltip="Next event"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="log-page-up", tooltip="One page up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="log-page-down", tooltip="One page down"),
        Binding("home", "first", "First", show=False, id="log-first", tooltip="The oldest event"),
        Binding("end", "follow", "Follow", show=False, id="log-end", tooltip="The newest event, and follow"),
        Binding("enter", "open", "Open", id="log-open", tooltip="Open the event: JSON, raw frame, its pair"),
        Binding("f", "toggle_follow", "Follow", id="log-follow", tooltip="Stick to the newest event"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "event-list--cursor",
        "event-list--dim",
        "event-list--in",
        "event-list--out",
        "event-list--info",
        "event-list--ok",
        "event-list--error",
        "event-list--warning",
        "event-list--bar",
        "event-list--bar-answer",
        "event-list--bar-pending",
        "event-list--separator",
    }
    DEFAULT_CSS = """
    EventListView {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-gutter: stable;
        & > .event-list--cursor { background: $block-cursor-blurred-background; }
        &:focus > .event-list--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
        }
        & > .event-list--dim { color: $text-muted; }
        & > .event-list--in { color: $text-success; }
        & > .event-list--out { color: $text-primary; }
        & > .event-list--info { color: $text-muted; }
        & > .event-list--ok { color: $text-success; }
        & > .event-list--error { color: $text-error; }
        & > .event-list--warning { color: $text-warning; }
        & > .event-list--bar { color: $primary; }
        & > .event-list--bar-answer { color: $primary 50%; }
        & > .event-list--bar-pending { color: $warning; }
        & > .event-list--separator { color: $accent; }
    }
    """

    #: lines at the top that stay put while rows scroll (a column header)
    HEADER_LINES: ClassVar[int] = 0

    following: reactive[bool] = reactive(True, init=False)
    """Keep the newest event in sight as events arrive."""
    cursor: reactive[int | None] = reactive(None, repaint=False, init=False)
    """Row index of the highlighted event, or None (follow mode shows no cursor)."""

    class EventOpened(Message):
        """The user asked to see an event in full (Enter or a double click)."""

        def __init__(self, view: EventListView, event: TrafficEvent) -> None:
            super().__init__()
            self.view = view
            self.event = event

        @property
        def control(self) -> EventListView:
            return self.view

    class CaughtUp(Message):
        """The view has taken in a long log it was a long way behind on, a piece at a time: what decoding
        the pieces freed can go back to the system (the replay asks, `heap.return_freed_memory`)."""

    class CountChanged(Message):
        """How many rows the view shows changed (coalesced: only the latest is kept)."""

        def __init__(self, view: EventListView, count: int) -> None:
            super().__init__()
            self.view = view
            self.count = count

        @property
        def control(self) -> EventListView:
            return self.view

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, EventListView.CountChanged) and message.view is self.view

    def __init__(
        self,
        log: TrafficLog,
        *,
        follow: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        # the state class is given at birth: toggling it on mount would restyle the view once more
        classes = f"{classes or ''} -following".strip() if follow else classes
        super().__init__(name=name, id=id, classes=classes)
        self.traffic = log
        self.rows: array[int] = array(SEQ_TYPECODE)
        self._origin = 0
        self._accepts: Callable[[TrafficEvent], bool] = self.accepts
        self._strips: LRUCache[tuple[Hashable, ...], Strip] = LRUCache(STRIPS)
        self._styles: dict[str, Style] = {}
        self._in_motion = False
        self._motion_due = False
        self._feed = LogFeed(
            self,
            log,
            take=self.ingest,
            shown=self.rows_changed,
            caught_up=lambda: self.post_message(self.CaughtUp()),
            pump=lambda: self.pump(),
        )
        self.set_reactive(EventListView.following, follow)

    # -- what subclasses decide ----------------------------------------------------------------------
    def accepts(self, event: TrafficEvent) -> bool:
        """Whether this view shows `event` (the pump asks once per event)."""
        return True

    def row_key(self, event: TrafficEvent) -> Hashable:
        """What, besides the event and the width, a rendered row depends on (for the strip cache)."""
        return None

    def render_row(self, event: TrafficEvent, width: int) -> list[Segment]:
        """The segments of one row (cropped and padded to `width` by the caller)."""
        return [Segment(printable(event.raw), self.style("dim"))]

    def prepare_render(self) -> None:
        """Called once per repaint before rows render (compute what all rows share)."""

    def render_header(self, width: int) -> list[Segment]:
        """The sticky header line (when HEADER_LINES is 1)."""
        return []

    # -- styles --------------------------------------------------------------------------------------
    def style(self, name: str) -> Style:
        """The row style of a component class (`dim`, `error`, …) over the widget's own style."""
        return self.component_style(f"event-list--{name}")

    def component_style(self, component: str) -> Style:
        style = self._styles.get(component)
        if style is None:
            style = self._styles[component] = self.rich_style + foreground(self, component)
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    # -- the pump ------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._feed.listen()

    def on_unmount(self) -> None:
        self._feed.stop()

    def pump(self) -> None:
        """Take in what the log gained since the last call; repaint if anything is new."""
        self._feed.pump()

    @property
    def _scanned(self) -> int:
        """Events before this one have been offered to the view."""
        return self._feed.scanned

    @property
    def catching_up(self) -> bool:
        """The view is reading a long log a piece at a time (it was a long way behind, or a new filter)."""
        return self._feed.catching_up

    def _keep_moving(self) -> None:
        self._motion_due = False
        self.refresh()

    def ingest(self, new: Iterable[TrafficEvent]) -> bool:
        """Append the rows of `new` events that this view shows; True if any were."""
        accepts = self._accepts
        before = len(self.rows)
        self.rows.extend(event.seq for event in new if accepts(event))
        return len(self.rows) != before

    def refilter(self, events: Iterable[TrafficEvent]) -> array[int]:
        """The rows for all of `events` (one tight pass: this is what a new filter costs)."""
        accepts = self._accepts
        return array(SEQ_TYPECODE, [event.seq for event in events if accepts(event)])

    def rebuild(self) -> None:
        """Recompute every row (after the filter or the scope changed), keeping the cursor's event.

        Over a long log the rows are found a piece at a time (`LogFeed.refilter`), the old rows on
        screen meanwhile."""
        self._accepts = self.accepts
        stop = len(self.traffic)

        def done(rows: array[int]) -> None:
            cursor = self.cursor  # (on the old rows, which stayed on screen: the user may have moved it)
            keep = self.rows[cursor] if cursor is not None and cursor < len(self.rows) else None
            # with the rows the feed added meanwhile (events from `stop` on, taken with the new filter)
            rows.extend(seq for seq in self.rows if seq >= stop)
            self.rows = rows
            self._strips.clear()
            if keep is not None:
                index = bisect_left(rows, keep)
                self.set_reactive(EventListView.cursor, index if index < len(rows) else None)
            self.rows_changed()
            if self.cursor is not None and not self.following:
                self._scroll_cursor_into_view(center=True)

        self._feed.refilter(self._origin, self.refilter, done)

    def clear(self) -> None:
        """Hide every event so far (the log itself keeps them: it is append-only)."""
        self._origin = self._feed.skip_to(len(self.traffic))
        self.rows = array(SEQ_TYPECODE)
        self.set_reactive(EventListView.cursor, None)
        self.following = True
        self.rows_changed()

    def rows_changed(self) -> None:
        count = len(self.rows)
        lines = count + self.HEADER_LINES
        size = Size(self.scrollable_content_region.width, lines)
        if size != self.virtual_size:
            # no layout pass (a whole-screen reflow 20 times a second under a flood): with overflow-y
            # scroll the scrollbar is always there, and only its thumb has to move
            self.set_reactive(Widget.virtual_size, size)
            bar = self.vertical_scrollbar
            bar.window_virtual_size = lines
            bar.window_size = self.container_size.height
            bar.refresh()
        if self.following:
            self.scroll_to(y=max(0, lines - self.scrollable_content_region.height), animate=False, force=True)
        self.refresh()
        self.post_message(self.CountChanged(self, count))

    # -- rendering -----------------------------------------------------------------------------------
    def render_lines(self, crop):  # type: ignore[no-untyped-def]
        self._in_motion = False
        self.prepare_render()
        lines = super().render_lines(crop)
        if self._in_motion and not self._motion_due:
            # a row that changes with time (a request's growing bar) is on screen: paint again soon,
            # and only while it is
            self._motion_due = True
            self.set_timer(1 / PUMP_HZ, self._keep_moving, name="event-list-motion")
        return lines

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y < self.HEADER_LINES:
            return Strip(self.render_header(width)).adjust_cell_length(width, self.rich_style)
        row = self.scroll_offset.y + y - self.HEADER_LINES
        if row >= len(self.rows) or width <= 0:
            return Strip.blank(width, self.rich_style)
        event = self.traffic[self.rows[row]]
        key = (event.seq, width, self.row_key(event))
        strip = self._strips.get(key)
        if strip is None:
            strip = Strip(self.render_row(event, width)).adjust_cell_length(width, self.rich_style)
            self._strips[key] = strip
        if row == self.cursor:
            strip = strip.apply_style(self.get_component_rich_style("event-list--cursor"))
        return strip

    # -- follow and cursor ---------------------------------------------------------------------------
    def watch_following(self, following: bool) -> None:
        self.set_class(following, "-following")
        if following:
            self.set_reactive(EventListView.cursor, None)
            self.scroll_to(y=self.max_scroll_y, animate=False, force=True)
            self.refresh()

    def watch_cursor(self, old: int | None, new: int | None) -> None:
        if new is not None:
            self._scroll_cursor_into_view()
        self.refresh()

    def _scroll_cursor_into_view(self, center: bool = False) -> None:
        if self.cursor is None:
            return
        height = self.scrollable_content_region.height - self.HEADER_LINES
        top = self.scroll_offset.y
        if center:
            self.scroll_to(y=max(0, self.cursor - height // 2), animate=False, force=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, force=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, force=True)

    def _move(self, row: int) -> None:
        if not self.rows:
            return
        row = max(0, min(len(self.rows) - 1, row))
        self.following = False
        self.cursor = row

    def _current(self) -> int:
        if self.cursor is not None:
            return self.cursor
        # no cursor yet: start from the last row in sight
        return min(
            len(self.rows), self.scroll_offset.y + self.scrollable_content_region.height - self.HEADER_LINES
        )

    def action_cursor(self, delta: int) -> None:
        self._move(self._current() + delta)

    def action_page(self, direction: int) -> None:
        self._move(self._current() + direction * max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self._move(0)

    def action_follow(self) -> None:
        self.following = True

    def action_toggle_follow(self) -> None:
        self.following = not self.following

    def action_open(self) -> None:
        if not self.rows:
            return
        row = self.cursor if self.cursor is not None else len(self.rows) - 1
        self.post_message(self.EventOpened(self, self.traffic[self.rows[row]]))

    def event_at_cursor(self) -> TrafficEvent | None:
        if self.cursor is None or self.cursor >= len(self.rows):
            return None
        return self.traffic[self.rows[self.cursor]]

    def select_seq(self, seq: int) -> bool:
        """Put the cursor on the event with this sequence number, if the view shows it."""
        index = bisect_left(self.rows, seq)
        if index < len(self.rows) and self.rows[index] == seq:
            self.following = False
            self.cursor = index
            self._scroll_cursor_into_view(center=True)
            return True
        return False

    # -- mouse ---------------------------------------------------------------------------------------
    def on_click(self, event: events.Click) -> None:
        row = self.scroll_offset.y + event.y - self.HEADER_LINES
        if event.y >= self.HEADER_LINES and 0 <= row < len(self.rows):
            self._move(row)
            if event.chain >= 2:
                self.action_open()

    @on(events.MouseScrollUp)
    @on(ScrollUp)
    def _user_scrolled_up(self) -> None:
        self.following = False

    @on(events.MouseScrollDown)
    @on(ScrollDown)
    def _user_scrolled_down(self) -> None:
        self.call_after_refresh(self._resume_at_bottom)

    @on(ScrollTo)
    def _user_dragged(self, message: ScrollTo) -> None:
        if message.y is not None:
            self.call_after_refresh(self._resume_at_bottom)
            if message.y < self.max_scroll_y:
                self.following = False

    def _resume_at_bottom(self) -> None:
        if self.scroll_offset.y >= self.max_scroll_y and self.cursor is None:
            self.following = True
