"""`mcpx proxy` between a host and a real server: a host written here (exact bytes in and out) drives one
proxied session that every assertion of the module shares; a second, short one has its server die.

The host is a subprocess pipe pair, as Claude or Cursor give a stdio server; the server is
`tests/servers/proxy_peer.py`, which writes down the exact bytes it read and can send malformed frames.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "tests" / "servers" / "proxy_peer.py"
SECRET = "tok-3f9a7c21e8d4b6"
pytestmark = pytest.mark.timeout(60)


@dataclass
class Host:
    """A host on the proxy's stdin/stdout: sends frames as bytes, reads lines as bytes."""

    process: subprocess.Popen[bytes]
    sent: list[bytes] = field(default_factory=list)
    received: list[bytes] = field(default_factory=list)
    lines: queue.Queue[bytes | None] = field(default_factory=queue.Queue)
    #: read the proxy's stdout in a thread from the start (False: the test reads it, when it chooses)
    reading: bool = True

    def __post_init__(self) -> None:
        if self.reading:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, frame: bytes) -> None:
        assert self.process.stdin is not None
        self.sent.append(frame)
        self.process.stdin.write(frame + b"\n")
        self.process.stdin.flush()

    def send_many(self, frames: list[bytes]) -> None:
        """Several frames in one write, as a pipelining host sends them (the proxy reads them at once)."""
        assert self.process.stdin is not None
        self.sent.extend(frames)
        self.process.stdin.write(b"".join(frame + b"\n" for frame in frames))
        self.process.stdin.flush()

    def until(self, rid: int, timeout: float = 20.0) -> dict[str, Any]:
        """Read lines until the answer to `rid`; every line read is kept."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise AssertionError(f"the proxy's output ended before the answer to {rid}")
            self.received.append(line.rstrip(b"\n"))
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == rid and "method" not in message:
                return message

    def finish(self) -> None:
        """Kill the proxy if it still runs, and close the pipes (after its output has ended)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):  # stdin's unflushed bytes have nowhere to go now
                    pipe.close()

    def rest(self) -> None:
        while (line := self.lines.get(timeout=20)) is not None:
            self.received.append(line.rstrip(b"\n"))


def start_proxy(tmp: Path, *words: str, env: dict[str, str] | None = None, reading: bool = True) -> Host:
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpx", "proxy", *words],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "MCPX_DATA_DIR": str(tmp / "data"), **(env or {})},
    )
    return Host(process, reading=reading)


def sessions(tmp: Path, *, cli: bool = False) -> list[dict[str, Any]]:
    """The sessions `mcpx sessions --format json` lists (in-process unless `cli`: a start of mcpx less)."""
    if not cli:
        from mcpx.proxy.sessions import list_sessions, summarize

        return [summarize(entry) for entry in list_sessions(tmp / "data" / "sessions")]
    out = subprocess.run(
        [sys.executable, "-m", "mcpx", "sessions", "--format", "json"],
        capture_output=True,
        env={**os.environ, "MCPX_DATA_DIR": str(tmp / "data")},
        timeout=30,
        check=True,
    ).stdout
    return list(json.loads(out)["sessions"])


def alive(pid: int) -> bool:
    """Running (a zombie waiting for whoever adopted it to reap it is not)."""
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


def listening_line(proxy: subprocess.Popen[bytes]) -> str:
    """The proxy's "listening on …" line: the server's own stderr (which the proxy passes on) may come
    first, as the server starts while the proxy opens its port."""
    assert proxy.stderr is not None
    for _ in range(20):
        line = proxy.stderr.readline().decode()
        if "listening on " in line or not line:
            return line
    raise AssertionError("no 'listening on' line in the proxy's first 20 lines of stderr")


#: what a pipelining host writes at once: a blank line, a malformed frame and a CRLF among them
PIPELINED = [
    b'{"jsonrpc":"2.0","id":8,"method":"ping"}',
    b"",
    b"not json either",
    b'{"jsonrpc":"2.0","id":9,"method":"ping"}\r',
    b'{"jsonrpc":"2.0","id":10,"method":"tools/list"}',
]


