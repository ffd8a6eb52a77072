"""The TUI and recordings: `mcpx replay FILE` (read-only, the scrubber, the browsers as of a moment, a
damaged file), `mcpx inspect --record`, and "Save recording…" from the command palette.

The recordings are real sessions: `tests/servers/record_session.py` drives the SDK-based
`tests/servers/record_server.py` through mcpx and records it with the real recorder.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from scripted import quiet, wait_for
from textual.app import App
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static, TabbedContent
from typer.testing import CliRunner

from mcpx.cli.recording import RecordingPlan
from mcpx.record.reader import read_recording
from mcpx.transports.spec import resolve_target
from mcpx.tui.replay.recorded_calls import RecordedCalls
from mcpx.tui.replay.replay_app import ReplayApp, make_replay_app
from mcpx.tui.replay.scrubber import Scrubber
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import READ_ONLY_REASON, InspectApp, make_app
from mcpx.tui.shell.header_bar import HeaderBar
from mcpx.tui.shell.save_recording_screen import SaveRecordingScreen
from mcpx.wire.traffic import TrafficLog

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "tests" / "servers" / "record_server.py"
RECORDED = ROOT / "tests" / "tui" / "recordings" / "record_server.mcpx.jsonl"
SIZE = (120, 40)
CONNECT = 30.0  # seconds a loaded machine may need to start an SDK server


def record(tmp_path_factory: pytest.TempPathFactory, era: str) -> Path:
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "servers"))
    from record_session import record_full_session

    path = tmp_path_factory.mktemp("replay") / f"{era}.mcpx.jsonl"
    asyncio.run(record_full_session(path, era=era))
    return path


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A legacy-era session with record_server.py: every catalogue, every tool, a read and a prompt."""
    return record(tmp_path_factory, "legacy")


