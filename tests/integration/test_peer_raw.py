"""Frames sent on purpose with send_raw(): their answers are linked, not reported as problems."""

from __future__ import annotations

import asyncio
from pathlib import Path

import mcpx

FINE = str(Path(__file__).parent.parent / "servers" / "doctor_faults.py")


async def test_the_answer_to_a_raw_request_is_no_problem() -> None:
    async with mcpx.connect(FINE, ["fine"], protocol_era="legacy") as client:
        await client.send_raw('{"jsonrpc":"2.0","id":"raw-1","method":"tools/list"}')
        for _ in range(100):
            answers = [e for e in client.traffic if e.rpc_id == "raw-1" and e.direction == "in"]
            if answers:
                break
            await asyncio.sleep(0.02)
        assert answers and answers[0].method == "tools/list"
        assert answers[0].flags == []
        assert client.peer.problems == []
        # an error answer to a raw request is linked as well (the next call's answer comes after it)
        await client.send_raw('{"jsonrpc":"2.0","id":"raw-2","method":"nope"}')
        await client.list_tools(refresh=True)
        assert [e.method for e in client.traffic if e.rpc_id == "raw-2" and e.direction == "in"] == ["nope"]
        assert client.peer.problems == []
