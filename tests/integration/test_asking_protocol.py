"""What the client does while the server asks: nothing times out while a person answers, a withdrawn
question stops being asked, -32042 leads to the URLs and a retry, and roots changes are announced in the
legacy era only."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import mcpx
from mcpx.errors import RpcError
from mcpx.protocol.client import RETRY_KEY

SERVERS = Path(__file__).parent.parent / "servers"
ASKING = str(SERVERS / "sdk_asking.py")
WITHDRAWS = str(SERVERS / "withdraws.py")
EVERYTHING = Path(__file__).parents[2] / "node_modules" / ".bin" / "mcp-server-everything"

pytestmark = pytest.mark.timeout(90)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_slow_answer_does_not_time_out_the_call_and_roots_changes_are_told_in_legacy_only(
    era: str,
) -> None:
    async def elicit(params: Any) -> dict[str, Any]:
        await asyncio.sleep(1.5)  # longer than the request timeout: a person reading the form
        return {"action": "accept", "content": {"name": "Ann"}}

    roots = [{"uri": "file:///work/a", "name": "a"}]
    async with mcpx.connect(
        ASKING, protocol_era=era, timeout=0.6, connect_timeout=30, roots=roots, on_elicit=elicit
    ) as client:
        result = await client.call_tool("book", {})
        assert "2 seats for Ann" in result.content[0]["text"]
        told = await client.set_roots([{"uri": "file:///work/b"}])
        assert told is (era == "legacy")
        sent = [e.method for e in client.traffic if e.direction == "out"]
        assert ("notifications/roots/list_changed" in sent) is (era == "legacy")
        assert "file:///work/b" in (await client.call_tool("roots", {})).content[0]["text"]


async def test_a_withdrawn_question_is_not_answered() -> None:
    started = asyncio.Event()
    outcome: list[str] = []

    async def elicit(params: Any) -> dict[str, Any]:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            outcome.append("cancelled")
            raise
        return {"action": "cancel"}

    async with mcpx.connect(WITHDRAWS, protocol_era="legacy", on_elicit=elicit) as client:
        result = await client.call_tool("withdraw", {})
        assert result.content[0]["text"] == "withdrawn request not answered"
        answers = [e for e in client.traffic if e.direction == "out" and e.rpc_id == "srv-1"]
        assert answers == []
        assert not started.is_set() or outcome == ["cancelled"]


@pytest.mark.npm
async def test_url_elicitation_required_shows_the_url_then_retries_the_call() -> None:
    assert EVERYTHING.exists(), "run scripts/test to install the npm peers"
    asked: list[dict[str, Any]] = []

    async def elicit(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept"}

    async with mcpx.connect(str(EVERYTHING), protocol_era="legacy", on_elicit=elicit) as client:
        args = {"url": "https://example.com/authorize", "errorPath": True}
        result = await client.call_tool("trigger-url-elicitation", args)
        # first the prerequisite from the -32042 error, then (after the retry) the request path's own URL
        assert [a["url"] for a in asked] == [
            "https://modelcontextprotocol.io",
            "https://example.com/authorize",
        ]
        assert asked[0][RETRY_KEY] == "tools/call" and RETRY_KEY not in asked[1]
        assert "User completed the URL elicitation flow" in result.content[0]["text"]
        errors = [
            e for e in client.traffic if e.direction == "in" and '"code":-32042' in e.raw.replace(" ", "")
        ]
        assert len(errors) == 1


@pytest.mark.npm
async def test_url_elicitation_required_and_declined_fails_with_the_servers_error() -> None:
    async def elicit(params: Any) -> dict[str, Any]:
        return {"action": "decline"}

    async with mcpx.connect(str(EVERYTHING), protocol_era="legacy", on_elicit=elicit) as client:
        with pytest.raises(RpcError) as caught:
            await client.call_tool(
                "trigger-url-elicitation", {"url": "https://example.com/x", "errorPath": True}
            )
        assert caught.value.error_code == -32042
