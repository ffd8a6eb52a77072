"""Starting real HTTP servers for the HTTP transport tests: a subprocess on a free loopback port, waited
for until it accepts connections, and taken down (with its process group) afterwards."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "servers"
EVERYTHING = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    """A server process on a loopback port; `launch()` starts it, `ready()` waits for its port."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    @classmethod
    def launch(cls, command: Sequence[str], port: int, env: Mapping[str, str] | None = None) -> Server:
        log = Path(tempfile.mkstemp(prefix="mcpx-http-server-", suffix=".log")[1])
        with log.open("wb") as out:
            process = subprocess.Popen(
                list(command),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **(env or {})},
                start_new_session=True,
            )
        return cls(port, process, log)

    def ready(self, timeout: float = 20.0) -> Server:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the test server exited with {self.process.returncode}:\n{self.output()}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
            ):
                return self
            time.sleep(0.05)
        raise RuntimeError(
            f"the test server did not listen on {self.port} within {timeout} s:\n{self.output()}"
        )

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.log.unlink(missing_ok=True)


@contextlib.contextmanager
def running(*servers: Server) -> Iterator[tuple[Server, ...]]:
    """Wait for servers launched together (their start-ups overlap), and stop them all afterwards."""
    try:
        for server in servers:
            server.ready()
        yield servers
    finally:
        for server in servers:
            server.stop()


def sdk_server(*flags: str) -> Server:
    """tests/servers/http_sdk.py (the official SDK's MCPServer) with `flags` (--sse, --json, --stateless)."""
    port = free_port()
    return Server.launch([sys.executable, str(SERVERS / "http_sdk.py"), "--port", str(port), *flags], port)


def faulty_server() -> Server:
    port = free_port()
    return Server.launch([sys.executable, str(SERVERS / "http_faulty.py"), str(port)], port)


def everything_available() -> bool:
    return EVERYTHING.exists() and shutil.which("node") is not None


def everything_server(mode: str) -> Server:
    """@modelcontextprotocol/server-everything (pinned, from node_modules) in `streamableHttp` or `sse`."""
    port = free_port()
    node = shutil.which("node") or "node"
    return Server.launch([node, str(EVERYTHING), mode], port, env={"PORT": str(port)})
