"""The demo server's tools, through mcpx's own client, in both protocol eras.

Every tool is called; what the server asks (elicitation, sampling, roots) is answered by the client's
handlers, which the legacy era reaches by server→client requests and the modern era by input_required
rounds — the same handlers, the same results.
"""

from __future__ import annotations

import asyncio
import json

import jsonschema
import pytest
from demo_support import DEMO, ERAS, Asked, demo, eventually, texts

import mcpx
import mcpx.errors
from mcpx.errors import RpcError
from mcpx.protocol.modern import MissingCapabilityError

pytestmark = pytest.mark.timeout(60)

VALID_ARGUMENTS = {
    "echo": {"text": "hi", "times": 2},
    "add": {"a": 2, "b": 3.5},
    "weather": {"city": "Paris"},
    "weather_mismatch": {"city": "Paris", "units": "fahrenheit"},
    "register_event": {
        "title": "PyCon",
        "slug": "pycon-2026",
        "organiser_email": "org@example.com",
        "website": "https://pycon.example.com",
        "date": "2026-09-01",
        "starts_at": "2026-09-01T09:00:00Z",
        "capacity": 500,
        "price": 19.75,
        "discount": 0.5,
        "volume": 55,
        "public": False,
    },
    "configure_widget": {
        "kind": "widget",
        "color": "blue",
        "size": "l",
        "theme": None,
        "priority": None,
        "label": None,
        "shape": {"type": "rectangle", "width": 2, "height": 1.5},
        "target": 7,
    },
    "place_order": {
        "customer": {
            "name": "Ann",
            "address": {"street": "1 rue de la Paix", "city": "Paris", "postcode": "75002"},
        },
        "items": [{"sku": "TEA-001", "quantity": 2}, {"sku": "CUP-002", "quantity": 1, "gift": True}],
        "tags": ["gift", "urgent"],
        "coupons": ["VIP"],
        "metadata": {"channel": "web"},
        "stock_overrides": {"TEA-001": 3},
    },
    "build_tree": {
        "root": {
            "label": "a",
            "children": [{"label": "b", "weight": 2, "children": [{"label": "c"}]}, {"label": "d"}],
        }
    },
    "search": {"query": "mcp", "published": {"from": "2026-01-01"}, "score_above": 0.5},
    "content_gallery": {},
    "fail": {},
    "destroy_everything": {},
}

INVALID_ARGUMENTS = {
    "register_event": (
        {
            "title": "x",
            "slug": "Not A Slug",
            "organiser_email": "org@example.com",
            "date": "2026-09-01",
            "price": 0,
        },
        ["title", "slug", "price"],
    ),
    "configure_widget": (
        {"kind": "gadget", "color": "pink", "shape": {"type": "circle"}},
        ["kind", "color", "shape"],
    ),
    "place_order": (
        {"customer": {}, "items": [], "tags": ["a", "a"], "stock_overrides": {"x": -1}},
        ["customer", "items", "tags", "stock_overrides/x"],
    ),
    "build_tree": ({"root": {"children": [{"label": ""}]}}, ["root"]),
}


