"""`RecordedCalls`: the calls a recorded session made up to the scrubber's moment, and what they returned.

The Calls tab of `mcpx replay`: a list of the client's working requests (tools/call, resources/read,
prompts/get, completion/complete, ping…) sent by the moment, newest last, and below it the highlighted
one — its params and its result or error, or "not answered yet" when the answer came after the moment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from mcpx.record.session import describe, plain_params
from mcpx.tui.catalogue.detail_text import pretty_json
from mcpx.tui.widgets.event_list_view import printable
from mcpx.tui.widgets.formats import format_latency
from mcpx.wire.jsonrpc import ErrorResponse, Request, Response
from mcpx.wire.traffic import TrafficEvent, TrafficLog

#: the newest calls listed (older ones are in the traffic log)
SHOWN = 500


class RecordedCalls(Vertical):
    """The recorded calls as of the moment, and the highlighted one's result."""

    BINDING_GROUP_TITLE = "Recorded calls"
    HELP: ClassVar[str] = """\
Every request the recorded client made to do something (tool calls, reads, prompts, completions, pings),
up to the scrubber's moment, with what came back. A call answered after the moment shows as not answered
yet. **↑/↓** pick a call; its params and its result (or error) show below.
"""

    moment: reactive[int] = reactive(0, init=False)
    """The scrubber's moment: calls sent after it, and answers that came after it, are not shown."""
    loading: reactive[bool] = reactive(False, init=False)
    """The recording is still being read (the moment follows its end: rebuilt at most ten times a second)."""

    def __init__(
        self, traffic: TrafficLog, calls_until: Callable[[int], Sequence[int]], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.traffic = traffic
        #: the sequence numbers of the calls sent by a moment (the app's timeline answers)
        self.calls_until = calls_until
        self._shown: list[int] = []
        self._stale = True
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield OptionList(id="calls-list")
        with VerticalScroll(id="call-result"):
            yield Static("", id="call-result-body")

    @property
    def calls(self) -> tuple[int, ...]:
        """The calls sent by the moment."""
        return tuple(self.calls_until(self.moment))

    def watch_moment(self) -> None:
        # rebuilt when shown, and while a long recording is read (the moment follows its end many times
        # a second) at most ten times a second
        self._stale = True
        if not (self.is_mounted and self.region.area):
            return
        if self.loading:
            if self._timer is None:
                self._timer = self.set_timer(0.1, self._refresh)
        else:
            self._refresh()

    def on_show(self) -> None:
        if self._stale:
            self._refresh()

    def _answer(self, request: TrafficEvent) -> TrafficEvent | None:
        response = self.traffic.find_response(request)
        return response if response is not None and response.seq <= self.moment else None

    def _refresh(self) -> None:
        self._stale = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        options = self.query_one("#calls-list", OptionList)
        calls = self.calls_until(self.moment)
        shown = list(calls[-SHOWN:])
        previous = options.highlighted
        # the user's pick stays highlighted; the newest call stays highlighted as newer ones come in
        keep = None
        if previous is not None and previous < len(self._shown) - 1:
            keep = self._shown[previous]
        self._shown = shown
        if not shown:
            options.set_options(
                [Option(Content.styled("no calls yet at this moment", "$foreground-muted"), disabled=True)]
            )
            self.query_one("#call-result-body", Static).update("")
            return
        options.set_options([Option(self._label(self.traffic[seq])) for seq in shown])
        index = shown.index(keep) if keep in shown else len(shown) - 1
        options.highlighted = index
        self._show(shown[index])

    def _label(self, request: TrafficEvent) -> Content:
        message = request.message
        method = message.method if isinstance(message, Request) else "?"
        params = message.params if isinstance(message, Request) else None
        answer = self._answer(request)
        if answer is None:
            status: tuple[str, str] = ("…", "$text-warning")
        elif isinstance(answer.message, ErrorResponse):
            status = ("error", "$text-error")
        elif isinstance(answer.message, Response) and _is_error(answer.message.result):
            status = ("isError", "$text-error")
        else:
            status = ("ok", "$text-success")
        latency = format_latency(answer.latency) if answer is not None and answer.latency else ""
        return Content.assemble(
            (f"#{request.seq:<6}", "$foreground-muted"),
            (printable(describe(method, params)), "bold"),
            "  ",
            status,
            (f"  {latency}", "$foreground-muted"),
        )

    @on(OptionList.OptionHighlighted, "#calls-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if 0 <= event.option_index < len(self._shown):
            self._show(self._shown[event.option_index])

    def _show(self, seq: int) -> None:
        request = self.traffic[seq]
        message = request.message
        parts: list[RenderableType] = [Text("Params", style="bold")]
        params = plain_params(message.params) if isinstance(message, Request) else None
        parts.append(pretty_json(params) if params is not None else Text("(none)", style="dim"))
        answer = self._answer(request)
        if answer is None:
            later = self.traffic.find_response(request)
            note = f"answered later (event {later.seq:,})" if later is not None else "never answered"
            parts.append(Text(f"\nNot answered at this moment: {note}.", style="italic"))
        elif isinstance(answer.message, ErrorResponse):
            error = answer.message
            parts.append(Text(f"\nError {error.code}", style="bold"))
            parts.append(Text(printable(str(error.message), multiline=True)))
            if error.data is not None:
                parts.append(pretty_json(error.data))
        elif isinstance(answer.message, Response):
            took = f" in {format_latency(answer.latency)}" if answer.latency else ""
            parts.append(Text(f"\nResult (event {answer.seq:,}{took})", style="bold"))
            parts.append(pretty_json(answer.message.result))
        self.query_one("#call-result-body", Static).update(Group(*parts))


def _is_error(result: object) -> bool:
    return isinstance(result, dict) and result.get("isError") is True
