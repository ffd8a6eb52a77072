"""`CheckView`: `mcpx check` on the connected server, from inside the inspector.

The checks run on the app's own client (`run_checks(spec, options, client=…)`), so every exchange they
make lands in the app's traffic log; rows are grouped as the CLI groups them (pass / fail / warn /
skipped), the highlighted one shows its rule and what was found, and Enter on a finding posts
`CheckView.ExchangeSelected` — the app jumps the traffic log to that event. Checks that need a connection of
their own (a fresh process, the other era's connection) are left to `mcpx check` and listed as skipped
with that reason: their exchanges would not be in this log.

On a recording or a proxied session (`read_only`: nothing may be sent) the view judges what was seen
instead: the passive rules of `mcpx check --recording` (schema, pairing, ids, lifecycle, capabilities)
over the app's traffic log as it is now — R judges it again after a live session has grown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button, Checkbox, OptionList, Static
from textual.widgets.option_list import Option

from mcpx.tui.context import InspectContext

if TYPE_CHECKING:
    from mcpx import ServerSpec
    from mcpx.check.model import Check, CheckResult
    from mcpx.check.report import CheckReport
    from mcpx.protocol.client import Client

MARKS = {
    "pass": ("✓ pass", "green"),
    "fail": ("✗ FAIL", "bold red"),
    "warn": ("! warn", "yellow"),
    "incomplete": ("? open", "magenta"),  # incomplete: not judged (mcpx's own error, a broken connection)
}
SKIP_MARK = ("- skip", "dim")
OWN_CONNECTION = (
    "needs a connection of its own (a fresh process, the other era, or a rule that may break the "
    "connection): run `mcpx check`"
)


def runs_here(check: Check, era: str) -> bool:
    """Whether a check runs on an already-open connection of this era alone."""
    return check.fresh == 0 and not check.isolated and check.era in ("any", era)


def spec_for(spec: ServerSpec | None, client: Client, target: str) -> ServerSpec:
    """The app's spec, or one that says what the connection is (a URL decides the HTTP checks)."""
    from mcpx import ServerSpec

    if spec is not None:
        return spec
    url = client.session.describe().get("url")
    return ServerSpec(url=url) if isinstance(url, str) else ServerSpec(command=[target or "server"])