@pytest.mark.parametrize("era", ERAS)
async def test_the_catalogue_shows_every_schema_construct_annotations_and_icons(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        assert client.opened is not None and client.opened.era == era
        tools = {tool.name: tool for tool in await client.list_tools()}
    assert set(VALID_ARGUMENTS) | {"slow_task", "log_every_level", "add_tool", "remove_tool"} <= set(tools)
    assert {"book_table", "connect_account", "ask_model", "list_roots"} <= set(tools)
    blob = json.dumps({name: tool.raw for name, tool in tools.items()})
    for keyword in ("format", "pattern", "minLength", "maxLength", "exclusiveMinimum", "exclusiveMaximum",
                    "multipleOf", "const", "enum", "oneOf", "anyOf", "$ref", "$defs", "definitions",
                    "additionalProperties", "uniqueItems", "minItems", "maxItems", "readOnly", "default",
                    "x-mcp-header", '"null"', "draft-07", "2020-12"):  # fmt: skip
        assert keyword in blob, keyword
    assert tools["echo"].raw["icons"][0]["mimeType"] == "image/svg+xml"
    assert tools["destroy_everything"].annotations.destructive_hint is True
    assert tools["weather"].display_name == "Weather"
    assert tools["weather"].output_schema == tools["weather_mismatch"].output_schema
    for tool in tools.values():  # every schema is itself valid JSON Schema
        jsonschema.validators.validator_for(tool.input_schema).check_schema(tool.input_schema)


@pytest.mark.parametrize("era", ERAS)
async def test_every_plain_tool_answers_and_checks_its_arguments(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        results = {name: await client.call_tool(name, args) for name, args in VALID_ARGUMENTS.items()}
        invalid = {name: await client.call_tool(name, args) for name, (args, _) in INVALID_ARGUMENTS.items()}
        with pytest.raises(RpcError) as unknown:
            await client.call_tool("no_such_tool", {})
    assert unknown.value.error_code == -32602
    assert texts(results["echo"]) == "hi hi"
    assert results["add"].structured_content == {"sum": 5.5}
    assert results["fail"].is_error is True
    assert "Nothing was destroyed" in texts(results["destroy_everything"])
    assert results["build_tree"].structured_content == {"nodes": 4}
    assert results["register_event"].structured_content["received"]["slug"] == "pycon-2026"
    for name in VALID_ARGUMENTS:
        if name != "fail":
            assert not results[name].is_error, (name, texts(results[name]))
    for name, (_, paths) in INVALID_ARGUMENTS.items():
        assert invalid[name].is_error is True
        message = texts(invalid[name])
        for path in paths:
            assert f"\n{path}" in message or f"{path}:" in message, (name, path, message)
    kinds = [block["type"] for block in results["content_gallery"].content]
    assert kinds == ["text", "image", "audio", "resource_link", "resource"]
    assert results["content_gallery"].content[1]["annotations"]["audience"] == ["user"]


@pytest.mark.parametrize("era", ERAS)
async def test_structured_output_matches_its_schema_and_the_broken_one_does_not(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        good = await client.call_tool("weather", {"city": "Oslo", "units": "fahrenheit"})
        bad = await client.call_tool("weather_mismatch", {"city": "Oslo"})
    schema = tools["weather"].output_schema
    jsonschema.validate(good.structured_content, schema)
    assert json.loads(good.content[-1]["text"]) == good.structured_content
    problems = {
        e.json_path for e in jsonschema.Draft202012Validator(schema).iter_errors(bad.structured_content)
    }
    assert problems == {"$", "$.temperature", "$.humidity", "$.units"}  # "$": conditions is missing


@pytest.mark.parametrize("era", ERAS)
async def test_form_elicitation_has_every_field_kind_and_the_answer_comes_back(era: str) -> None:
    asked = Asked()
    async with mcpx.connect(demo(), protocol_era=era, on_elicit=asked.on_elicit) as client:
        result = await client.call_tool("book_table")
        asked.action = "decline"  # the same server, another answer
        refused = await client.call_tool("book_table")
    assert result.structured_content == {"booking": {k: v for k, v in asked.elicit_answer.items()}}
    assert "Booked a table for 4 on 2026-09-01 in the name of Ann" in texts(result)
    assert texts(refused) == "No booking: the user chose 'decline'."
    form = asked.elicitations[0]
    assert len(asked.elicitations) == 2 and form["mode"] == "form"
    fields = form["requestedSchema"]["properties"]
    assert {f.get("format") for f in fields.values()} >= {"email", "uri", "date", "date-time"}
    assert {f["type"] for f in fields.values()} == {"string", "integer", "number", "boolean", "array"}
    assert "oneOf" in fields["menu"] and "enumNames" in fields["occasion"] and "enum" in fields["seating"]
    assert fields["allergies"]["items"]["enum"] and fields["extras"]["items"]["anyOf"]
    if era == "modern":  # asked in a result, answered by retrying with a new id
        sent = [e for e in client.traffic if e.direction == "out" and e.method == "tools/call"]
        assert len(sent) == 4 and "inputResponses" in sent[1].message.params


async def test_older_revisions_get_the_form_they_know() -> None:
    asked = Asked()
    spec = demo()
    async with mcpx.connect(spec, protocol_version="2025-06-18", on_elicit=asked.on_elicit) as client:
        assert client.protocol_version == "2025-06-18"
        result = await client.call_tool("book_table")
    assert not result.is_error
    form = asked.elicitations[0]
    assert "mode" not in form
    fields = form["requestedSchema"]["properties"]
    assert "oneOf" not in fields["menu"] and fields["menu"]["enumNames"]
    assert (
        "allergies" not in fields and "default" not in fields["guests"] and fields["window_seat"]["default"]
    )


@pytest.mark.parametrize("era", ERAS)
async def test_url_elicitation(era: str) -> None:
    asked = Asked()
    completed: list[dict] = []
    async with mcpx.connect(demo(), protocol_era=era, on_elicit=asked.on_elicit) as client:
        client.on_notification("notifications/elicitation/complete", lambda m, e: completed.append(m.params))
        result = await client.call_tool("connect_account", {"account": "ann"})
        if era == "legacy":
            await eventually(lambda: completed, what="notifications/elicitation/complete")
    assert "the user agreed to open https://example.com/mcpx-demo/connect?account=ann" in texts(result)
    request = asked.elicitations[0]
    assert request["mode"] == "url" and request["url"].endswith("account=ann")
    if era == "legacy":  # 2025-11-25 names the elicitation and says when it completed
        assert completed == [{"elicitationId": request["elicitationId"]}]
    else:  # 2026-07-28 has neither
        assert "elicitationId" not in request and not completed


@pytest.mark.parametrize("era", ERAS)
async def test_sampling_with_and_without_a_question(era: str) -> None:
    asked = Asked()
    async with mcpx.connect(
        demo(), protocol_era=era, on_elicit=asked.on_elicit, on_sample=asked.on_sample
    ) as client:
        direct = await client.call_tool("ask_model", {"question": "2+2?", "max_tokens": 10})
        two_rounds = await client.call_tool("ask_model")
    assert direct.structured_content == {
        "question": "2+2?", "model": "stub-model", "answer": "Paris (you asked: 2+2?)", "stopReason": "endTurn"
    }  # fmt: skip
    assert asked.samplings[0]["maxTokens"] == 10 and asked.samplings[0]["modelPreferences"]["hints"]
    assert two_rounds.structured_content["question"] == "What is the capital of France?"
    assert len(asked.elicitations) == 1 and len(asked.samplings) == 2
    if era == "modern":  # two input_required rounds, the second carrying the first answer in requestState
        answers = [
            e.message.result for e in client.traffic if e.direction == "in" and e.method == "tools/call"
        ]
        kinds = [a.get("resultType") for a in answers]
        assert kinds == ["input_required", "complete", "input_required", "input_required", "complete"]
        assert list(answers[3]["inputRequests"]) == ["answer"] and answers[3]["requestState"]


@pytest.mark.parametrize("era", ERAS)
async def test_roots(era: str) -> None:
    roots = [{"uri": "file:///srv/project", "name": "project"}, {"uri": "file:///tmp"}]
    async with mcpx.connect(demo(), protocol_era=era, roots=roots) as client:
        result = await client.call_tool("list_roots")
    assert texts(result) == "file:///srv/project (project)\nfile:///tmp"
    assert result.structured_content == {"roots": roots}


async def test_a_missing_client_capability_is_said_in_each_era() -> None:
    async with mcpx.connect(demo(), protocol_era="modern") as client:
        with pytest.raises(MissingCapabilityError, match="sampling"):
            await client.call_tool("ask_model", {"question": "?"})
        error = next(e for e in client.traffic if e.kind == "error")
        assert error.message.code == -32021 and error.message.data == {
            "requiredCapabilities": {"sampling": {}}
        }
    async with mcpx.connect(demo(), protocol_era="legacy") as client:
        result = await client.call_tool("list_roots")
    assert result.is_error and "roots" in texts(result)


async def _start_slow_task(client: mcpx.Client, progress: list) -> tuple[asyncio.Future, int]:
    call = asyncio.ensure_future(
        client.call_tool(
            "slow_task", {"steps": 100, "interval": 0.05}, on_progress=lambda *p: progress.append(p)
        )
    )
    await eventually(lambda: len(progress) >= 2, what="two progress notifications")
    sent = [e for e in client.traffic if e.method == "tools/call" and e.direction == "out"]
    return call, sent[-1].message.id


async def _check_stopped(client: mcpx.Client, progress: list, request_id: int, timeout: float = 10) -> None:
    await eventually(
        lambda: any("slow_task stopped at step" in e.raw for e in client.traffic if e.channel == "stderr"),
        timeout,
        what="the server to say it stopped",
    )
    still = await client.call_tool("echo", {"text": "still here"})
    assert texts(still) == "still here"
    count = len(progress)
    await asyncio.sleep(0.3)  # a cancelled task reports no more progress, and is never answered
    assert len(progress) == count
    cancelled = [e for e in client.traffic if e.method == "notifications/cancelled"]
    assert len(cancelled) == 1 and cancelled[0].direction == "out"
    assert cancelled[0].message.params["requestId"] == request_id
    assert not [e for e in client.traffic if e.direction == "in" and e.rpc_id == request_id]


@pytest.mark.parametrize("era", ERAS)
async def test_progress_then_cancellation_is_honoured(era: str) -> None:
    progress: list[tuple] = []
    async with mcpx.connect(demo(), protocol_era=era) as client:
        done = await client.call_tool(
            "slow_task", {"steps": 3, "interval": 0.01}, on_progress=lambda *p: progress.append(p)
        )
        assert texts(done) == "Finished 3 steps."
        assert progress == [(1, 3, "step 1 of 3"), (2, 3, "step 2 of 3"), (3, 3, "step 3 of 3")]
        progress.clear()
        call, request_id = await _start_slow_task(client, progress)
        await client.peer.cancel(request_id, "the user pressed Esc")  # what the TUI does
        with pytest.raises(mcpx.errors.McpxError, match="cancelled"):
            await call
        await _check_stopped(client, progress, request_id)


async def test_cancelling_the_callers_task_tells_the_server() -> None:
    progress: list[tuple] = []
    async with mcpx.connect(demo(), protocol_era="legacy") as client:
        call, request_id = await _start_slow_task(client, progress)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await _check_stopped(client, progress, request_id, timeout=2)


@pytest.mark.parametrize("era", ERAS)
async def test_logging_at_every_level(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        logs: list[dict] = []
        client.on_notification("notifications/message", lambda m, e: logs.append(m.params))
        default = await client.call_tool("log_every_level")
        await client.set_logging_level("debug")
        everything = await client.call_tool("log_every_level")
        await client.set_logging_level("error")
        severe = await client.call_tool("log_every_level")
        await eventually(lambda: len(logs) >= (4 if era == "modern" else 11) + 8, what="log notifications")
    levels = [log["level"] for log in logs]
    all_levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
    if era == "legacy":  # until logging/setLevel the server sends info and above
        assert levels == all_levels[1:] + all_levels + all_levels[4:]
        assert "level is info" in texts(default)
    else:  # modern: nothing unless the request carries _meta logLevel
        assert levels == all_levels + all_levels[4:]
        assert "did not opt in" in texts(default)
    assert "Sent 8" in texts(everything) and "Sent 4" in texts(severe)
    assert logs[-4]["data"] == {"message": "structured data is allowed too", "code": 42, "retry": False}
    assert {log["logger"] for log in logs} == {"demo.logs"}


@pytest.mark.parametrize("era", ERAS)
async def test_a_tool_that_adds_tools_refreshes_the_list(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        before = [t.name for t in await client.list_tools()]
        changed: list[str] = []
        client.on_list_changed(changed.append)
        await client.watch()  # modern: subscriptions/listen; legacy: list changes come unasked
        if era == "modern":
            await eventually(lambda: client.watching.acknowledged, what="the listen acknowledgement")
            assert client.watching.acknowledged == {"toolsListChanged": True}
        added = await client.call_tool("add_tool", {"name": "shiny"})
        await eventually(lambda: changed, what="the refreshed list")
        after = [t.name for t in client.cached("tools")]
        assert (
            texts(await client.call_tool("shiny", {"note": "hi"}))
            == "Hello from shiny, dynamic tool number 1: hi"
        )
        # one change at a time: the client refreshes once per change it sees
        auto = await client.call_tool("add_tool")
        await eventually(lambda: len(changed) >= 2, what="the second refresh")
        removed = await client.call_tool("remove_tool", {"name": "shiny"})
        await eventually(lambda: len(changed) >= 3, what="the third refresh")
        refused = await client.call_tool("remove_tool", {"name": "echo"})
        final = [t.name for t in client.cached("tools")]
    assert "Added tool 'shiny'" in texts(added) and after == [*before, "shiny"]
    assert "dynamic_2" in texts(auto) and "Removed tool 'shiny'" in texts(removed) and refused.is_error
    assert final == [*before, "dynamic_2"]
    notes = [e for e in client.traffic if e.method == "notifications/tools/list_changed"]
    assert len(notes) == 3
    if era == "modern":  # tagged with the listen request's id
        listen = next(
            e for e in client.traffic if e.method == "subscriptions/listen" and e.direction == "out"
        )
        assert {n.message.params["_meta"]["io.modelcontextprotocol/subscriptionId"] for n in notes} == {
            listen.message.id
        }


def test_python_dash_m_prints_its_help() -> None:
    import subprocess

    proc = subprocess.run([*DEMO[:3], "--help"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and "--misbehave" in proc.stdout and "unknown-ids" in proc.stdout


async def test_mcpx_demo_without_a_tui_prints_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    from mcpx.cli.demo import _print_catalogue, demo_spec

    assert await _print_catalogue(demo_spec()) == 0
    out = capsys.readouterr().out
    assert "20 tools:" in out and "  echo " in out and "demo://readme" in out and "greeting" in out
