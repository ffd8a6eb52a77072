"""`mcpx mock FILE`: a recording served as an MCP server, used by mcpx itself and by the official
inspector's CLI (which must list the same tools from the mock as from the original server)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mcpx
from mcpx.errors import RpcError
from mcpx.record.writer import start_recording
from mcpx.transports.spec import ServerSpec
from mcpx.wire import Notification, Request, Response
from mcpx.wire.jsonrpc import encode
from mcpx.wire.traffic import TrafficLog

ROOT = Path(__file__).resolve().parent.parent.parent
SERVERS = ROOT / "tests" / "servers"
RECORD_SERVER = str(SERVERS / "record_server.py")
NODE_BIN = ROOT / "node_modules" / ".bin"
EVERYTHING = NODE_BIN / "mcp-server-everything"


MCPX = str(Path(sys.executable).parent / "mcpx")  # the console script, so `call` takes it as one word


def mock_spec(path: Path) -> ServerSpec:
    return ServerSpec(command=[sys.executable, "-m", "mcpx", "mock", str(path)])


@pytest.fixture(scope="module")
def legacy_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "legacy.mcpx.jsonl"
    proc = subprocess.run(
        [sys.executable, str(SERVERS / "record_session.py"), str(path), "--era", "legacy"],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    return path


@pytest.fixture(scope="module")
def modern_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "modern.mcpx.jsonl"
    proc = subprocess.run(
        [sys.executable, str(SERVERS / "record_session.py"), str(path), "--era", "modern"],
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr
    return path


async def test_the_mock_answers_a_legacy_session_as_the_server_did(legacy_recording: Path) -> None:
    asked: list[Any] = []

    async def elicit(params: Any) -> dict[str, Any]:
        asked.append(params)
        return {"action": "decline"}

    async with mcpx.connect(RECORD_SERVER, protocol_era="legacy") as original:
        tools = [t.raw for t in await original.list_tools()]
    progress: list[float] = []
    async with mcpx.connect(mock_spec(legacy_recording), protocol_era="auto", on_elicit=elicit) as client:
        assert client.opened is not None and client.opened.era == "legacy"
        assert client.server_info.name == "record-test-server"
        assert [t.raw for t in await client.list_tools()] == tools
        assert [r.uri for r in await client.list_resources()] == ["memo://readme"]
        echo = await client.call_tool("echo", {"text": "hello"})
        assert echo.content[0]["text"] == "hello"
        slow = await client.call_tool("slow", {"steps": 3}, on_progress=lambda p, t, m: progress.append(p))
        assert slow.content[0]["text"] == "done after 3 steps"
        book = await client.call_tool("book", {})
        assert book.content[0]["text"] == "booked 3 seats for Ann"  # the recorded answer, whatever we said
        read = await client.read_resource("memo://readme")
        assert read.contents[0]["text"] == "hello"
        prompt = await client.get_prompt("greet", {"name": "Bo"})
        assert prompt.messages[0]["content"]["text"] == "Hello Bo"
        with pytest.raises(RpcError) as caught:
            await client.call_tool("echo", {"text": "never recorded"})
        assert caught.value.error_code == -32602
        assert "no recorded tools/call request has these params" in caught.value.error_message
        with pytest.raises(RpcError) as caught:
            await client.complete({"type": "ref/prompt", "name": "greet"}, "name", "B")
        assert "the recording has no completion/complete request" in caught.value.error_message
        await client.set_logging_level("debug")  # every server acknowledges it: so does the mock
    assert progress == [1, 2, 3]  # the recorded progress, re-addressed to this request's token
    assert asked and asked[0]["message"] == "Book a trip?"  # the recorded elicitation was asked again


@pytest.mark.parametrize("era", ["modern", "auto"])
async def test_the_mock_speaks_the_modern_era_of_a_modern_recording(modern_recording: Path, era: str) -> None:
    async with mcpx.connect(mock_spec(modern_recording), protocol_era=era) as client:
        assert client.opened is not None and client.opened.era == "modern"
        names = [t.name for t in await client.list_tools()]
        assert {"echo", "add", "stats", "stamp", "slow", "book", "legacy_tool"} == set(names)
        stats = await client.call_tool("stats", {"items": ["a", "b", "a"]})
        assert json.loads(stats.content[0]["text"]) == {"count": 3, "unique": 2}


async def test_a_legacy_client_is_told_the_modern_mock_speaks_only_2026(modern_recording: Path) -> None:
    with pytest.raises(Exception) as caught:
        async with mcpx.connect(mock_spec(modern_recording), protocol_era="legacy"):
            pass
    assert "2026-07-28" in str(caught.value)


def synthetic_recording(path: Path) -> None:
    """A legacy session where notifications come after a response (as a server may send them)."""
    log = TrafficLog()
    recorder = start_recording(path, log, ServerSpec(command=["fake-server"]), era="legacy")
    init = Request(
        1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x"}}
    )
    log.sent(encode(init.to_obj()), init, "stdio")
    result = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {"listChanged": True}, "logging": {}},
        "serverInfo": {"name": "fake", "version": "1"},
    }
    log.received(encode(Response(1, result).to_obj()).encode(), "stdio")
    done = Notification("notifications/initialized")
    log.sent(encode(done.to_obj()), done, "stdio")
    call = Request(2, "tools/call", {"name": "grow", "arguments": {"name": "x"}})
    log.sent(encode(call.to_obj()), call, "stdio")
    answer = {"content": [{"type": "text", "text": "added x"}]}
    log.received(encode(Response(2, answer).to_obj()).encode(), "stdio")
    for note in (
        Notification("notifications/message", {"level": "info", "data": "grew x"}),
        Notification("notifications/tools/list_changed"),
    ):
        log.received(encode(note.to_obj()).encode(), "stdio")
    recorder.close()


async def test_notifications_recorded_after_a_response_follow_it(tmp_path: Path) -> None:
    path = tmp_path / "synthetic.jsonl"
    synthetic_recording(path)
    seen: list[str] = []
    async with mcpx.connect(mock_spec(path), protocol_era="legacy") as client:
        client.on_notification(None, lambda message, event: seen.append(message.method))
        result = await client.call_tool("grow", {"name": "x"})
        assert result.content[0]["text"] == "added x"
        for _ in range(200):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.01)
        log = client.traffic
        order = [e.method for e in log if e.direction == "in" and e.method is not None]
    assert seen == ["notifications/message", "notifications/tools/list_changed"]
    assert order[-3:] == ["tools/call", "notifications/message", "notifications/tools/list_changed"]


def test_a_truncated_recording_is_still_served_and_a_newer_one_refused(
    legacy_recording: Path, tmp_path: Path
) -> None:
    lines = legacy_recording.read_bytes().splitlines(keepends=True)
    # keep every line up to the tools/list answer, then half a line: a recording cut mid-write
    answered = next(
        i for i, line in enumerate(lines) if b"legacy_tool" in line and b'"direction":"in"' in line
    )
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[: answered + 1]) + lines[answered + 1][:15])
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "call", MCPX, "mock", str(cut),
         "--method", "tools/list", "--protocol-era", "legacy", "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "legacy_tool" in proc.stdout
    future = tmp_path / "future.jsonl"
    future.write_text('{"mcpx_recording": 2, "mcpx_version": "9.9.9"}\n')
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "mock", str(future)], capture_output=True, text=True, timeout=30
    )
    assert (
        proc.returncode == 1
        and "was written by a newer mcpx" in proc.stderr
        and "Traceback" not in proc.stderr
    )


# -- server-everything and the official inspector's CLI ------------------------------------------------
def node_path() -> str:
    return os.pathsep.join([str(NODE_BIN), os.environ.get("PATH", "")])


def inspector() -> str | None:
    found = shutil.which("mcp-inspector", path=node_path())
    if found is None:
        return None
    version = subprocess.run(
        ["node", "--version"], capture_output=True, text=True, env={**os.environ, "PATH": node_path()}
    )
    major = int(version.stdout.strip().lstrip("v").split(".")[0] or 0) if version.returncode == 0 else 0
    return found if major >= 22 else None


def inspector_tools(*command: str) -> list[dict[str, Any]]:
    found = inspector()
    assert found is not None
    proc = subprocess.run(
        [found, "--cli", *command, "--method", "tools/list"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PATH": node_path()},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)["tools"]


needs_everything = pytest.mark.skipif(not EVERYTHING.exists(), reason="npm peers not installed")
needs_inspector = pytest.mark.skipif(
    inspector() is None, reason="the official inspector (Node ≥ 22) is not installed"
)


@pytest.fixture(scope="module")
def everything_recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """server-everything lists tools by what the client can do: record as a client that, like the
    official inspector's CLI, offers roots and nothing else."""
    if not EVERYTHING.exists():
        pytest.skip("npm peers not installed")
    path = tmp_path_factory.mktemp("rec") / "everything.mcpx.jsonl"

    async def record() -> None:
        log = TrafficLog()
        spec = ServerSpec(command=[str(EVERYTHING)])
        recorder = start_recording(path, log, spec, era="legacy")
        roots = [{"uri": "file:///tmp", "name": "tmp"}]
        async with mcpx.connect(spec, traffic=log, protocol_era="legacy", roots=roots) as client:
            await client.list_tools()
        recorder.close()

    asyncio.run(record())
    return path