def frame(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()  # spaces after , and : — kept as they are


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("proxy")
    seen, pidfile = tmp / "seen.bin", tmp / "peer.pid"
    host = start_proxy(
        tmp,
        "--name",
        "shared",
        sys.executable,
        str(PEER),
        env={"API_TOKEN": SECRET, "PROXY_PEER_SEEN": str(seen), "PROXY_PEER_PID": str(pidfile)},
    )
    try:
        client = {"name": "test-host", "version": "2.5"}
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
        host.send(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        answers = {1: host.until(1)}
        host.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        host.send(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
        answers[2] = host.until(2)
        host.send(b"this is not json")
        answers[0] = host.until(None)  # type: ignore[arg-type]  # the parse error's id is null
        call = {"name": "echo", "arguments": {"text": "héllo wörld"}}
        host.send(frame({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}))
        answers[3] = host.until(3)
        host.send(b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"env"}}')
        answers[4] = host.until(4)
        host.send(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"garble"}}')
        answers[5] = host.until(5)
        host.send(b'{"jsonrpc":"2.0","id":6,"method":"ping"}\r')  # a CRLF host: the \r goes on too
        answers[6] = host.until(6)
        host.send(b"")  # a blank line: no frame, but bytes a pipe would carry
        host.send(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"crlf"}}')
        answers[7] = host.until(7)
        host.send_many(PIPELINED)
        answers[10] = host.until(10)
        live = sessions(tmp, cli=True)
        assert host.process.stdin is not None
        host.process.stdin.close()
        host.process.stdin = None
        host.rest()
        code = host.process.wait(timeout=20)
        assert host.process.stderr is not None
        stderr = host.process.stderr.read().decode(errors="replace")
    finally:
        host.finish()
    return {
        "host": host,
        "answers": answers,
        "code": code,
        "stderr": stderr,
        "seen": seen.read_bytes(),
        "peer_pid": int(pidfile.read_text()),
        "live": live,
        "after": sessions(tmp),
        "tmp": tmp,
    }


def _recording(shared: dict[str, Any]) -> list[dict[str, Any]]:
    path = Path(shared["after"][0]["recording"])
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _wire(event: dict[str, Any]) -> bytes:
    exact = (event.get("facts") or {}).get("wire_base64")
    return base64.b64decode(exact) if exact else event["raw"].encode()


def test_the_host_gets_the_servers_answers(shared: dict[str, Any]) -> None:
    answers = shared["answers"]
    assert shared["code"] == 0
    assert answers[1]["result"]["serverInfo"] == {"name": "proxy-peer", "version": "1.0"}
    assert [tool["name"] for tool in answers[2]["result"]["tools"]] == ["echo", "env", "garble", "die"]
    assert answers[0]["error"]["code"] == -32700
    assert answers[3]["result"]["content"][0]["text"] == "héllo wörld"
    assert answers[4]["result"]["content"][0]["text"] == SECRET  # the host sees its own secret: relayed
    assert answers[6]["result"] == {}


def test_every_byte_is_relayed_unchanged_both_ways(shared: dict[str, Any]) -> None:
    host = shared["host"]
    # what the server read is exactly what the host wrote, spaces, malformed line and \r included
    assert shared["seen"] == b"".join(sent + b"\n" for sent in host.sent)
    # the server's malformed frames reached the host as they were: cut JSON, invalid UTF-8
    assert b'{"jsonrpc":"2.0","id":5,"result":' in host.received
    assert any(b"caf\xe9" in line for line in host.received)
    # a CRLF server's lines reach the host with their \r\n, its blank line too (nothing re-framed)
    start = next(i for i, line in enumerate(host.received) if b'"data": "crlf"' in line)
    crlf = host.received[start : start + 3]
    assert [line[-1:] for line in crlf] == [b"\r"] * 3 and crlf[1] == b"\r"
    assert json.loads(crlf[2])["result"]["content"][0]["text"] == "crlf"


