"""The official MCP Inspector's CLI as a real host, through `mcpx proxy`, to real servers: the reference
server-everything (Node) and an SDK server. The same answers as direct, the session recorded and listed,
the secret env value the host passed masked in the recording, no process left.

The inspector is also an HTTP host: through `mcpx proxy --listen` to server-everything over Streamable
HTTP. Each inspector run costs ~3 s (Node start-up): the module runs four, and asserts much on each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_demo_inspector import LAUNCHER, NODE

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
SDK = ROOT / "tests" / "servers" / "sdk_everything.py"
SECRET = "sekrit-value-9d2f61ab"
pytestmark = [pytest.mark.npm, pytest.mark.timeout(120)]
if not EVERYTHING.exists():
    pytest.skip("needs @modelcontextprotocol/server-everything in node_modules", allow_module_level=True)


def inspector(server: list[str], *args: str, env: dict[str, str] | None = None) -> Any:
    """The inspector's CLI on `server`; the JSON it printed. It gives a stdio server only the env it is
    told (-e), so the proxy's own settings travel that way too, as in a host's config."""
    words = [w for key, value in (env or {}).items() for w in ("-e", f"{key}={value}")]
    command = [str(NODE), str(LAUNCHER), "--cli", *server, *words, *args, "--format", "json"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("proxy-inspector")


def proxied(data: Path, name: str, server: list[str]) -> tuple[list[str], dict[str, str]]:
    env = {"MCPX_DATA_DIR": str(data), "PYTHONPATH": os.pathsep.join(sys.path)}
    return [sys.executable, "-m", "mcpx", "proxy", "--name", name, *server], env


def listed(data: Path) -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-m", "mcpx", "sessions", "--format", "json"],
        capture_output=True,
        env={**os.environ, "MCPX_DATA_DIR": str(data)},
        timeout=30,
        check=True,
    ).stdout
    return list(json.loads(out)["sessions"])


@pytest.fixture(scope="module")
def direct() -> Any:
    """The inspector's own listing of server-everything (the pinned server lists the same tools over
    stdio and over HTTP: checked once by hand, and any difference fails the HTTP test loudly)."""
    return inspector([str(EVERYTHING)], "--method", "tools/list")


def test_server_everything_through_the_proxy(data: Path, direct: Any) -> None:
    command, env = proxied(data, "everything", [str(EVERYTHING)])
    through = inspector(command, "--method", "tools/list", env=env)
    assert through == direct and len(direct["result"]["tools"]) > 10

    (row,) = [row for row in listed(data) if row["name"] == "everything"]
    assert row["host"].startswith("inspector") and row["server"].startswith("mcp-servers/everything")
    assert not row["live"] and row["era"] == "legacy" and row["problems"] == 0 and row["exit_code"] == 0
    events = [json.loads(line) for line in Path(row["recording"]).read_text().splitlines()[1:]]
    answer = next(e for e in events if e["direction"] == "in" and '"tools":[' in e["raw"])
    # the recorded frame is the server's; what the inspector printed was parsed from the same bytes
    assert json.loads(answer["raw"])["result"] == direct["result"]
    assert not _alive(_server_pid(events))


def test_an_sdk_server_through_the_proxy_with_a_secret_in_its_env(data: Path) -> None:
    command, env = proxied(data, "sdk", [sys.executable, str(SDK)])
    called = inspector(
        command, "--method", "tools/call", "--tool-name", "read_env", "--tool-arg", "name=MY_API_KEY",
        env={**env, "MY_API_KEY": SECRET},
    )  # fmt: skip
    assert SECRET in json.dumps(called)  # the host sees the server's answer whole
    (row,) = [row for row in listed(data) if row["name"] == "sdk"]
    assert row["server"] and row["frames"] >= 5 and row["problems"] == 0 and row["exit_code"] == 0
    text = Path(row["recording"]).read_text()
    assert SECRET not in text and SECRET[-4:] in text  # masked: a secret-looking name's env value
    events = [json.loads(line) for line in text.splitlines()[1:]]
    assert not _alive(_server_pid(events))


def test_server_everything_over_http_with_the_inspector_as_an_http_host(data: Path, direct: Any) -> None:
    """inspector --transport http → `mcpx proxy --listen` → server-everything (streamableHttp): the same
    listing as direct, the session recorded with the inspector as its host, SIGTERM ends it cleanly."""
    import signal

    from http_servers import everything_server, running

    with running(everything_server("streamableHttp")) as (server,):
        proxy = subprocess.Popen(
            [sys.executable, "-m", "mcpx", "proxy", "--listen", "0", "--name", "everything-http", server.url()],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "MCPX_DATA_DIR": str(data)},
        )  # fmt: skip
        try:
            assert proxy.stderr is not None
            url = proxy.stderr.readline().decode().split("listening on ")[1].split(" ")[0]
            through = inspector([url], "--transport", "http", "--method", "tools/list")
            assert through == direct
            proxy.send_signal(signal.SIGTERM)
            assert proxy.wait(timeout=20) == 0
        finally:
            if proxy.poll() is None:
                proxy.kill()
            proxy.wait()
            if proxy.stderr is not None:
                proxy.stderr.close()
    (row,) = [row for row in listed(data) if row["name"] == "everything-http"]
    assert row["host"].startswith("inspector") and row["server"].startswith("mcp-servers/everything")
    assert not row["live"] and row["era"] == "legacy" and row["exit_code"] == 0
    events = [json.loads(line) for line in Path(row["recording"]).read_text().splitlines()[1:]]
    answer = next(e for e in events if e["direction"] == "in" and '"tools":[' in e["raw"])
    assert json.loads(answer["raw"])["result"] == direct["result"]
    assert any((e.get("facts") or {}).get("event") == "host-request" for e in events)


def _server_pid(events: list[dict[str, Any]]) -> int:
    return next(int(e["facts"]["pid"]) for e in events if (e.get("facts") or {}).get("event") == "spawned")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
