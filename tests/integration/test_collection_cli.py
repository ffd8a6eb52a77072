"""`mcpx test` run as users run it: collections that pass and fail against the SDK server and
server-everything, the JUnit report, the JSON output, --update, and the exit codes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mcpx.collection import load_collection, run_collection

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "servers"
RECORDING = ROOT / "tests" / "tui" / "recordings" / "record_server.mcpx.jsonl"
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"


def mcpx_test(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "mcpx", "test", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


SDK_COLLECTION = f"""\
# against the SDK server: one connection for all of these
server: {SERVERS / "sdk_everything.py"}
tests:
  - name: echoes
    call: echo
    arguments: {{text: hi}}
    expect: {{isError: false, text: hi, maxMs: 30000}}
  - name: forecast conforms but differs
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
"""


def test_a_collection_against_the_sdk_server_with_junit_and_json(tmp_path: Path) -> None:
    (tmp_path / "sdk.mcpx.yaml").write_text(SDK_COLLECTION, encoding="utf-8")
    done = mcpx_test("sdk.mcpx.yaml", "--format", "json", "--junit", "out.xml", cwd=tmp_path)
    assert done.returncode == 8, done.stderr
    (file,) = json.loads(done.stdout)["files"]
    assert [(t["name"], t["status"]) for t in file["tests"]] == [
        ("echoes", "passed"),
        ("forecast conforms but differs", "failed"),
        ("lists tools", "passed"),
        ("a tool error is expected", "passed"),
        ("reads a resource", "passed"),
        ("a method the server lacks", "passed"),
        ("cannot run", "error"),
        ("skipped", "skipped"),
    ]
    # the one differing field, by its path; the output schema and the containment held
    assert file["tests"][1]["differences"] == [
        {"where": "structuredContent.temperature_c", "expected": 20, "actual": 21.5}
    ]
    assert file["tests"][1]["line"] == 8
    suite = ET.parse(tmp_path / "out.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "8",
        "1",
        "1",
        "1",
    )
    failure = suite.find("testcase[@name='forecast conforms but differs']/failure")
    assert failure is not None and "structuredContent.temperature_c: expected 20, got 21.5" in (
        failure.text or ""
    )
    assert suite.find("testcase[@name='cannot run']/error").get("message") == "call must name a tool"


@pytest.mark.npm
def test_server_everything_with_answers_per_test(tmp_path: Path) -> None:
    """Elicitation and sampling answered as each test says; the text report; a failure's diff."""
    if not EVERYTHING.exists():
        pytest.fail("node_modules/.bin/mcp-server-everything is missing: run scripts/test", pytrace=False)
    (tmp_path / "reply.json").write_text(
        '{"role": "assistant", "content": {"type": "text", "text": "forty-two"}, "model": "m"}',
        encoding="utf-8",
    )
    (tmp_path / "everything.mcpx.yaml").write_text(
        f"""\
server: {EVERYTHING}
tests:
  - name: sums
    call: get-sum
    arguments: {{a: 2, b: 3}}
    expect: {{contains: "5"}}
  - name: elicits
    call: trigger-elicitation-request
    elicit: {{name: Ada}}
    expect: {{contains: ["- Name: Ada", "It was a dark and stormy night."]}}
  - name: declines by default
    call: trigger-elicitation-request
    expect: {{contains: declined}}
  - name: samples
    call: trigger-sampling-request
    arguments: {{prompt: hi}}
    sample: '@reply.json'
    expect: {{contains: forty-two}}
  - name: structured
    call: get-structured-content
    arguments: {{location: Chicago}}
    expect: {{outputSchema: true}}
  - name: wrong sum
    call: get-sum
    arguments: {{a: 2, b: 3}}
    expect: {{text: "6"}}
""",
        encoding="utf-8",
    )
    done = mcpx_test("everything.mcpx.yaml", cwd=tmp_path)
    assert done.returncode == 8, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for name in ("sums", "elicits", "declines by default", "samples", "structured"):
        assert any(line.startswith(f"  ✓ {name}  ") and line.endswith(" ms") for line in lines), done.stdout
    assert "  ✗ wrong sum  " in done.stdout
    assert '      text: expected "6", got "The sum of 2 and 3 is 5."' in done.stdout
    assert lines[-1].startswith("5 passed, 1 failed in ")


def test_update_rewrites_the_expectations_and_prints_the_diff(tmp_path: Path) -> None:
    path = tmp_path / "rec.mcpx.yaml"
    text = f"""\
server: {{recording: {RECORDING}}}
tests:
  - name: adds   # the comment stays
    call: add
    arguments: {{a: 2, b: 3}}
    expect: {{text: "6", maxMs: 60000}}
  - name: echoes
    call: echo
    arguments: {{text: hello}}
"""
    path.write_text(text, encoding="utf-8")
    done = mcpx_test("rec.mcpx.yaml", "--update", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "-    expect: {text: \"6\", maxMs: 60000}\n+    expect: {text: '5', maxMs: 60000}\n" in done.stdout
    new = path.read_text(encoding="utf-8")
    assert "  - name: adds   # the comment stays\n" in new
    assert "    expect:\n      isError: false\n      structuredContent: {result: hello}\n" in new or (
        "    expect: {isError: false, structuredContent: {result: hello}}\n" in new
    )
    # and now it passes as it is
    results = asyncio.run(run_collection(load_collection(path)))
    assert [r.status for r in results] == ["passed", "passed"]


def test_an_unreachable_server_is_exit_4_and_a_bad_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "dead.mcpx.yaml").write_text(
        f"server: [{sys.executable}, -c, 'import sys; sys.exit(3)']\ntests:\n  - {{name: a, call: b}}\n",
        encoding="utf-8",
    )
    (tmp_path / "bad.mcpx.yaml").write_text("server: x\ntests: [\n", encoding="utf-8")
    done = mcpx_test("dead.mcpx.yaml", "bad.mcpx.yaml", "--junit", "out.xml", cwd=tmp_path)
    assert done.returncode == 4  # the first file's error decides
    assert "the server exited with code 3" in done.stdout
    assert "bad.mcpx.yaml:3: not valid YAML" in done.stdout
    assert json.loads(done.stderr.splitlines()[-1])["error"]["code"] == "server_exited"
    suites = ET.parse(tmp_path / "out.xml").getroot().findall("testsuite")
    assert [s.find("testcase[@name='(connect)']/error").get("type") for s in suites] == [
        "server_exited",
        "collection",
    ]
