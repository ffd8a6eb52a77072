"""The pytest plugin, run by pytest itself in a subprocess (pytester): collections collected as tests, a
broken one reported as a collection error, and the mcpx_session fixture from a marker and from the ini.

The servers are a recording: served in process through the mock's machinery (`server: {recording: …}`,
`mcpx(recording=…)`), and as a TARGET by `python -m mcpx mock` (the ini's mcpx_target)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)

RECORDING = Path(__file__).resolve().parents[1] / "tui" / "recordings" / "record_server.mcpx.jsonl"
PLUGIN = "mcpx.collection.pytest_plugin"


#: no plugin loads by its entry point (the venv's snapshot, hypothesis and xdist plugins cost seconds of
#: start-up; and mcpx's own, once installed, would be loaded twice): the two needed are named
PLUGINS = ("-p", "pytest_asyncio.plugin", "-p", PLUGIN, "-p", "no:cacheprovider")


@pytest.fixture(autouse=True)
def _no_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_pytest_runs_collections_and_the_session_fixture(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        f"""\
[pytest]
mcpx_target = {sys.executable} -m mcpx mock -q {RECORDING}
"""
    )
    pytester.makefile(
        ".mcpx.yaml",
        calc=f"""\
server: {{recording: {RECORDING}}}
tests:
  - name: adds
    call: add
    arguments: {{a: 2, b: 3}}
    expect: {{isError: false, text: "5"}}
  - name: lists add
    method: tools/list
    expect: {{json: {{"$.tools[*].name": {{contains: add}}}}}}
  - name: wrong sum
    call: add
    arguments: {{a: 2, b: 3}}
    expect: {{text: "6"}}
  - name: later
    call: add
    skip: not yet
""",
        broken="server: x\ntests: [\n",
    )
    pytester.makepyfile(
        test_client=f"""\
import pytest

@pytest.mark.asyncio
@pytest.mark.mcpx(recording={str(RECORDING)!r})
async def test_from_the_marker(mcpx_session):
    result = await mcpx_session.call_tool("add", {{"a": 2, "b": 3}})
    assert result.content[0]["text"] == "5"

@pytest.mark.asyncio
async def test_from_the_ini(mcpx_session):
    assert "add" in [tool.name for tool in await mcpx_session.list_tools()]
    assert mcpx_session.session.transport_name == "stdio"
"""
    )
    result = pytester.runpytest_subprocess(*PLUGINS, "-v", "--continue-on-collection-errors")
    result.assert_outcomes(passed=4, failed=1, skipped=1, errors=1)
    result.stdout.fnmatch_lines_random(
        [
            "*calc.mcpx.yaml::adds PASSED*",
            "*calc.mcpx.yaml::wrong sum FAILED*",
            "*calc.mcpx.yaml::later SKIPPED (not yet)*",
            "*test_client.py::test_from_the_ini PASSED*",
            '*text: expected "6", got "5"*',
            "*broken.mcpx.yaml:*: not valid YAML: expected the node content, but found '<stream end>'",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_collecting_can_be_turned_off(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmcpx_collect = false\n")
    pytester.makefile(".mcpx.yaml", calc="server: x\ntests: [{name: a, call: b}]\n")
    result = pytester.runpytest_inprocess("-p", PLUGIN, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
