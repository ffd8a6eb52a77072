"""Both protocol eras against real servers: the official SDK's MCPServer (which speaks both) and
hand-written servers that bend the era-detection rules on purpose (tests/servers/era_probe.py)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import mcpx
from mcpx.protocol.auto import EraCache

SERVERS = Path(__file__).parent.parent / "servers"
ASKING = str(SERVERS / "sdk_asking.py")
PROBE = str(SERVERS / "era_probe.py")


def mcpx_call(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpx", "call", *args], capture_output=True, text=True, timeout=timeout
    )


def ok_json(proc: subprocess.CompletedProcess[str]) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["result"]


def error_line(proc: subprocess.CompletedProcess[str]) -> dict:
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stderr.strip().splitlines()[-1])["error"]


def tool_text(result: dict) -> str:
    return " ".join(block["text"] for block in result["content"] if block.get("type") == "text")


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_elicitation_answers_from_flags_in_both_eras(era: str, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"name": "Ann", "seats": 4}))
    base = [
        ASKING,
        "--protocol-era",
        era,
        "--method",
        "tools/call",
        "--tool-name",
        "book",
        "--format",
        "json",
    ]
    assert tool_text(ok_json(mcpx_call(*base, "--elicit", f"@{answers}"))) == (
        "booked 4 seats for Ann (window=True, meal=veg)"
    )
    assert tool_text(ok_json(mcpx_call(*base, "--elicit", "decline"))) == "no booking: decline"
    assert tool_text(ok_json(mcpx_call(*base, "--elicit", "cancel"))) == "no booking: cancel"
    # nothing given: declined, never a hang
    assert tool_text(ok_json(mcpx_call(*base))) == "no booking: decline"
    # the required "name" has no default: mcpx says so and answers cancel
    proc = mcpx_call(*base, "--elicit", "accept-defaults")
    assert tool_text(ok_json(proc)) == "no booking: cancel"
    assert "name" in proc.stderr and "no default" in proc.stderr


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_sampling_and_roots_in_both_eras(era: str, tmp_path: Path) -> None:
    reply = tmp_path / "reply.json"
    reply.write_text(
        json.dumps({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "stub"})
    )
    base = [ASKING, "--protocol-era", era, "--method", "tools/call", "--format", "json"]
    assert tool_text(ok_json(mcpx_call(*base, "--tool-name", "capital", "--sample", f"@{reply}"))) == (
        "model stub said: Paris"
    )
    refused = mcpx_call(*base, "--tool-name", "capital")
    assert refused.returncode == 5
    assert "--sample" in error_line(refused)["message"]
    listed = ok_json(
        mcpx_call(*base, "--tool-name", "roots", "--root", str(tmp_path), "--root", "file:///srv/data")
    )
    assert tool_text(listed) == f"{tmp_path.as_uri()}, file:///srv/data"


def test_modern_requests_carry_the_meta_envelope_and_results_their_type() -> None:
    proc = mcpx_call(ASKING, "--protocol-era", "modern", "--method", "tools/list", "--traffic")
    sent = [json.loads(line.split(" → ", 1)[1]) for line in proc.stderr.splitlines() if " → " in line]
    assert [m["method"] for m in sent] == ["server/discover", "tools/list"]
    for message in sent:
        meta = message["params"]["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "mcpx"
        assert "io.modelcontextprotocol/clientCapabilities" in meta
    assert "initialize" not in proc.stderr
    assert json.loads(proc.stdout)["tools"][0]["name"] in {"book", "capital", "roots", "add"}


def test_initialize_in_the_modern_era_shows_the_discover_result() -> None:
    result = ok_json(mcpx_call(ASKING, "--method", "initialize", "--format", "json"))
    assert result["supportedVersions"] == ["2026-07-28"]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "asking-server"
    assert "cacheScope" in result


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ("legacy-32602", "answered error -32602"),
        ("legacy-versions", "answered error -32022"),
        ("exit-on-unknown", "mcpx started it again"),
    ],
)
def test_auto_falls_back_to_the_handshake_and_says_why(mode: str, why: str) -> None:
    proc = mcpx_call(PROBE, mode, "--method", "initialize", "--traffic", "--format", "json")
    assert ok_json(proc)["serverInfo"]["name"] == f"legacy-{mode}"
    era_lines = [line for line in proc.stderr.splitlines() if "• era:" in line]
    assert any("legacy" in line and why in line for line in era_lines), era_lines


def test_a_silent_legacy_server_costs_the_probe_timeout_once() -> None:
    started = time.monotonic()
    first = mcpx_call(PROBE, "silent", "--method", "tools/list", "--probe-timeout", "1", "--traffic")
    first_took = time.monotonic() - started  # the probe waited its full second
    assert first.returncode == 0, first.stderr
    assert "no answer to server/discover within 1 s" in first.stderr
    assert first_took >= 1.0
    # the second run waits for nothing: it sends no probe at all (timing it would only measure the machine)
    second = mcpx_call(PROBE, "silent", "--method", "tools/list", "--probe-timeout", "1", "--traffic")
    assert second.returncode == 0
    assert "remembered verdict, legacy" in second.stderr
    assert "server/discover" not in second.stderr


def test_a_wrong_remembered_verdict_is_probed_again(tmp_path: Path) -> None:
    # remember "legacy" for a server that is modern-only: initialize fails, mcpx probes and goes modern
    assert mcpx_call(PROBE, "legacy-32602", "--method", "tools/list").returncode == 0
    cache = EraCache(Path(os.environ["MCPX_CACHE_DIR"]) / "eras.json")
    # the cache names no server, only a hash of its command line (or URL)
    assert "legacy-32602" not in cache.path.read_text()
    modern_top = shlex.join([sys.executable, os.path.abspath(PROBE), "modern-top"])
    cache.put(modern_top, "legacy")
    proc = mcpx_call(PROBE, "modern-top", "--method", "initialize", "--traffic", "--format", "json")
    assert ok_json(proc)["serverInfo"]["name"] == "modern-modern-top"
    assert "remembered legacy verdict failed" in proc.stderr
    assert cache.get(modern_top) == "modern"


def test_version_pinning_flags() -> None:
    legacy = ok_json(
        mcpx_call(ASKING, "--protocol-version", "2025-06-18", "--method", "initialize", "--format", "json")
    )
    assert legacy["protocolVersion"] == "2025-06-18"
    modern = ok_json(
        mcpx_call(ASKING, "--protocol-version", "2026-07-28", "--method", "initialize", "--format", "json")
    )
    assert modern["supportedVersions"] == ["2026-07-28"]
    wrong = mcpx_call(ASKING, "--protocol-version", "2019-01-01", "--method", "initialize")
    assert wrong.returncode == 1
    assert "2019-01-01" in error_line(wrong)["message"]
    clash = mcpx_call(
        ASKING, "--protocol-era", "legacy", "--protocol-version", "2026-07-28", "--method", "ping"
    )
    assert clash.returncode == 1
    assert "modern era" in error_line(clash)["message"]


def test_input_rounds_are_bounded_and_unknown_result_types_refused() -> None:
    looping = mcpx_call(PROBE, "mrtr-forever", "--method", "tools/call", "--tool-name", "t")
    assert looping.returncode == 1
    assert "after 10 rounds" in error_line(looping)["message"]
    weird = mcpx_call(PROBE, "weird-result", "--method", "tools/call", "--tool-name", "t")
    assert weird.returncode == 1
    assert "mystery" in error_line(weird)["message"]


async def test_library_reports_the_chosen_era() -> None:
    async with mcpx.connect(ASKING, protocol_era="auto") as client:
        assert client.opened is not None
        assert client.opened.era == "modern"
        assert client.protocol_version == "2026-07-28"
        assert client.server_info.name == "asking-server"
        result = await client.call_tool("add", {"a": 2, "b": 3})
        assert result.structured_content == {"result": 5}
    async with mcpx.connect(ASKING, protocol_era="legacy") as client:
        assert client.opened is not None and client.opened.era == "legacy"
        assert client.protocol_version == "2025-11-25"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_list_changes_refresh_the_cached_tools_in_both_eras(era: str) -> None:
    async with mcpx.connect(ASKING, protocol_era=era) as client:
        await client.watch()
        before = {tool.name for tool in await client.list_tools()}
        refreshed = asyncio.Event()
        client.on_list_changed(lambda name: refreshed.set() if name == "tools" else None)
        if era == "modern":  # the listen request must be acknowledged before changes can reach us
            await wait_for(lambda: client.watching.acknowledged is not None)
            assert client.watching.acknowledged == {
                "toolsListChanged": True,
                "promptsListChanged": True,
                "resourcesListChanged": True,
            }
        await client.call_tool("grow", {"name": f"grown_{era}"})
        await asyncio.wait_for(refreshed.wait(), timeout=10)
        after = {tool.name for tool in client.cached("tools") or []}
        assert after - before == {f"grown_{era}"}
        methods = [
            event.method
            for event in client.traffic
            if event.direction == "in" and event.kind == "notification"
        ]
        assert "notifications/tools/list_changed" in methods


async def wait_for(condition: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def test_modern_errors_are_explained() -> None:
    # protocol problems, not tool errors: exit 1 with the explanation
    missing = mcpx_call(PROBE, "needs-capability", "--method", "tools/call", "--tool-name", "t")
    assert missing.returncode == 1
    message = error_line(missing)["message"]
    assert "elicitation" in message and "--elicit" in message
    gone = mcpx_call(PROBE, "version-gone", "--method", "tools/call", "--tool-name", "t")
    assert gone.returncode == 1
    assert "shares no other revision" in error_line(gone)["message"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_url_elicitation_from_a_script_is_declined_and_the_url_shown(era: str) -> None:
    demo = f"{sys.executable} -m mcpx.demo"
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "call", demo, "--protocol-era", era, "--method", "tools/call",
         "--tool-name", "connect_account", "--format", "json"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert tool_text(ok_json(proc)) == "No connection: the user chose 'decline'."
    assert "https://example.com/mcpx-demo/connect?account=demo (host example.com)" in proc.stderr
    assert "not a terminal" in proc.stderr


@pytest.mark.npm
def test_auto_finds_the_legacy_era_of_server_everything() -> None:
    everything = Path(__file__).parents[2] / "node_modules" / ".bin" / "mcp-server-everything"
    assert everything.exists(), "run scripts/test (the README's second command) to install the npm peers"
    proc = mcpx_call(str(everything), "--method", "initialize", "--traffic", "--format", "json")
    assert ok_json(proc)["protocolVersion"] == "2025-11-25"
    assert "era: legacy — server/discover answered error -32601" in proc.stderr
