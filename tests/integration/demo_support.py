"""Shared by the demo server's tests: how to start it, and answers a client gives to what it asks."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import Any

from mcpx import ServerSpec

#: a fast ticker so subscription tests do not wait long
DEMO = [sys.executable, "-m", "mcpx.demo", "--tick", "0.2"]
ERAS = ["legacy", "modern"]

BOOKING = {
    "name": "Ann",
    "email": "ann@example.com",
    "website": "https://ann.example.com",
    "date": "2026-09-01",
    "arrival": "2026-09-01T19:30:00Z",
    "guests": 4,
    "budget": 55.5,
    "window_seat": False,
    "seating": "outdoor",
    "occasion": "birthday",
    "menu": "fish",
}


def demo(*extra: str) -> ServerSpec:
    return ServerSpec(command=[*DEMO, *extra])


def texts(result: Any) -> str:
    content = result.content if hasattr(result, "content") else result["content"]
    return " ".join(block["text"] for block in content if block.get("type") == "text")


async def eventually(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "the condition") -> Any:
    """Poll `predicate` until it is truthy (events arrive from another process, on their own time)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


class Asked:
    """Client-side handlers that record what the server asked and answer it."""

    def __init__(self, elicit: dict[str, Any] | None = None, action: str = "accept") -> None:
        self.elicitations: list[dict[str, Any]] = []
        self.samplings: list[dict[str, Any]] = []
        self.elicit_answer = elicit if elicit is not None else BOOKING
        self.action = action

    async def on_elicit(self, params: Any) -> dict[str, Any]:
        self.elicitations.append(params)
        if self.action != "accept":
            return {"action": self.action}
        if params.get("mode") == "url":
            return {"action": "accept"}
        fields = params["requestedSchema"]["properties"]
        if "question" in fields:
            return {"action": "accept", "content": {"question": "What is the capital of France?"}}
        return {"action": "accept", "content": {k: v for k, v in self.elicit_answer.items() if k in fields}}

    async def on_sample(self, params: Any) -> dict[str, Any]:
        self.samplings.append(params)
        question = params["messages"][0]["content"]["text"]
        return {
            "role": "assistant",
            "content": {"type": "text", "text": f"Paris (you asked: {question})"},
            "model": "stub-model",
            "stopReason": "endTurn",
        }