@pytest.mark.npm
@needs_everything
def test_server_everything_replays_and_mocks_through_mcpx(everything_recording: Path) -> None:
    replay = subprocess.run(
        [sys.executable, "-m", "mcpx", "replay", str(everything_recording), "--against", str(EVERYTHING)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stdout + replay.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "mcpx", "call", MCPX, "mock", str(everything_recording),
         "--method", "tools/list", "--format", "json"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    names = [t["name"] for t in json.loads(listed.stdout)["result"]["tools"]]
    assert "echo" in names and len(names) > 5


@pytest.mark.npm
@needs_everything
@needs_inspector
def test_the_official_inspector_lists_the_same_tools_from_the_mock(everything_recording: Path) -> None:
    original = inspector_tools(str(EVERYTHING))
    mocked = inspector_tools(sys.executable, "-m", "mcpx", "mock", str(everything_recording))
    assert [t["name"] for t in mocked] == [t["name"] for t in original]
    assert mocked == original


@pytest.mark.npm
@needs_inspector
def test_the_official_inspector_reads_an_sdk_server_recording_from_the_mock(legacy_recording: Path) -> None:
    original = inspector_tools(sys.executable, RECORD_SERVER)
    mocked = inspector_tools(sys.executable, "-m", "mcpx", "mock", str(legacy_recording))
    assert sorted(t["name"] for t in mocked) == sorted(t["name"] for t in original)
