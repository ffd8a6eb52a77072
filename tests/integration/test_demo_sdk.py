"""The demo server through the official Python SDK's client (`mcp` v2), in its legacy, modern and auto
modes: a second, independent implementation of both eras must be able to use every part of it."""

from __future__ import annotations

import sys

import anyio
import pytest
from demo_support import BOOKING

mcp = pytest.importorskip("mcp")
from mcp import types  # noqa: E402
from mcp.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPDeprecationWarning  # noqa: E402

pytestmark = pytest.mark.timeout(60)
MODES = ["legacy", "2026-07-28", "auto"]
PARAMS = StdioServerParameters(command=sys.executable, args=["-m", "mcpx.demo", "--tick", "0.2"])


async def elicit(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
    if getattr(params, "mode", None) == "url":
        return types.ElicitResult(action="accept")
    fields = params.requested_schema["properties"]  # type: ignore[union-attr]
    return types.ElicitResult(action="accept", content={k: v for k, v in BOOKING.items() if k in fields})


async def sample(context: object, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    asked = params.messages[0].content
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"Paris ({getattr(asked, 'text', '')})"),
        model="sdk-stub",
    )


async def roots(context: object) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///srv/sdk", name="sdk")])


def client(mode: str) -> Client:
    return Client(
        PARAMS,
        mode=mode,  # type: ignore[arg-type]
        elicitation_callback=elicit,  # type: ignore[arg-type]
        sampling_callback=sample,  # type: ignore[arg-type]
        list_roots_callback=roots,  # type: ignore[arg-type]
    )


def text_of(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_lists_and_calls_tools(mode: str) -> None:
    async with client(mode) as sdk:
        expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
        assert sdk.protocol_version == expected
        tools = (await sdk.list_tools()).tools
        echo = await sdk.call_tool("echo", {"text": "sdk", "times": 3})
        weather = await sdk.call_tool("weather", {"city": "Rome"})
        tree = await sdk.call_tool("build_tree", {"root": {"label": "a", "children": [{"label": "b"}]}})
        invalid = await sdk.call_tool("register_event", {"title": "x"})
        gallery = await sdk.call_tool("content_gallery", {})
    assert len(tools) == 20 and tools[0].name == "echo" and tools[0].icons
    assert {t.name for t in tools if t.output_schema} == {"add", "weather", "weather_mismatch"}
    assert text_of(echo) == "sdk sdk sdk"
    assert weather.structured_content is not None and weather.structured_content["city"] == "Rome"
    assert tree.structured_content == {"nodes": 2}
    assert invalid.is_error
    assert [type(b).__name__ for b in gallery.content] == [
        "TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource"
    ]  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_answers_elicitation_sampling_and_roots(mode: str) -> None:
    async with client(mode) as sdk:
        booking = await sdk.call_tool("book_table", {})
        account = await sdk.call_tool("connect_account", {"account": "sdk"})
        answer = await sdk.call_tool("ask_model", {})  # two rounds: a form, then sampling
        listed = await sdk.call_tool("list_roots", {})
    assert booking.structured_content == {"booking": {k: v for k, v in BOOKING.items()}}, text_of(booking)
    assert "agreed to open" in text_of(account), text_of(account)
    assert answer.structured_content is not None, text_of(answer)
    assert answer.structured_content["model"] == "sdk-stub"
    assert text_of(listed) == "file:///srv/sdk (sdk)"


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_reads_resources_and_prompts(mode: str) -> None:
    async with client(mode) as sdk:
        first = await sdk.list_resources()
        second = await sdk.list_resources(cursor=first.next_cursor)
        logo = await sdk.read_resource("demo://logo.png")
        templated = await sdk.read_resource("demo://weather/Oslo/monday")
        prompt = await sdk.get_prompt("code_review", {"language": "go"})
        done = await sdk.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="demo://weather/{city}/{day}"),
            {"name": "city", "value": "Os"},
        )
    assert len(first.resources) == 3 and second.next_cursor is None and len(second.resources) == 2
    assert isinstance(logo.contents[0], types.BlobResourceContents)
    assert (
        isinstance(templated.contents[0], types.TextResourceContents) and "Oslo" in templated.contents[0].text
    )
    assert isinstance(prompt.messages[1].content, types.EmbeddedResource)
    assert done.completion.values == ["Oslo"]


async def test_the_sdk_listens_for_changes_in_the_modern_era() -> None:
    async with client("2026-07-28") as sdk:
        async with sdk.listen(tools_list_changed=True, resource_subscriptions=["demo://ticker"]) as sub:
            assert sub.honored.tools_list_changed and sub.honored.resource_subscriptions == ["demo://ticker"]
            await sdk.call_tool("add_tool", {"name": "from_sdk"})
            seen: list[str] = []
            with anyio.fail_after(10):
                async for event in sub:
                    seen.append(type(event).__name__)
                    if len(set(seen)) >= 2:
                        break
        tools = (await sdk.list_tools()).tools
    assert "from_sdk" in {t.name for t in tools}
    assert len(set(seen)) == 2, seen


async def test_the_sdk_subscribes_and_sets_the_log_level_in_the_legacy_era() -> None:
    logs: list[str] = []
    updates = anyio.Event()

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.level)

    async def on_message(message: object) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.set()

    async with Client(PARAMS, mode="legacy", logging_callback=on_log, message_handler=on_message) as sdk:
        with pytest.warns(MCPDeprecationWarning):  # deprecated in 2026-07-28, still the legacy way
            await sdk.set_logging_level("warning")
        await sdk.call_tool("log_every_level", {})
        with pytest.warns(MCPDeprecationWarning):
            await sdk.subscribe_resource("demo://ticker")
        with anyio.fail_after(10):
            await updates.wait()
    assert logs == ["warning", "error", "critical", "alert", "emergency"]