def test_the_recording_holds_the_exact_frames_flagged_and_masked(shared: dict[str, Any]) -> None:
    host = shared["host"]
    events = _recording(shared)
    header, events = events[0], events[1:]
    assert header["mcpx_recording"] == 1 and header["secrets"] == "masked"
    out = [e for e in events if e["direction"] == "out" and e["channel"] == "stdio"]
    into = [e for e in events if e["direction"] == "in" and e["channel"] == "stdio"]
    assert [_wire(e) for e in out] == [sent for sent in host.sent if sent]  # (a blank line is no frame)
    redacted = [e for e in into if e.get("redacted")]
    # the server's frames byte for byte, a CRLF's \r included (a blank line is no frame)
    assert [_wire(e) for e in into if not e.get("redacted")] == [
        line for line in host.received if SECRET.encode() not in line and line.strip()
    ]
    assert any(_wire(e).endswith(b'"crlf"}]}}\r') for e in into)
    # the secret the host passed in the server's env is masked where it came back
    assert len(redacted) == 1 and SECRET not in json.dumps(events) and SECRET[-4:] in redacted[0]["raw"]
    flagged = {e["raw"][:20]: e["flags"] for e in [*out, *into] if e.get("flags")}
    assert any("not JSON" in flag for flag in flagged["this is not json"])
    assert any("invalid UTF-8" in flag for flags in flagged.values() for flag in flags)
    assert any(
        e["direction"] == "in" and e["channel"] == "stderr" and e["raw"] == "proxy-peer ready" for e in events
    )


def test_a_pipelining_hosts_frames_are_recorded_in_order_as_one_read(shared: dict[str, Any]) -> None:
    """Frames that came in one read are relayed whole and logged together (`TrafficLog.frames`): each
    recorded exactly and in order with the read's time, the malformed one flagged."""
    events = [e for e in _recording(shared)[1:] if e["direction"] == "out" and e["channel"] == "stdio"]
    batch = events[-4:]
    assert [_wire(e) for e in batch] == [sent for sent in PIPELINED if sent]
    assert len({e["t"] for e in batch}) == 1  # one read, one time
    assert any("not JSON" in flag for flag in batch[1]["flags"]) and "flags" not in batch[0]
    assert shared["answers"][10]["result"]["tools"]


def test_the_servers_stderr_reaches_the_hosts_stderr(shared: dict[str, Any]) -> None:
    assert "proxy-peer ready" in shared["stderr"]


def test_the_session_is_listed_live_then_ended(shared: dict[str, Any]) -> None:
    live = [row for row in shared["live"] if row["name"] == "shared"]
    assert len(live) == 1 and live[0]["live"] is True
    assert live[0]["host"] == "test-host 2.5" and live[0]["server"] == "proxy-peer 1.0"
    assert live[0]["era"] == "legacy"
    (after,) = shared["after"]
    assert after["live"] is False and after["exit_code"] == 0
    assert after["frames"] >= 14 and after["problems"] >= 3
    assert Path(after["recording"]).parent == shared["tmp"] / "data" / "sessions"
    assert oct(Path(after["recording"]).stat().st_mode & 0o777) == "0o600"


def test_no_process_is_left_when_the_host_leaves(shared: dict[str, Any]) -> None:
    assert not alive(shared["peer_pid"])


def test_a_dying_server_ends_the_hosts_connection_with_its_code(tmp_path: Path) -> None:
    pidfile = tmp_path / "peer.pid"
    host = start_proxy(
        tmp_path, "--record", str(tmp_path / "died.mcpx.jsonl"), sys.executable, str(PEER),
        env={"PROXY_PEER_PID": str(pidfile)},
    )  # fmt: skip
    try:
        host.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"die"}}')
        host.rest()  # our stdout ends, as the server's would
        assert host.process.wait(timeout=20) == 3
        assert host.process.stderr is not None
        assert "FATAL: the disk is on fire" in host.process.stderr.read().decode()
    finally:
        host.finish()
    assert not alive(int(pidfile.read_text()))
    lines = (tmp_path / "died.mcpx.jsonl").read_text().splitlines()
    assert any('"exited"' in line and '"returncode":3' in line for line in lines)


