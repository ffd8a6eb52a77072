"""A collection run through the library, its server a recording served by the mock (the SDK server and
server-everything are run by `mcpx test` in test_collection_cli.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from mcpx.collection import CollectionRunner, load_collection, run_collection

SERVERS = Path(__file__).resolve().parents[1] / "servers"

RECORDING = Path(__file__).resolve().parents[1] / "tui" / "recordings" / "record_server.mcpx.jsonl"


async def test_a_recording_serves_as_the_server(tmp_path: Path) -> None:
    """The issue's own example, answered from a recording of the server through mcpx mock's machinery."""
    path = tmp_path / "rec.mcpx.yaml"
    path.write_text(
        f"""\
server: {{recording: {RECORDING}}}
tests:
  - name: adds two numbers
    call: add
    arguments: {{a: 2, b: 3}}
    expect: {{isError: false, text: "5", maxMs: 5000}}
  - name: lists the add tool
    method: tools/list
    expect: {{json: {{"$.tools[*].name": {{contains: add}}}}}}
  - name: not recorded
    call: add
    arguments: {{a: 1, b: 1}}
    expect: {{text: "2"}}
""",
        encoding="utf-8",
    )
    results = await run_collection(load_collection(path))
    assert [r.status for r in results] == ["passed", "passed", "failed"]
    (difference,) = results[2].differences
    assert difference.where == "error" and "no recorded tools/call request" in difference.actual["message"]


async def test_a_fresh_connection_and_a_server_started_again_after_it_died(tmp_path: Path) -> None:
    """`fresh: true` gets a connection of its own; a server that dies during a test fails that test and
    is started again for the next (tests/servers/dies.py exits when its tool is called)."""
    path = tmp_path / "dies.mcpx.yaml"
    path.write_text(
        f"""\
server: [{sys.executable}, {SERVERS / "dies.py"}, call, "3"]
era: legacy
tests:
  - name: kills it
    call: crash
  - name: on a connection of its own
    method: tools/list
    fresh: true
    expect: {{json: {{"$.tools[*].name": [crash]}}}}
  - name: on the shared one, started again
    method: tools/list
    expect: {{json: {{"$.tools[0].name": crash}}}}
""",
        encoding="utf-8",
    )
    collection = load_collection(path)
    async with CollectionRunner(collection) as runner:
        results = [await runner.run(test) for test in collection.tests]
        connections = len(runner.traffic)
    assert [r.status for r in results] == ["error", "passed", "passed"]
    assert results[0].message.startswith("the server went away: ") and "code 3" in results[0].message
    assert connections == 3  # the shared one, the fresh one, the shared one again
