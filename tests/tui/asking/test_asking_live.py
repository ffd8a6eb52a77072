"""The TUI answers what real servers ask: server-everything 2026.8.31 (legacy era, stdio) and the SDK
server `tests/servers/sdk_asking.py` in both eras — form and URL elicitation (both paths of -32042),
sampling, roots, and several questions at once waiting in a queue.

The TUI has no call form yet (issue 4): tools are called through its client, as the demo test does; the
questions come back to the TUI's screens like any others.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from textual.widgets import Label, Static, TextArea
from textual.worker import Worker

from mcpx.transports.spec import resolve_target
from mcpx.tui.asking.ask_screen import AskScreen
from mcpx.tui.asking.asking import root_for
from mcpx.tui.asking.elicitation_screen import ElicitationScreen
from mcpx.tui.asking.roots_view import RootsView
from mcpx.tui.asking.sampling_screen import SamplingScreen
from mcpx.tui.asking.url_elicitation_screen import UrlElicitationScreen
from mcpx.tui.forms.schema_fields import FieldView
from mcpx.tui.settings import InspectSettings
from mcpx.tui.shell.app import InspectApp, make_app

ROOT = Path(__file__).parents[3]
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
ASKING = ROOT / "tests" / "servers" / "sdk_asking.py"
SIZE = (140, 44)

pytestmark = pytest.mark.timeout(120)


def _app(target: Path, era: str = "legacy", roots: list[dict[str, Any]] | None = None) -> InspectApp:
    spec = resolve_target(str(target))
    return make_app(spec, settings=InspectSettings(protocol_era=era, timeout=30.0), roots=roots)


async def _until(pilot: Any, condition: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)


async def _connected(pilot: Any, app: InspectApp) -> None:
    await _until(pilot, lambda: app.client is not None and app.catalog.tools is not None, "the tool list")


def _call(app: InspectApp, name: str, args: dict[str, Any] | None = None) -> Worker[Any]:
    assert app.client is not None
    return app.run_worker(app.client.call_tool(name, args or {}), group="requests", exit_on_error=False)


async def _screen(pilot: Any, app: InspectApp, kind: type[AskScreen]) -> Any:
    # is_mounted: composed too (a screen is app.screen as soon as it is pushed, its widgets come later)
    await _until(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted, kind.__name__)
    await pilot.pause()
    return app.screen


async def _result_text(pilot: Any, worker: Worker[Any]) -> str:
    await _until(pilot, lambda: worker.is_finished, f"{worker.name} to finish")
    assert worker.error is None, worker.error
    return "\n".join(block.get("text", "") for block in worker.result.content)


# -- server-everything -----------------------------------------------------------------------------------
@pytest.mark.npm
async def test_everything_form_elicitation_every_kind_defaults_and_a_required_field() -> None:
    app = _app(EVERYTHING)
    async with app.run_test(size=SIZE) as pilot:
        await _connected(pilot, app)
        worker = _call(app, "trigger-elicitation-request")
        screen = await _screen(pilot, app, ElicitationScreen)
        await pilot.pause(0.2)
        kinds = Counter(type(view).__name__ for view in screen.form.query(FieldView))
        # name, firstLine, email, homepage, birthdate, integer, number; check; 3 single and 2 multi selects
        assert kinds == {"ObjectField": 1, "TextField": 7, "BooleanField": 1, "EnumField": 3, "MultiField": 2}
        assert screen.form.value == {
            "firstLine": "It was a dark and stormy night.",
            "integer": 42,
            "number": 3.14,
            "untitledSingleSelectEnum": "Monica",
            "untitledMultipleSelectEnum": ["Guitar"],
            "titledSingleSelectEnum": "hero-1",
            "titledMultipleSelectEnum": ["fish-1"],
            "legacyTitledEnum": "pet-1",
        }
        # the required name is empty: the first ctrl+s only warns
        assert screen.form.summary().startswith("name: required")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen and not worker.is_finished
        await pilot.press(*"Ann Example")  # the first field (name) has the focus
        await _until(pilot, lambda: screen.form.summary() == "", "a valid form")
        await pilot.press("ctrl+s")
        text = await _result_text(pilot, worker)
        assert "Name: Ann Example" in text and "Favorite Integer: 42" in text
        # the answer is linked to the request in the traffic log
        answer = next(e for e in app.traffic if e.direction == "out" and e.method == "elicitation/create")
        assert answer.request_seq is not None and app.traffic[answer.request_seq].direction == "in"
        assert '"action":"accept"' in answer.raw.replace(" ", "")
        # decline and cancel are one key each
        worker = _call(app, "trigger-elicitation-request")
        await _screen(pilot, app, ElicitationScreen)
        await pilot.press("ctrl+n")
        assert "declined" in await _result_text(pilot, worker)
        worker = _call(app, "trigger-elicitation-request")
        await _screen(pilot, app, ElicitationScreen)
        await pilot.press("escape")
        assert "cancelled" in await _result_text(pilot, worker)


@pytest.mark.npm
async def test_everything_url_elicitation_request_path_and_error_path() -> None:
    app = _app(EVERYTHING)
    async with app.run_test(size=SIZE) as pilot:
        await _connected(pilot, app)
        worker = _call(app, "trigger-url-elicitation", {"url": "https://login.example.org/start"})
        screen = await _screen(pilot, app, UrlElicitationScreen)
        assert screen.host == "login.example.org" and not screen.query("#url-retry")
        await pilot.press("c")
        assert app.clipboard == "https://login.example.org/start"
        await pilot.press("enter")
        assert "User completed the URL elicitation flow" in await _result_text(pilot, worker)

        # -32042: the prerequisite URL first, then the retried call asks for its own URL
        args = {"url": "https://login.example.org/again", "errorPath": True}
        worker = _call(app, "trigger-url-elicitation", args)
        screen = await _screen(pilot, app, UrlElicitationScreen)
        assert screen.url == "https://modelcontextprotocol.io"
        assert "tools/call" in str(screen.query_one("#url-retry", Label).render())
        await pilot.press("enter")
        await _until(
            pilot, lambda: isinstance(app.screen, UrlElicitationScreen) and app.screen is not screen, "retry"
        )
        assert app.screen.url == "https://login.example.org/again"  # type: ignore[attr-defined]
        await pilot.press("enter")
        assert "User completed" in await _result_text(pilot, worker)
        assert [e.method for e in app.traffic if e.direction == "out" and e.method == "tools/call"] == [
            "tools/call"
        ] * 3

        # declining the prerequisite: the call fails with the server's -32042
        worker = _call(app, "trigger-url-elicitation", {"url": "https://x.example/", "errorPath": True})
        await _screen(pilot, app, UrlElicitationScreen)
        await pilot.press("d")
        await _until(pilot, lambda: worker.is_finished, "the declined call")
        assert "-32042" in str(getattr(worker.error, "error_code", "")) or "authorization" in str(
            worker.error
        )


@pytest.mark.npm
async def test_everything_sampling_reply_reuse_and_reject() -> None:
    app = _app(EVERYTHING)
    async with app.run_test(size=SIZE) as pilot:
        await _connected(pilot, app)
        worker = _call(app, "trigger-sampling-request", {"prompt": "the capital of France", "maxTokens": 50})
        screen = await _screen(pilot, app, SamplingScreen)
        request = str(screen.query(".sampling-content").first().render())
        assert "You are a helpful test server." in request
        settings = str(screen.query_one("#sampling-settings", Static).render())
        assert "max tokens" in settings and "50" in settings and "0.7" in settings
        screen.query_one("#sampling-text", TextArea).text = "Paris."
        screen.query_one("#sampling-model").value = "pilot-model"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        text = await _result_text(pilot, worker)
        assert '"text": "Paris."' in text and '"model": "pilot-model"' in text

        # the previous reply comes back with ctrl+l; JSON mode sends what is written
        worker = _call(app, "trigger-sampling-request", {"prompt": "again", "maxTokens": 10})
        screen = await _screen(pilot, app, SamplingScreen)
        await pilot.press("ctrl+l")
        assert screen.query_one("#sampling-text", TextArea).text == "Paris."
        await pilot.press("ctrl+t")
        editor = screen.query_one("#sampling-json", TextArea)
        reply = orjson.loads(editor.text)
        reply["content"]["text"] = "Lyon?"
        reply["stopReason"] = "maxTokens"
        editor.text = orjson.dumps(reply).decode()
        await pilot.press("ctrl+s")
        text = await _result_text(pilot, worker)
        assert '"text": "Lyon?"' in text and '"stopReason": "maxTokens"' in text

        # rejecting: the server sees JSON-RPC error -1
        worker = _call(app, "trigger-sampling-request", {"prompt": "no", "maxTokens": 10})
        await _screen(pilot, app, SamplingScreen)
        await pilot.press("ctrl+r")
        await _until(pilot, lambda: worker.is_finished, "the rejected call")
        answer = [e for e in app.traffic if e.direction == "out" and e.method == "sampling/createMessage"][-1]
        assert '"code":-1' in answer.raw.replace(" ", "")


@pytest.mark.npm
async def test_everything_roots_from_flags_and_the_roots_view() -> None:
    app = _app(EVERYTHING, roots=[root_for("/tmp", "scratch")])
    async with app.run_test(size=SIZE) as pilot:
        await _connected(pilot, app)
        text = await _result_text(pilot, _call(app, "get-roots-list"))
        assert "scratch" in text and "file:///tmp" in text
        app.view.action_show_roots()
        await _until(pilot, lambda: bool(app.query(RootsView)), "the roots view")
        view = app.query_one(RootsView)
        await pilot.pause()
        await pilot.press("full_stop")  # add the current directory
        cwd = root_for(Path.cwd())
        await _until(pilot, lambda: cwd in app.asking.roots, "the new root")
        await _until(
            pilot,
            lambda: any(e.method == "notifications/roots/list_changed" for e in app.traffic),
            "roots/list_changed",
        )
        await pilot.press("n", *"here", "enter")  # rename the highlighted (first) root
        await _until(pilot, lambda: app.asking.roots[0].get("name") == "here", "the rename")
        text = await _result_text(pilot, _call(app, "get-roots-list"))
        assert cwd["uri"] in text and "here" in text
        await _until(pilot, lambda: view.asked >= 2, "roots/list counted")
        assert "asked" in str(view.query_one("#roots-status", Label).render())
        await pilot.press("x")
        await _until(pilot, lambda: len(app.asking.roots) == 1, "the removal")


# -- the SDK server, both eras ---------------------------------------------------------------------------
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_sdk_questions_asked_at_once_wait_in_a_queue(era: str) -> None:
    app = _app(ASKING, era=era, roots=[root_for("/tmp", "scratch")])
    async with app.run_test(size=SIZE) as pilot:
        await _connected(pilot, app)
        assert app.session.era == era
        booking = _call(app, "book")
        sampling = _call(app, "capital")
        await _until(pilot, lambda: app.waiting == 2, "two questions waiting")
        assert "2 waiting for you" in str(app.query_one("#header").render())
        first = await _screen(pilot, app, AskScreen)
        for _ in range(2):
            screen = app.screen
            if isinstance(screen, ElicitationScreen):
                await pilot.pause(0.2)
                assert screen.form.value == {"seats": 2, "window": True, "meal": "veg"}
                await pilot.press(*"Ann")  # the name field has the focus
                form = screen.form
                form.load({**form.value, "seats": 3})
                await _until(pilot, lambda: form.summary() == "", "a valid form")  # noqa: B023
                await pilot.press("ctrl+s")
            else:
                assert isinstance(screen, SamplingScreen)
                screen.query_one("#sampling-text", TextArea).text = "Paris"
                await pilot.press("ctrl+s")
            if screen is first:
                # the next screen once it is composed: a pushed screen is app.screen before its widgets
                # exist (on a loaded machine the query of #sampling-text came first: NoMatches)
                await _until(
                    pilot,
                    lambda: (
                        app.screen is not first
                        and isinstance(app.screen, AskScreen)
                        and app.screen.is_mounted
                    ),
                    "next",
                )
        assert "booked 3 seats for Ann (window=True, meal=veg)" in await _result_text(pilot, booking)
        assert "model mcpx-human said: Paris" in await _result_text(pilot, sampling)
        assert "file:///tmp" in await _result_text(pilot, _call(app, "roots"))
        assert app.waiting == 0 and "waiting" not in str(app.query_one("#header").render())