def test_a_stdio_host_reaches_an_http_server_through_the_proxy(tmp_path: Path) -> None:
    """The bridge: a stdio-only host, a Streamable HTTP server (tests/servers/secret_echo.py, which logs
    each request's headers and echoes their secrets back). The host pipelines its first frames; the proxy
    holds them until the handshake's answer brings the session they need; --header's secret is masked."""
    from http_servers import SERVERS, Server, free_port, running

    port, seen = free_port(), tmp_path / "requests.jsonl"
    command = [sys.executable, str(SERVERS / "secret_echo.py"), "--port", str(port), "--log", str(seen)]
    key = "key-7e3b9d41c2a8"
    with running(Server.launch(command, port)) as (server,):
        host = start_proxy(tmp_path, "--name", "bridge", "--header", f"X-Api-Key: {key}", server.url())
        try:
            init = {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "h", "version": "1"},
            }
            host.send(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
            host.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
            host.send(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
            assert key in host.until(1)["result"]["serverInfo"]["name"]  # relayed to the host untouched
            assert [t["name"] for t in host.until(2)["result"]["tools"]] == ["leak", "fail"]
            assert host.process.stdin is not None
            host.process.stdin.close()
            host.process.stdin = None
            host.rest()
            assert host.process.wait(timeout=20) == 0
        finally:
            host.finish()
    posts = [json.loads(line) for line in seen.read_text().splitlines() if '"POST"' in line]
    first, *rest = posts
    assert json.loads(first["body"])["method"] == "initialize" and "Mcp-Session-Id" not in first["headers"]
    assert [json.loads(p["body"]).get("method") for p in rest] == ["notifications/initialized", "tools/list"]
    for later in rest:  # sent after the handshake's answer: its session and version go with them
        assert later["headers"]["Mcp-Session-Id"] == "s-0123456789abcdef"
        assert later["headers"]["MCP-Protocol-Version"] == "2025-06-18"
        assert later["headers"]["X-Api-Key"] == key
    (row,) = sessions(tmp_path)
    assert row["server"].startswith("echo") and row["host"] == "h 1"
    assert key not in Path(row["recording"]).read_text()


def test_attach_to_a_session_that_does_not_exist_says_so() -> None:
    from typer.testing import CliRunner

    from mcpx.cli.main import build_app

    result = CliRunner().invoke(build_app("inspect"), ["inspect", "--attach", "nosuch"])
    assert result.exit_code == 1
    assert "no proxied session named 'nosuch' (mcpx sessions lists them" in result.output


def test_an_installed_entry_runs_as_the_host_would_run_it(tmp_path: Path) -> None:
    """`mcpx proxy install` output, run as Claude Desktop runs an entry: command, args, env; the server's
    own words after `--` (even one spelled like a proxy flag) reach the server. Then the proxy is killed
    (SIGKILL), and its server does not outlive it."""
    from mcpx.proxy.install import install, plan_install
    from mcpx.workspace.discovery import Places, claude_desktop_path

    where = Places(home=tmp_path, cwd=tmp_path, platform="linux", environ={})
    config = claude_desktop_path(where)
    config.parent.mkdir(parents=True)
    server = {
        "command": sys.executable,
        "args": [str(PEER), "--name", "not-the-proxys"],
        "env": {"API_TOKEN": SECRET, "PROXY_PEER_PID": str(tmp_path / "peer.pid")},
    }
    config.write_text(json.dumps({"mcpServers": {"peer": server}}))
    install(plan_install("claude-desktop", where, ["peer"]))
    entry = json.loads(config.read_text())["mcpServers"]["peer"]
    process = subprocess.Popen(
        [entry["command"], *entry["args"]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **entry["env"], "MCPX_DATA_DIR": str(tmp_path / "data")},
    )
    host = Host(process)
    try:
        host.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"env"}}')
        assert host.until(1)["result"]["content"][0]["text"] == SECRET
    finally:
        host.finish()  # SIGKILL: the proxy ends as hard as a process can
    # its server goes down with it (mcpx's sentinel takes the group): no process left
    pid = int((tmp_path / "peer.pid").read_text())
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid)
    (row,) = sessions(tmp_path)
    assert row["name"] == "peer" and SECRET not in Path(row["recording"]).read_text()


def test_a_session_exports_by_its_name(shared: dict[str, Any]) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mcpx", "export", "shared", "--format", "har"],
        capture_output=True,
        env={**os.environ, "MCPX_DATA_DIR": str(shared["tmp"] / "data")},
        timeout=30,
        check=True,
    ).stdout
    entries = json.loads(out)["log"]["entries"]
    assert [e["_mcpMethod"] for e in entries][:3] == ["initialize", "notifications/initialized", "tools/list"]
    assert SECRET not in out.decode()
    assert entries[0]["response"]["content"]["text"].encode() == shared["host"].received[0]