def text_of(static: Static) -> str:
    """What a Static shows, as plain text."""
    content = static.content
    if isinstance(content, str):
        return content
    if isinstance(content, Content):
        return content.plain
    console = Console(width=110, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


def notes_of(app: App[Any]) -> list[str]:
    """Every notification the app shows from now on (their text)."""
    notes: list[str] = []
    original = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        notes.append(message)
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return notes


async def test_read_only_app_refuses_to_send_with_a_sentence() -> None:
    app = make_app(settings=InspectSettings(), traffic=TrafficLog(), read_only=True)
    notes = notes_of(app)
    async with app.run_test(size=SIZE) as pilot:
        assert app.read_only
        app.view.action_ping()
        await pilot.press("r")
        await pilot.pause()
    assert notes == [f"Not sent: {READ_ONLY_REASON}", f"No reconnect: {READ_ONLY_REASON}"]


def seq_of(app: ReplayApp, method: str, direction: str = "in") -> int:
    return next(e.seq for e in app.traffic if e.method == method and e.direction == direction)


async def test_replay_steps_through_the_session(recording: Path) -> None:
    app = make_replay_app(recording, settings=InspectSettings())
    notes = notes_of(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.loading and bool(app.query("#traffic")))
        # the whole session at first: the mark, the catalogue as last listed, the handshake
        assert app.read_only and app.query_one(HeaderBar).read_only
        assert "RECORDING — read-only" in str(app.query_one(HeaderBar).render())
        assert app.moment == len(app.traffic) - 1
        assert [t.name for t in app.catalog.tools or ()][:2] == ["echo", "add"]
        assert (
            app.server_info is not None
            and app.server_info.instructions == "A server for mcpx's recording tests."
        )
        assert app.session.server_name == "record-test-server" and app.session.era == "legacy"
        assert app.session.state == "closed"  # mcpx stopped the server at the end, as expected
        await wait_for(pilot, lambda: bool(app.query("#recorded-calls")))  # mounted after the first paint
        await pilot.press("c")  # every call of the session, with its result
        calls = app.query_one(RecordedCalls)
        await wait_for(pilot, lambda: calls.query_one("#calls-list", OptionList).option_count == 8)
        await pilot.press("i")
        await wait_for(pilot, lambda: app.query_one("#side", TabbedContent).active == "info-tab")
        await pilot.pause()
        assert app.query_one("#side", TabbedContent).active == "info-tab"

        # the start: nothing opened, nothing listed
        await pilot.press("less_than_sign")
        await wait_for(pilot, lambda: app.moment == 0)
        assert app.session.state == "connecting" and app.server_info is None
        assert app.catalog.tools is None and "not opened yet" in app.catalog.unavailable["tools"]
        assert app.query_one(Scrubber).position == 0

        # step event by event up to the tools/list answer: the browser fills at that moment, not before
        listed = seq_of(app, "tools/list")
        for _ in range(listed - 1):
            await pilot.press("full_stop")
        await wait_for(pilot, lambda: app.moment == listed - 1)
        assert app.session.state == "connected" and app.catalog.tools is None
        assert "Not listed yet" in app.catalog.unavailable["tools"]
        tools = app.query_one("#tools-list", OptionList)
        await pilot.press("full_stop")
        await wait_for(pilot, lambda: app.moment == listed and app.catalog.tools is not None)
        await wait_for(pilot, lambda: tools.option_count == 7)
        assert app.catalog.resources is None  # listed right after: not yet at this moment
        await pilot.press("comma")
        await wait_for(pilot, lambda: app.catalog.tools is None)

        # jump to the event highlighted in the traffic log (g)
        view = app.panel.traffic_view
        echo = next(e for e in app.traffic if e.method == "tools/call" and e.direction == "out")
        assert view.select_seq(echo.seq)
        await pilot.press("t", "g")
        await wait_for(pilot, lambda: app.moment == echo.seq)
        assert app.catalog.prompts is not None  # every catalogue was listed before the first call

        # the calls so far: the echo call is sent but not answered at its own moment
        await pilot.press("c")
        await wait_for(pilot, lambda: calls.calls == (echo.seq,))
        body = text_of(calls.query_one("#call-result-body", Static))
        assert "Not answered at this moment" in body
        await pilot.press("greater_than_sign")
        await wait_for(pilot, lambda: app.moment == len(app.traffic) - 1)
        await wait_for(pilot, lambda: len(calls.calls) == 8)  # 6 tool calls, a read, a prompt
        calls.query_one("#calls-list", OptionList).highlighted = 0
        await pilot.pause()
        body = text_of(calls.query_one("#call-result-body", Static))
        assert '"hello"' in body and "Result" in body

        # the scrubber's own keys when it has focus, and a click on its bar
        await pilot.press("m", "home")
        await wait_for(pilot, lambda: app.moment == 0)
        await pilot.press("right", "right")
        await wait_for(pilot, lambda: app.moment == 2)
        scrubber = app.query_one(Scrubber)
        bar = scrubber.content_region.width - 1
        await pilot.click(Scrubber, offset=(1 + bar // 2, 1))  # the middle of the bar (padding 1)
        middle = round((bar // 2) / bar * (len(app.traffic) - 1))
        await wait_for(pilot, lambda: app.moment == middle)

        # anything that would send is refused with a sentence
        notes.clear()
        await pilot.press("r")
        app.view.action_ping()
        app.view.action_send_raw()
        app.view.action_save_recording()
        await pilot.pause()
        assert notes[:3] == [f"No reconnect: {READ_ONLY_REASON}"] + [f"Not sent: {READ_ONLY_REASON}"] * 2
        assert notes[3].startswith("This is already a recording")
        assert not app.query("#recording-problems").first().has_class("-visible")


def test_a_modern_recording_opens_on_server_discover(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The 2026-07-28 era: no handshake; identity, version and client info come from server/discover."""
    path = record(tmp_path_factory, "modern")

    async def check() -> None:
        app = make_replay_app(path, settings=InspectSettings())
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: not app.loading and app.catalog.tools is not None)
            session = app.session
            assert (session.era, session.protocol_version) == ("modern", "2026-07-28")
            assert session.server_name == "record-test-server" and session.state == "closed"
            info = app.server_info
            assert info is not None and info.instructions == "A server for mcpx's recording tests."
            assert info.client_info["name"] == "mcpx" and info.exchange[0][1] == "server/discover"
            assert [len(app.catalog.items(k) or ()) for k in ("tools", "resources", "resourceTemplates", "prompts")] == [
                7, 1, 1, 1,
            ]  # fmt: skip
            methods = [app.traffic[seq].method for seq in app.timeline.calls]
            assert methods == ["tools/call"] * 5 + [
                "resources/read",
                "prompts/get",
            ]  # not subscriptions/listen

    asyncio.run(check())


@pytest.fixture
def damaged(recording: Path, tmp_path: Path) -> tuple[Path, Path, int]:
    """(cut off mid-line, a junk line inside, how many complete events each holds)."""
    data = recording.read_bytes()
    cut = tmp_path / "cut.mcpx.jsonl"
    cut.write_bytes(data + b'{"seq": 999, "t": 1.5, "direction": "in", "channel": "std')  # killed mid-write
    junk = tmp_path / "junk.mcpx.jsonl"
    lines = data.splitlines(keepends=True)
    junk.write_bytes(b"".join(lines[:5]) + b"not json at all\n" + b"".join(lines[5:]))
    return cut, junk, data.count(b"\n") - 1  # events: every line but the header


async def test_a_cut_off_recording_shows_every_complete_line_and_says_so(
    damaged: tuple[Path, Path, int],
) -> None:
    cut, junk, complete = damaged

    app = make_replay_app(cut, settings=InspectSettings())
    notes = notes_of(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.loading and bool(app.query("#traffic")))
        assert len(app.traffic) == complete
        banner = app.query_one("#recording-problems", Static)
        assert banner.has_class("-visible")
        text = text_of(banner)
        assert "cut off" in text and f"the {complete} complete events are all shown" in text
        assert f"line {complete + 2}: cut off after" in text
        await wait_for(pilot, lambda: app.panel.traffic_view._scanned == complete)
        assert len(app.panel.traffic_view.rows) == complete
        await pilot.pause()
        assert any("cut off" in note for note in notes)

    app = make_replay_app(junk, settings=InspectSettings())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.loading)
        assert len(app.traffic) == complete
        text = text_of(app.query_one("#recording-problems", Static))
        assert "damaged" in text and "line 6: not valid JSON" in text


def test_replay_of_a_file_that_is_not_a_recording_is_one_sentence(tmp_path: Path) -> None:
    from mcpx.cli.replay import _open_tui

    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    assert _open_tui(str(bad)) == 1
    assert _open_tui(str(tmp_path / "missing.jsonl")) == 1


async def test_inspect_record_and_save_recording_from_the_palette(tmp_path: Path) -> None:
    """`--record` as the CLI wires it (a plan attached to the app's log), and the palette's save."""
    spec = resolve_target(str(SERVER), [])
    recorded = tmp_path / "inspect.mcpx.jsonl"
    saved = tmp_path / "saved.mcpx.jsonl"
    plan = RecordingPlan.from_flags(str(recorded), False, spec, "legacy")
    assert plan is not None
    app: InspectApp = make_app(spec, settings=InspectSettings(protocol_era="legacy", timeout=30.0))
    plan.attach(app.traffic)
    notes = notes_of(app)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.catalog.prompts is not None, CONNECT)
            await pilot.press("ctrl+p")
            await pilot.press(*"save recording")
            await pilot.pause()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, SaveRecordingScreen))
            box = app.screen.query_one("#save-recording-path", Input)
            assert box.value.endswith("record_server.py.mcpx.jsonl")  # a new file here by default
            box.value = str(saved)
            await pilot.press("enter")
            await wait_for(pilot, lambda: any(n.startswith("Saved ") for n in notes), CONNECT)
            events_then = len(app.traffic)
            await pilot.press("q")
            await wait_for(pilot, lambda: not app.is_running, CONNECT)
    finally:
        plan.close()

    whole = read_recording(recorded)
    assert whole.problems == [] and whole.header["secrets"] == "masked"
    assert whole.summary()["requests"]["tools/list"] == 1
    assert whole.log[len(whole.log) - 1].facts.get("event") == "exited"  # written until the server stopped
    part = read_recording(saved)
    assert part.problems == [] and part.header["target"]["label"] == spec.label
    assert len(part.log) <= events_then < len(whole.log)
    assert [e.raw for e in part.log] == [e.raw for e in whole.log][: len(part.log)]


def test_inspect_passes_its_recording_flags_to_the_tui(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import mcpx.tui as tui_app
    from mcpx.cli.main import app as cli

    seen: list[Any] = []
    monkeypatch.setattr(tui_app, "run_inspect", lambda spec, **kw: seen.append(kw["recording"]) or 0)
    runner = CliRunner()
    result = runner.invoke(cli, ["inspect", str(SERVER), "--record", str(tmp_path / "a.jsonl")])
    assert result.exit_code == 0, result.output
    assert seen[-1].path == tmp_path / "a.jsonl" and not seen[-1].secrets

    monkeypatch.setenv("MCPX_RECORD_DIR", str(tmp_path / "all"))
    result = runner.invoke(cli, ["inspect", str(SERVER)])
    assert result.exit_code == 0, result.output
    assert seen[-1].path.parent == tmp_path / "all" and seen[-1].path.name.endswith(".mcpx.jsonl")

    monkeypatch.delenv("MCPX_RECORD_DIR")
    result = runner.invoke(cli, ["inspect", str(SERVER), "--record", str(tmp_path / "nope" / "x.jsonl")])
    assert result.exit_code == 1 and "does not exist" in result.output


async def replay_settled(pilot: Pilot[Any], app: ReplayApp) -> None:
    """Every event read, every view caught up, tab counts and underlines settled."""
    await wait_for(
        pilot, lambda: not app.loading and bool(app.query("#traffic")) and bool(app.query("#recorded-calls"))
    )
    length = len(app.traffic)
    await wait_for(pilot, lambda: all(view._scanned == length for view in app.panel.views()))
    await wait_for(pilot, lambda: not app.panel.counts_pending)
    await quiet(pilot)


def test_replay_screen(snap_compare: Any) -> None:
    """A committed recording of record_server.py (its paths made neutral), at the first tool call's answer."""
    app = make_replay_app(RECORDED, settings=InspectSettings())
    app.animation_level = "none"

    async def run_before(pilot: Pilot[Any]) -> None:
        await replay_settled(pilot, app)
        answer = next(e.seq for e in app.traffic if e.method == "tools/call" and e.direction == "in")
        await pilot.press("less_than_sign", *["full_stop"] * answer)
        await wait_for(pilot, lambda: app.moment == answer)
        await pilot.press("b", "down")
        await quiet(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_keys_reach_the_bindings_while_the_item_lists_are_disabled(tmp_path: Path) -> None:
    # before the server's answer to initialize every item list is disabled, so nothing can take the focus
    # the app gives its list at mount; the browser's filter must not take it instead (the keys typed next
    # would be typed into it: C, t, q… did nothing in an attach opened that early)
    lines = RECORDED.read_bytes().splitlines(keepends=True)
    early = tmp_path / "early.mcpx.jsonl"
    early.write_bytes(b"".join(lines[:3]))  # the header, the spawn, the initialize request
    app = make_replay_app(early, settings=InspectSettings())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.loading)
        assert not isinstance(app.focused, Input)
        # t is the traffic panel's, which mounts just after the first paint (its keys wait for it): a key
        # sent before that does nothing, and under load the file is read (two events) well before it
        await wait_for(pilot, lambda: bool(app.query("#traffic")))
        assert not isinstance(app.focused, Input)
        await pilot.press("t")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "traffic")

    # the lists come and go with the moment shown: back to the start and on to the end, the tools list
    # takes the focus again once it can
    app = make_replay_app(RECORDED, settings=InspectSettings())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.loading)
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "tools-list")
        await pilot.press("less_than_sign")
        await wait_for(pilot, lambda: not isinstance(app.focused, OptionList))
        assert not isinstance(app.focused, Input)
        await pilot.press("greater_than_sign")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "tools-list")