class CheckView(Vertical):
    """The check report of the connected server: run, read, jump to the exchange."""

    HELP: ClassVar[str] = """\
Runs `mcpx check` on the connected server: JSON-RPC hygiene, lifecycle, catalogues, behaviour and (for
HTTP servers) the HTTP probes, each against the spec rule it quotes. **R** runs the checks (again);
**Call read-only tools** also calls the tools annotated readOnlyHint. The highlighted row shows its rule
and what was found; **enter** on a finding jumps the traffic log to the exchange that shows it. Checks
that need their own connection (a fresh process, the other protocol era, a rule that may leave the
connection broken, such as a line that is not JSON) are skipped here: run `mcpx check` for them. Checks
send real requests: they show in the log. On a recording or a proxied session nothing is sent: **R**
judges what was seen (schema, pairing, ids, lifecycle, capabilities), again as the session grows.
"""
    BINDING_GROUP_TITLE = "Check"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("R", "run", "Run checks", id="check-run", tooltip="Run the checks on the connected server"),
        Binding(
            "enter", "jump", "Show exchange", id="check-jump", tooltip="Jump the traffic log to the exchange"
        ),
    ]

    report: reactive[CheckReport | None] = reactive(None, init=False)
    """The last run's findings (None: not run yet)."""
    running: reactive[bool] = reactive(False, init=False)
    """A run is under way."""

    class ExchangeSelected(Message):
        """A finding was chosen: show event `seq` of the app's traffic log."""

        def __init__(self, view: CheckView, seq: int) -> None:
            super().__init__()
            self.view = view
            self.seq = seq

        @property
        def control(self) -> CheckView:
            return self.view

    def __init__(self, context: InspectContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.context = context
        self.traffic = context.traffic
        self._results: dict[str, CheckResult] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="check-bar"):
            yield Button("Run checks", id="check-run-button", variant="primary")
            yield Checkbox("Call read-only tools", id="check-call-tools")
        if self.context.read_only:  # nothing to call: what was seen is judged
            yield Static("Not judged yet: press R or the button (nothing is sent).", id="check-summary")
        else:
            yield Static("Not run yet: press R or the button.", id="check-summary")
        yield OptionList(id="check-results")
        with VerticalScroll(id="check-detail-scroll"):
            yield Static("", id="check-detail")

    # -- running -----------------------------------------------------------------------------------
    @on(Button.Pressed, "#check-run-button")
    def _pressed(self) -> None:
        self.action_run()

    def on_mount(self) -> None:
        if self.context.read_only:
            self.query_one("#check-call-tools", Checkbox).display = False
            self.query_one("#check-run-button", Button).label = "Judge what was seen"

    def action_run(self) -> None:
        context = self.context
        if context.read_only:
            self._judge_seen()
            return
        client = context.client
        if client is None or client.opened is None:
            self.notify("Not connected: press r to reconnect, then run the checks.", severity="warning")
            return
        call_tools = self.query_one("#check-call-tools", Checkbox).value
        spec = spec_for(context.spec, client, context.target)
        self.running = True
        self.run_worker(
            self._run(spec, client, call_tools),
            name="mcpx check",
            group="check",
            exclusive=True,
            exit_on_error=False,
        )

    async def _run(self, spec: ServerSpec, client: Client, call_tools: bool) -> None:
        from mcpx.check.model import CheckResult, all_checks
        from mcpx.check.options import CheckOptions, check_session
        from mcpx.check.runner import run_checks

        era = client.opened.era if client.opened is not None else ""
        checks = all_checks()
        transport = "http" if spec.url else "stdio"
        # a check whose transport does not apply is run all the same: the runner skips it saying so
        here = [c for c in checks if runs_here(c, era) or transport not in c.transports]
        from mcpx.protocol.options import SessionOptions, check_era

        # the era this connection speaks: the checks of the other era run on their own connection
        session = check_session(SessionOptions(era=check_era(era or "auto")))
        options = CheckOptions(session, call_tools=call_tools)
        try:
            report = await run_checks(spec, options, checks=here, client=client)
        finally:
            self.running = False
        ran = {r.id: r for r in report.results}
        report.results = [ran.get(c.id) or CheckResult(c, "skip", OWN_CONNECTION) for c in checks]
        self.report = report

    def _judge_seen(self) -> None:
        """The passive rules over the traffic seen so far, in a thread (schema checks of a long session
        take a while); the log only grows meanwhile, and the rules read a copy of its frames."""
        from mcpx.check.passive import judge_recording, revision_seen

        traffic, target = self.traffic, self.context.target

        def judge() -> None:
            try:
                report = judge_recording(traffic, revision_seen(traffic), target)
            except Exception as exc:  # mcpx's own bug: said, and the view can run again
                self.app.call_from_thread(self._judged, None, f"{type(exc).__name__}: {exc}")
                return
            self.app.call_from_thread(self._judged, report)

        self.running = True
        self.run_worker(judge, name="mcpx check --recording", group="check", thread=True, exit_on_error=False)

    def _judged(self, report: CheckReport | None, failed: str = "") -> None:
        self.running = False
        if report is None:
            self.query_one("#check-summary", Static).update(f"Could not judge the session: {failed}")
            return
        self.report = report

    # -- showing -----------------------------------------------------------------------------------
    def watch_running(self, running: bool) -> None:
        self.set_class(running, "-running")
        if running:
            self.query_one("#check-summary", Static).update("Running the checks…")

    def watch_report(self, report: CheckReport | None) -> None:
        options = self.query_one("#check-results", OptionList)
        options.clear_options()
        self._results = {}
        if report is None:
            return
        counts = report.summary()
        summary = Text.assemble(
            (f"{counts['pass']} passed", "green"),
            ", ",
            (f"{counts['fail']} failed", "bold red" if counts["fail"] else ""),
            ", ",
            (f"{counts['warn']} warnings", "yellow" if counts["warn"] else ""),
            f", {counts['skip']} skipped",
            f", {counts['incomplete']} not judged" if counts["incomplete"] else "",
        )
        self.query_one("#check-summary", Static).update(summary)
        rows: list[Option] = []
        width = min(30, max((len(r.id) for r in report.results), default=10))
        for title, results in report.by_group():
            rows.append(Option(Text(title, style="bold"), disabled=True))
            for result in results:
                self._results[result.id] = result
                mark, style = MARKS.get(result.status, SKIP_MARK)
                line = Text.assemble(
                    (f"{mark:<7}", style),
                    f"{result.id:<{width}} ",
                    (in_tui_words(result.detail), "dim"),
                    no_wrap=True,
                )
                line.overflow = "ellipsis"
                rows.append(Option(line, id=result.id))
        options.add_options(rows)
        first = next((i for i, o in enumerate(rows) if o.id and self._results[o.id].status == "fail"), None)
        first = first if first is not None else next((i for i, o in enumerate(rows) if o.id), None)
        if first is not None:
            options.highlighted = first

    @on(OptionList.OptionHighlighted, "#check-results")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        result = self._results.get(event.option.id or "")
        self.query_one("#check-detail", Static).update(self._detail(result) if result else "")

    def _detail(self, result: CheckResult) -> Text:
        check = result.check
        mark, style = MARKS.get(result.status, SKIP_MARK)
        text = Text.assemble((mark, style), f"  {check.id} · {check.level}\n", (check.title, "bold"), "\n")
        text.append(f"{in_tui_words(result.detail)}\n")
        for note in result.notes:
            text.append(f"{note}\n", style="italic")
        seqs = self.exchange_seqs(result)
        if seqs:
            text.append(f"exchange: #{', #'.join(map(str, seqs))} — enter shows it in the traffic log\n")
        elif result.exchanges:
            where = ", ".join(ref.log for ref in result.exchanges)
            text.append(f"exchange on another connection ({where}): not in this log\n", style="dim")
        text.append(f"\n{check.rule}\n", style="dim")
        text.append(check.source, style="dim underline")
        return text

    def exchange_seqs(self, result: CheckResult) -> list[int]:
        """The finding's events that are in this app's traffic log."""
        report = self.report
        if report is None:
            return []
        seqs = [s for ref in result.exchanges if report.logs.get(ref.log) is self.traffic for s in ref.seqs]
        return sorted(set(seqs))

    def highlighted_result(self) -> CheckResult | None:
        options = self.query_one("#check-results", OptionList)
        if options.highlighted is None:
            return None
        return self._results.get(options.get_option_at_index(options.highlighted).id or "")

    @on(OptionList.OptionSelected, "#check-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_jump()

    def action_jump(self) -> None:
        result = self.highlighted_result()
        if result is None:
            return
        seqs = self.exchange_seqs(result)
        if not seqs:
            self.app.notify(f"{result.id}: no exchange of it is in this traffic log.", severity="warning")
            return
        self.post_message(self.ExchangeSelected(self, seqs[0]))

    def focus_results(self) -> None:
        self.query_one("#check-results", OptionList).focus()


#: the check engine speaks the CLI's flags; here the same choice is the checkbox above the results
_CLI_WORDS = {
    "run with --call-tools (read-only tools) or --all-tools": (
        "tick “Call read-only tools” above and run again"
    ),
}


def in_tui_words(detail: str) -> str:
    for cli, tui in _CLI_WORDS.items():
        detail = detail.replace(cli, tui)
    return detail
