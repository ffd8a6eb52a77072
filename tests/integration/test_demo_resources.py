"""The demo server's resources, templates, completion, subscriptions and prompts, and the protocol rules
of each era (version negotiation, the `_meta` envelope, errors), through mcpx's own client."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest
from demo_support import ERAS, demo, eventually

import mcpx
from mcpx.errors import RpcError
from mcpx.protocol.versions import LEGACY_VERSIONS

pytestmark = pytest.mark.timeout(60)
TICKER = "demo://ticker"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"


@pytest.mark.parametrize("era", ERAS)
async def test_resources_text_binary_and_paged(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        resources = await client.list_resources()
        reads = {r.uri: (await client.read_resource(r.uri)).contents for r in resources}
        with pytest.raises(RpcError) as missing:
            await client.read_resource("demo://nothing-here")
    pages = [e for e in client.traffic if e.method == "resources/list" and e.direction == "out"]
    assert len(pages) == 2  # three per page: the client followed nextCursor
    assert [r.uri for r in resources] == [
        "demo://readme", "demo://config.json", "demo://logo.png", "demo://beep.wav", TICKER
    ]  # fmt: skip
    assert (
        reads["demo://readme"][0]["mimeType"] == "text/markdown"
        and "# mcpx demo server" in reads["demo://readme"][0]["text"]
    )
    assert json.loads(reads["demo://config.json"][0]["text"])["era"] == era
    assert base64.b64decode(reads["demo://logo.png"][0]["blob"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert base64.b64decode(reads["demo://beep.wav"][0]["blob"])[:4] == b"RIFF"
    assert reads[TICKER][0]["text"].startswith("tick ")
    # not found: -32002 in the handshake era, -32602 (with the URI) in 2026-07-28
    assert missing.value.error_code == (-32002 if era == "legacy" else -32602)
    assert missing.value.data == {"uri": "demo://nothing-here"}


@pytest.mark.parametrize("era", ERAS)
async def test_templates_and_completion(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        templates = await client.list_resource_templates()
        weather = await client.read_resource("demo://weather/Lisbon/today")
        user = await client.read_resource("demo://users/u042")
        ref = {"type": "ref/resource", "uri": "demo://weather/{city}/{day}"}
        cities = await client.complete(ref, "city", "li")
        every_day = await client.complete(ref, "day", "")
        city_days = await client.complete(ref, "day", "", context={"city": "Lisbon"})
        users = await client.complete(
            {"type": "ref/resource", "uri": "demo://users/{user_id}"}, "user_id", "u"
        )
    assert [t.uri_template for t in templates] == ["demo://weather/{city}/{day}", "demo://users/{user_id}"]
    assert json.loads(weather.contents[0]["text"])["city"] == "Lisbon"
    assert json.loads(user.contents[0]["text"]) == {"id": "u042", "name": "Demo user 042", "known": True}
    assert cities.completion.values == ["Lisbon"]
    assert len(every_day.completion.values) == 9
    assert city_days.completion.values == ["today", "tomorrow", "monday", "tuesday", "wednesday"]
    assert len(users.completion.values) == 100 and users.completion.total == 150 and users.completion.has_more


@pytest.mark.parametrize("era", ERAS)
async def test_prompts_with_arguments_completion_resources_and_images(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        prompts = {p.name: p for p in await client.list_prompts()}
        greeting = await client.get_prompt("greeting", {"name": "Ann", "style": "pirate"})
        review = await client.get_prompt("code_review", {"language": "python"})
        image = await client.get_prompt("describe_image")
        embedded = await client.get_prompt("summarize_resource", {"uri": "demo://logo.png"})
        with pytest.raises(RpcError) as missing:
            await client.get_prompt("greeting", {})
        ref = {"type": "ref/prompt", "name": "greeting"}
        languages = await client.complete(ref, "language", "fr")
        english = await client.complete(ref, "style", "")
        french = await client.complete(ref, "style", "", context={"language": "french"})
        uris = await client.complete({"type": "ref/prompt", "name": "summarize_resource"}, "uri", "png")
    assert set(prompts) == {"greeting", "code_review", "describe_image", "summarize_resource"}
    assert [(a.name, bool(a.required)) for a in prompts["greeting"].arguments or []] == [
        ("name", True), ("language", False), ("style", False)
    ]  # fmt: skip
    assert greeting.messages[0]["content"]["text"] == "Greet Ann in a pirate way, in english."
    assert [m["content"]["type"] for m in review.messages] == ["text", "resource", "text"]
    assert review.messages[1]["content"]["resource"]["uri"] == "demo://config.json"
    assert image.messages[0]["content"]["mimeType"] == "image/png"
    assert embedded.messages[1]["content"]["resource"]["blob"]
    assert missing.value.error_code == -32602 and "name" in missing.value.error_message
    assert languages.completion.values == ["french"]
    assert english.completion.values == ["formal", "casual", "pirate", "shakespearean"]
    assert french.completion.values == ["formel", "familier"]
    assert uris.completion.values == ["demo://logo.png"]


@pytest.mark.parametrize("era", ERAS)
async def test_subscribing_to_the_ticker_brings_updates(era: str) -> None:
    async with mcpx.connect(demo(), protocol_era=era) as client:
        updates: list[dict] = []
        client.on_notification("notifications/resources/updated", lambda m, e: updates.append(m.params))
        first = (await client.read_resource(TICKER)).contents[0]["text"]
        await client.subscribe_resource(TICKER)
        await eventually(lambda: len(updates) >= 2, what="two resources/updated notifications")
        later = (await client.read_resource(TICKER)).contents[0]["text"]
        if era == "legacy":  # in 2026-07-28 a subscription ends with its listen request (see below)
            await client.unsubscribe_resource(TICKER)
            count = len(updates)
            await asyncio.sleep(0.6)  # three ticks: none may come now
            assert len(updates) <= count + 1  # (one may have been on its way)
    assert first != later
    assert {u["uri"] for u in updates} == {TICKER}
    if era == "modern":
        listen = next(
            e for e in client.traffic if e.method == "subscriptions/listen" and e.direction == "out"
        )
        ack = next(e for e in client.traffic if e.method == "notifications/subscriptions/acknowledged")
        assert ack.message.params == {
            "_meta": {SUBSCRIPTION: listen.message.id},
            "notifications": {"toolsListChanged": True, "resourceSubscriptions": [TICKER]},
        }
        assert all(u["_meta"][SUBSCRIPTION] == listen.message.id for u in updates)
        assert ack.seq < min(e.seq for e in client.traffic if e.method == "notifications/resources/updated")
    else:
        assert all("_meta" not in u for u in updates)


async def test_unsubscribing_ends_the_listen_request_in_the_modern_era() -> None:
    async with mcpx.connect(demo(), protocol_era="modern") as client:
        await client.subscribe_resource(TICKER)
        await eventually(lambda: client.watching.acknowledged, what="the acknowledgement")
        await client.unsubscribe_resource(TICKER)
        await eventually(
            lambda: any(e.method == "notifications/cancelled" for e in client.traffic), 2, "the listen to end"
        )


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
async def test_initialize_answers_each_revision_it_is_offered(version: str) -> None:
    async with mcpx.connect(demo(), protocol_version=version) as client:
        assert client.protocol_version == version
        assert client.server_info.name == "mcpx-demo"
        assert "demo://readme" in (client.instructions or "")
        # offered something it does not know, it answers with its newest
        for offered in ("1999-01-01", "2026-07-28"):
            again = await client.peer.request(
                "initialize",
                {"protocolVersion": offered, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
            )
            assert again["protocolVersion"] == "2025-11-25"
        assert "resultType" not in again and "_meta" not in again


async def test_the_modern_envelope_is_checked_and_every_result_says_its_type() -> None:
    async with mcpx.connect(demo(), protocol_era="modern") as client:
        assert client.protocol_version == "2026-07-28"
        await client.list_tools()
        await client.call_tool("echo", {"text": "x"})
        await client.read_resource("demo://readme")
        await client.list_prompts()
        await client.complete({"type": "ref/prompt", "name": "greeting"}, "language", "")
        peer, envelope = client.peer, client.era.wrap("tools/list", {})["_meta"]  # type: ignore[index]
        answers = [e.message.result for e in client.traffic if e.kind == "response"]
        errors = {}
        for name, params in {
            "unknown version": {
                "_meta": {**envelope, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
            },
            "no capabilities": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
            "bad log level": {"_meta": {**envelope, "io.modelcontextprotocol/logLevel": "loud"}},
            "no envelope": {},
        }.items():
            with pytest.raises(RpcError) as caught:
                await peer.request("tools/list", params)
            errors[name] = caught.value
        removed = {}
        for method in ("ping", "logging/setLevel", "resources/subscribe"):
            with pytest.raises(RpcError) as caught:
                await peer.request(method, {"_meta": envelope, "level": "info", "uri": TICKER})
            removed[method] = caught.value.error_code
    for answer in answers:
        assert answer["resultType"] == "complete"
        assert answer["_meta"][SERVER_INFO]["name"] == "mcpx-demo"
    cacheable = [a for a in answers if "ttlMs" in a]
    assert len(cacheable) == 4 and {a["cacheScope"] for a in cacheable} == {"public"}
    assert errors["unknown version"].error_code == -32022
    assert errors["unknown version"].data == {
        "supported": ["2026-07-28", *LEGACY_VERSIONS], "requested": "2099-01-01"
    }  # fmt: skip
    assert {errors[k].error_code for k in ("no capabilities", "bad log level", "no envelope")} == {-32602}
    assert "initialize" in errors["no envelope"].error_message
    assert removed == {"ping": -32601, "logging/setLevel": -32601, "resources/subscribe": -32601}


async def test_request_state_is_sealed_and_bound_to_its_request() -> None:
    async with mcpx.connect(demo(), protocol_era="modern") as client:
        client.identity.capabilities["elicitation"] = {}  # declare it without a handler: we answer by hand
        client.identity.capabilities["sampling"] = {}
        peer, wrap = client.peer, client.era.wrap
        call = {"name": "ask_model", "arguments": {"question": "A?"}}
        first = await peer.request("tools/call", wrap("tools/call", call))
        state = first["requestState"]
        reply = {"role": "assistant", "content": {"type": "text", "text": "B"}, "model": "m"}
        answered = {**call, "inputResponses": {"answer": reply}}
        ok = await peer.request("tools/call", wrap("tools/call", {**answered, "requestState": state}))
        outcomes = {}
        for name, params in {
            "altered": {
                **answered,
                "requestState": state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1],
            },
            "garbage": {**answered, "requestState": "not-a-state"},
            "other call": {**answered, "arguments": {"question": "C?"}, "requestState": state},
        }.items():
            with pytest.raises(RpcError) as caught:
                await peer.request("tools/call", wrap("tools/call", params))
            outcomes[name] = caught.value
    assert first["resultType"] == "input_required"
    assert first["inputRequests"]["answer"]["method"] == "sampling/createMessage"
    assert ok["resultType"] == "complete" and ok["structuredContent"]["answer"] == "B"
    assert {e.error_code for e in outcomes.values()} == {-32602}
    assert "different request" in outcomes["other call"].error_message
