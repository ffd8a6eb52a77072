"""Record a full session with tests/servers/record_server.py through mcpx's library: every catalogue, a
call of each tool (progress and elicitation included), a resource read and a prompt.

    python record_session.py OUT.mcpx.jsonl [--era legacy|modern] [--changed]

Also importable: `await record_full_session(path, era=..., changed=...)`.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SERVER = HERE / "record_server.py"


async def record_full_session(path: str | Path, *, era: str = "legacy", changed: bool = False) -> None:
    import mcpx
    from mcpx.record.writer import start_recording
    from mcpx.transports.spec import resolve_target
    from mcpx.wire.traffic import TrafficLog

    spec = resolve_target(str(SERVER), ["--changed"] if changed else [])
    log = TrafficLog()
    recorder = start_recording(path, log, spec, era=era)

    async def elicit(params: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ann", "seats": 3}}

    progress: list[float] = []
    try:
        async with mcpx.connect(spec, traffic=log, protocol_era=era, on_elicit=elicit) as client:
            await client.list_tools()
            await client.list_resources()
            await client.list_resource_templates()
            await client.list_prompts()
            await client.call_tool("echo", {"text": "hello"})
            await client.call_tool("add", {"a": 2, "b": 3})
            await client.call_tool("stats", {"items": ["a", "b", "a"]})
            await client.call_tool("stamp", {})
            await client.call_tool("slow", {"steps": 3}, on_progress=lambda p, t, m: progress.append(p))
            if era == "legacy":  # the SDK elicits over a back-channel only in the handshake era
                await client.call_tool("book", {})
            await client.read_resource("memo://readme")
            await client.get_prompt("greet", {"name": "Bo"})
    finally:
        recorder.close()


if __name__ == "__main__":
    out = sys.argv[1]
    era = sys.argv[sys.argv.index("--era") + 1] if "--era" in sys.argv else "legacy"
    asyncio.run(record_full_session(out, era=era, changed="--changed" in sys.argv))