def test_a_stdio_host_reaches_a_legacy_http_sse_server_through_the_proxy(tmp_path: Path) -> None:
    """The bridge to an old server (the SDK's HTTP+SSE transport, tests/servers/http_sdk.py --sse): the
    proxy's lean HTTP/1.1 upstream holds the server's long-lived event stream open and POSTs beside it;
    a call's progress and log notifications reach the host before its answer, in the server's order."""
    from http_servers import running, sdk_server

    with running(sdk_server("--sse")) as (server,):
        host = start_proxy(tmp_path, "--name", "old", "--transport", "sse", server.url("/sse"))
        try:
            init = {
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "h", "version": "1"},
            }
            host.send(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
            host.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
            assert host.until(1)["result"]["serverInfo"]["name"] == "http-sdk"
            params = {"name": "progress", "arguments": {"steps": 2}, "_meta": {"progressToken": "p"}}
            host.send(frame({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}))
            assert host.until(2)["result"]["content"][0]["text"] == "done after 2 steps"
            notes = [json.loads(line)["method"] for line in host.received if b'"method"' in line]
            assert notes == ["notifications/progress"] * 2 + ["notifications/message"]
        finally:
            host.finish()


def test_listen_serves_streamable_http_to_http_hosts(tmp_path: Path) -> None:
    """`--listen`: a stdio server behind a Streamable HTTP endpoint on 127.0.0.1; an HTTP host (mcpx's
    own client) through it, its Authorization header masked in the session; a cross-origin request
    refused; an old HTTP+SSE host served on the same port; SIGTERM stops the server too."""
    import signal

    import anyio
    import httpx
    from mcp import ClientSession
    from mcp.client.sse import sse_client

    async def old_host(url: str) -> tuple[str, str, list[str]]:
        async with sse_client(url) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            called = await session.call_tool("echo", {"text": "through the old transport"})
            text = called.content[0].text  # type: ignore[union-attr]
            return init.server_info.name, text, [t.name for t in tools.tools]

    pidfile = tmp_path / "peer.pid"
    proxy = subprocess.Popen(
        [sys.executable, "-m", "mcpx", "proxy", "--listen", "0", "--name", "lis", sys.executable, str(PEER)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "MCPX_DATA_DIR": str(tmp_path / "data"), "PROXY_PEER_PID": str(pidfile)},
    )
    token = "hosttoken-5d1e9a7b3c"
    try:
        assert proxy.stderr is not None
        first = listening_line(proxy)
        url = first.split("listening on ")[1].split(" ")[0]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        called = subprocess.run(
            [sys.executable, "-m", "mcpx", "call", url, "--method", "tools/call", "--tool-name", "echo",
             "--tool-arg", "text=over http", "--header", f"Authorization: Bearer {token}", "--format", "json"],
            capture_output=True, text=True, timeout=30, env={**os.environ, "MCPX_DATA_DIR": str(tmp_path / "c")},
        )  # fmt: skip
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["result"]["content"][0]["text"] == "over http"
        # an answer that is all the server sends for a request is one JSON reply; a log notification
        # before it makes the reply an event stream of both (the server's crlf tool)
        accept = {"Accept": "application/json, text/event-stream"}
        calls = [{"jsonrpc": "2.0", "id": 20 + i, "method": "tools/call", "params": {"name": name}}
                 for i, name in enumerate(("echo", "crlf"))]  # fmt: skip
        alone, streamed = (httpx.post(url, json=c, headers=accept, timeout=20) for c in calls)
        assert alone.headers["content-type"] == "application/json" and alone.json()["id"] == 20
        assert streamed.headers["content-type"] == "text/event-stream"
        events = [json.loads(line[6:]) for line in streamed.text.splitlines() if line.startswith("data: ")]
        assert [e.get("method") or e["id"] for e in events] == ["notifications/message", 21]
        refused = httpx.post(url, content=b'{"jsonrpc":"2.0","id":9,"method":"ping"}',
                             headers={"Origin": "http://evil.example"})  # fmt: skip
        assert refused.status_code == 403
        # an old host — the official Python SDK's HTTP+SSE client (2024-11-05) — on the same endpoint:
        # it GETs …/sse, POSTs where the endpoint event says, and gets every answer on its stream
        legacy = first.split("legacy HTTP+SSE at ")[1].split(")")[0]
        assert legacy == url.removesuffix("/mcp") + "/sse"
        name, text, tools = anyio.run(old_host, legacy)
        assert (name, text) == ("proxy-peer", "through the old transport")
        assert tools == ["echo", "env", "garble", "die"]
        stray = httpx.post(legacy.removesuffix("/sse") + "/messages?session_id=nosuch", content=b"{}")
        assert stray.status_code == 404  # a session id the proxy never gave
        (live,) = sessions(tmp_path)
        assert live["live"] and live["listen"] == url and live["host"].startswith("mcpx")
        proxy.send_signal(signal.SIGTERM)
        assert proxy.wait(timeout=20) == 0
    finally:
        if proxy.poll() is None:
            proxy.kill()
        proxy.wait()
        if proxy.stderr is not None:
            proxy.stderr.close()
    assert not alive(int(pidfile.read_text()))
    (row,) = sessions(tmp_path)
    text = Path(row["recording"]).read_text()
    assert not row["live"] and token not in text and "Bearer ••••7b3c" in text
    assert '"event":"host-request"' in text


def test_a_recording_that_cannot_be_written_does_not_stop_the_relay(tmp_path: Path) -> None:
    """--record on a full disk (/dev/full): said once on stderr, and the host still gets its answers."""
    host = start_proxy(tmp_path, "--record", "/dev/full", "--name", "full", sys.executable, str(PEER))
    try:
        host.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        assert host.until(1)["result"] == {}
        host.send(
            b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"on"}}}'
        )
        assert host.until(2)["result"]["content"][0]["text"] == "on"
        assert host.process.stdin is not None
        host.process.stdin.close()
        host.process.stdin = None
        host.rest()
        assert host.process.wait(timeout=20) == 0
        assert host.process.stderr is not None
        stderr = host.process.stderr.read().decode()
    finally:
        host.finish()
    assert stderr.count("the recording stopped (No space left on device); relaying goes on") == 1
    (row,) = sessions(tmp_path)  # listed, without reading the device
    assert row["name"] == "full" and row["exit_code"] == 0 and "no recording" in row["error"]


