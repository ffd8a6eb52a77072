"""A collection run through the library, its server a recording served by the mock (the SDK server and
server-everything are run by `mcpx test` in test_collection_cli.py)."""

from __future__ import annotations

from pathlib import Path

from mcpx.collection import load_collection, run_collection

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
