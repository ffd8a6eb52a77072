"""Collections run against real servers: the SDK server (one start for many tests) and a recording served
by the mock."""

from __future__ import annotations

from pathlib import Path

from mcpx.collection import load_collection, run_collection

SERVERS = Path(__file__).resolve().parents[1] / "servers"
RECORDING = Path(__file__).resolve().parents[1] / "tui" / "recordings" / "record_server.mcpx.jsonl"


async def test_passes_and_failures_against_the_sdk_server(tmp_path: Path) -> None:
    path = tmp_path / "sdk.mcpx.yaml"
    path.write_text(
        f"""\
server: {SERVERS / "sdk_everything.py"}
tests:
  - name: echoes
    call: echo
    arguments: {{text: hi}}
    expect: {{isError: false, text: hi, maxMs: 30000}}
  - name: forecast conforms and differs
    call: forecast
    arguments: {{city: Paris}}
    expect:
      outputSchema: true
      structuredContent: {{city: Paris, temperature_c: 20, conditions: [sunny, breezy], humid: false}}
      json: {{"$.structuredContent.conditions": {{contains: sunny}}}}
  - name: lists tools
    method: tools/list
    expect: {{json: {{"$.tools[*].name": {{contains: [echo, forecast]}}}}}}
  - name: a tool error is expected
    call: fail
    expect: {{isError: true, contains: on purpose}}
  - name: reads a resource
    method: resources/read
    params: {{uri: "test://readme"}}
    expect: {{matches: "^Hello from the readme"}}
  - name: a method the server lacks
    method: no/such
    expect: {{error: -32601}}
  - name: cannot run
    call: 3
  - name: skipped
    call: echo
    skip: not today
""",
        encoding="utf-8",
    )
    results = await run_collection(load_collection(path))
    assert [r.status for r in results] == [
        "passed", "failed", "passed", "passed", "passed", "passed", "error", "skipped"
    ]  # fmt: skip
    forecast = results[1]
    # only the differing field, named by its path; the outputSchema and containment held
    assert [(d.where, d.expected, d.actual) for d in forecast.differences] == [
        ("structuredContent.temperature_c", 20, 21.5)
    ]
    assert results[0].elapsed_ms > 0 and results[0].answer is not None
    assert results[6].message == "call must name a tool"


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