def test_a_server_that_cannot_start_is_one_sentence_and_an_ended_session(tmp_path: Path) -> None:
    host = start_proxy(tmp_path, "--name", "missing", str(tmp_path / "no-such-server"))
    try:
        host.rest()
        assert host.process.wait(timeout=20) == 4
        assert host.process.stderr is not None
        assert "cannot start the server" in host.process.stderr.read().decode()
    finally:
        host.finish()
    (row,) = sessions(tmp_path)
    assert row["live"] is False and row["exit_code"] == 4


def test_diff_reads_a_proxied_session_like_any_recording(shared: dict[str, Any]) -> None:
    recording = shared["after"][0]["recording"]
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "diff", recording, recording],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tools: same (4)" in proc.stdout


def test_a_host_that_stops_reading_holds_the_server_back(tmp_path: Path) -> None:
    """A pipe's back-pressure, through the proxy: while the host reads nothing, a server writing 25 MB
    blocks (the proxy does not buffer it all); once the host reads, every frame arrives."""
    flooded = tmp_path / "flooded"
    host = start_proxy(tmp_path, "--record", str(tmp_path / "flood.mcpx.jsonl"), sys.executable, str(PEER),
                       env={"PROXY_PEER_FLOODED": str(flooded)}, reading=False)  # fmt: skip
    try:
        call = {"name": "flood", "arguments": {"count": 400, "size": 65536}}
        host.send(frame({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}))
        deadline = time.monotonic() + 1.5  # ample for 25 MB through two pipes, had nothing held it back
        while not flooded.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not flooded.exists()  # the server waits on its full pipe
        assert host.process.stdout is not None
        notifications = 0
        for line in host.process.stdout:
            message = json.loads(line)
            if message.get("id") == 1:
                break
            notifications += 1
        assert notifications == 400 and message["result"]["content"][0]["text"] == "flooded"
        assert flooded.exists()
    finally:
        host.finish()


def test_a_server_that_stops_reading_holds_the_host_back(tmp_path: Path) -> None:
    """The other way: a server that reads nothing makes the host's writes wait (the proxy stops reading
    the host once 1 MB waits for the server) instead of the proxy taking 25 MB in."""
    host = start_proxy(tmp_path, "--record", str(tmp_path / "deaf.mcpx.jsonl"), sys.executable, str(PEER),
                       env={"PROXY_PEER_DEAF": "1"})  # fmt: skip
    chunk = frame({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x" * 65536}})

    def flood() -> None:
        # the proxy is killed at the end: a broken pipe, or the pipe closed under this thread
        with contextlib.suppress(OSError, ValueError):
            for _ in range(400):
                host.send(chunk)

    writer = threading.Thread(target=flood, daemon=True)
    try:
        writer.start()
        writer.join(timeout=1.5)  # ample for 25 MB into a proxy that takes it all
        assert writer.is_alive()  # still blocked: the proxy holds the host back
    finally:
        host.finish()
        writer.join(timeout=10)


def test_listen_passes_the_hosts_headers_to_a_url_target_but_no_credential(tmp_path: Path) -> None:
    """An HTTP host → `mcpx proxy --listen` → tests/servers/secret_echo.py, which logs every header it
    gets (and echoes back whatever is not harmless). The server sees the host's Mcp-* headers and
    User-Agent, and a header named with --forward-header; never the host's Authorization, Cookie or
    X-Api-Key (the target is another origin than the one the host addressed), nor its session id or
    Origin; the proxy's own --header goes with every POST and wins over the host's."""
    import signal

    import httpx
    from http_servers import SERVERS, Server, free_port, running

    port, seen = free_port(), tmp_path / "requests.jsonl"
    command = [sys.executable, str(SERVERS / "secret_echo.py"), "--port", str(port), "--log", str(seen)]
    host_token, cookie, key = "hostbearer-0c4f7a2e91", "sid=cookie-5b8e1d3f", "hostkey-9a1c6e4b27"
    with running(Server.launch(command, port)) as (server,):
        proxy = subprocess.Popen(
            [sys.executable, "-m", "mcpx", "proxy", "--listen", "0", "--forward-header", "X-Tenant",
             "--header", "X-Proxy-Own: own-1", "--header", "User-Agent: proxy-ua", server.url()],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "MCPX_DATA_DIR": str(tmp_path / "data")},
        )  # fmt: skip
        try:
            assert proxy.stderr is not None
            url = listening_line(proxy).split("listening on ")[1].split(" ")[0]
            sent = {
                "Authorization": f"Bearer {host_token}",
                "Cookie": cookie,
                "X-Api-Key": key,
                "X-Tenant": "tenant-7",
                "Accept-Language": "fr",
                "Mcp-Session-Id": "the-hosts-own",
                "Origin": "http://localhost:5173",
                "Accept": "application/json, text/event-stream",
            }
            init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "h"}}
            with httpx.Client(headers=sent, timeout=20) as client:
                first = client.post(
                    url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}
                )
                assert first.status_code == 200 and '"id":1' in first.text.replace(" ", "")
                listed = client.post(
                    url,
                    json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                    headers={"MCP-Protocol-Version": "2025-06-18", "Mcp-Method": "tools/list"},
                )
                assert '"leak"' in listed.text
            proxy.send_signal(signal.SIGTERM)
            assert proxy.wait(timeout=20) == 0
        finally:
            if proxy.poll() is None:
                proxy.kill()
            proxy.wait()
            if proxy.stderr is not None:
                proxy.stderr.close()
    posts = [json.loads(line) for line in seen.read_text().splitlines() if '"POST"' in line]
    assert [json.loads(p["body"])["method"] for p in posts] == ["initialize", "tools/list"]
    for post in posts:
        got = {name.lower(): value for name, value in post["headers"].items()}
        everything = json.dumps(post)
        for secret in (host_token, cookie, key, "the-hosts-own", "5173"):
            assert secret not in everything  # never passed to another origin
        # (a Cookie there is the server's own, set by its Set-Cookie: the host's value is checked above)
        assert "authorization" not in got and "origin" not in got
        assert got["x-tenant"] == "tenant-7" and got["accept-language"] == "fr"  # named; harmless
        assert got["x-proxy-own"] == "own-1" and got["user-agent"] == "proxy-ua"  # the proxy's own win
    initialize, listed_post = ({k.lower(): v for k, v in p["headers"].items()} for p in posts)
    assert "mcp-session-id" not in initialize
    assert listed_post["mcp-session-id"] == "s-0123456789abcdef"  # the server's session, not the host's
    assert listed_post["mcp-method"] == "tools/list" and listed_post["mcp-protocol-version"] == "2025-06-18"
    (row,) = sessions(tmp_path)
    text = Path(row["recording"]).read_text()
    assert host_token not in text and key not in text and "tenant-7" not in text  # masked in the session
