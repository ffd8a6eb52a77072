"""No secret leaves or lands in clear: each way a user passes a secret, against a server that echoes it
back everywhere it can (tests/servers/secret_echo.py), and then every byte mcpx produced is searched for
the literal secret — stdout and stderr of `mcpx call --traffic`, the recording, `mcpx replay`'s output,
the cache and data directories. A cross-origin redirect goes to a second loopback server that logs what
reached it. File modes are checked."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from http_servers import SERVERS, Server, free_port, running

ECHO = str(SERVERS / "secret_echo.py")
sys.path.insert(0, str(SERVERS))
from secret_echo import OAUTH_FIELD_VALUE  # noqa: E402


def echo_server(*flags: str) -> Server:
    port = free_port()
    return Server.launch([sys.executable, ECHO, "--port", str(port), *flags], port)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server | Path]]:
    other_log = tmp_path_factory.mktemp("other-origin") / "received.jsonl"
    other = echo_server("--log", str(other_log))
    # the second origin: another port on another loopback name (localhost, not 127.0.0.1)
    redirector = echo_server("--redirect-to", f"http://localhost:{other.port}/mcp")
    plain = echo_server()
    with running(plain, other, redirector):
        yield {"plain": plain, "other": other, "redirector": redirector, "other_log": other_log}


def mcpx(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpx", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def produced(
    tmp: Path,
    target: Sequence[str],
    env: dict[str, str] | None = None,
    *,
    every_way: bool = False,
    fmt: str = "json",
) -> dict[str, str]:
    """Everything mcpx writes for a call of the leaking tool (`every_way`: also a failing call and a
    replay of the recording), and the files in the cache and data directories."""
    out: dict[str, str] = {}
    for tool in ("leak", "fail") if every_way else ("leak",):
        record = tmp / f"{tool}.mcpx.jsonl"
        proc = mcpx(
            "call", *target, "--method", "tools/call", "--tool-name", tool, "--traffic",
            "--record", str(record), "--format", fmt, env=env,
        )  # fmt: skip
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode == (5 if tool == "fail" else 0), proc.stderr
        assert stat.S_IMODE(record.stat().st_mode) == 0o600
        out[f"{tool} stdout"], out[f"{tool} stderr"] = proc.stdout, proc.stderr
        out[f"{tool} recording"] = record.read_text()
    if every_way:
        replay = mcpx("replay", str(tmp / "leak.mcpx.jsonl"), "--format", "json")
        out["replay"] = replay.stdout + replay.stderr
        # replayed against the live server: its answers differ from the masked recording, and the report
        # that shows the differences masks them too
        against = mcpx("replay", str(tmp / "leak.mcpx.jsonl"), "--against", *target, "--verbose")
        assert against.returncode in (0, 7), against.stderr
        out["replay --against"] = against.stdout + against.stderr
        check = mcpx("replay", str(tmp / "leak.mcpx.jsonl"), "--check-secrets")
        assert check.returncode == 0, check.stdout  # nothing left that looks like a secret
        out["check"] = check.stdout + check.stderr
    for name in ("MCPX_CACHE_DIR", "MCPX_DATA_DIR"):
        for path in Path(os.environ[name]).rglob("*"):
            if path.is_file():
                assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
                out[str(path)] = path.read_text(errors="replace")
            else:
                assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    return out


def assert_nowhere(outputs: dict[str, str], *secrets: str) -> None:
    for secret in secrets:
        leaks = [where for where, text in outputs.items() if secret in text]
        assert not leaks, f"{secret!r} in clear in: {leaks}"


def assert_echoed(outputs: dict[str, str]) -> None:
    """The server did echo something masked: the test would pass for the wrong reason otherwise."""
    assert "••••" in outputs["leak stdout"] and "••••" in outputs["leak recording"]


def test_a_custom_header_and_a_config_files_headers(servers: dict, tmp_path: Path) -> None:
    url = servers["plain"].url()
    secret = "hdr-9d1c7e4b2a66"
    outputs = produced(tmp_path, [url, "-H", f"X-Api-Key: {secret}"], every_way=True)
    assert_echoed(outputs)
    assert_nowhere(outputs, secret)
    assert "refused ••••" in outputs["fail stderr"]  # the error sentence is there, masked
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"echo": {"url": url, "headers": {"X-Tenant-Key": secret}}}}))
    outputs = produced(tmp_path, ["--config", str(config), "--server", "echo"])
    assert_echoed(outputs)
    assert_nowhere(outputs, secret)


def test_url_userinfo_and_query_secrets(servers: dict, tmp_path: Path) -> None:
    port = servers["plain"].port
    url = (
        f"http://alice:pw-5e8f1a2b3c@127.0.0.1:{port}/mcp?api_key=ak-44c0ffee99&token=tk-1234abcd5678&page=2"
    )
    outputs = produced(tmp_path, [url])
    assert_echoed(outputs)
    assert_nowhere(outputs, "pw-5e8f1a2b3c", "ak-44c0ffee99", "tk-1234abcd5678")
    assert "page=2" in outputs["leak recording"]  # the rest of the URL is kept


def test_an_inherited_env_value_whose_name_looks_secret(tmp_path: Path) -> None:
    secret = "inh-0b7e5d3c9a11"
    # the text output joins content items: the halves of the secret meet there
    outputs = produced(tmp_path, [ECHO], env={"API_TOKEN": secret}, fmt="text")
    # mcpx check quotes what the server said (its name, instructions, errors) in its report
    check = mcpx("check", ECHO, env={"API_TOKEN": secret})
    assert check.returncode in (0, 6) and "Traceback" not in check.stderr, check.stderr
    outputs["check"] = check.stdout + check.stderr
    assert "••••" in outputs["check"]
    assert_echoed(outputs)
    assert_nowhere(outputs, secret)


def test_an_env_value_given_with_e_and_a_bearer_echoed_in_a_response_header(
    servers: dict, tmp_path: Path
) -> None:
    secret = "env-6a2f8e0d4c77"
    outputs = produced(tmp_path, [ECHO, "-e", f"API_TOKEN={secret}"])
    assert_echoed(outputs)
    assert_nowhere(outputs, secret)
    bearer = "brr-3c5a7e9f1b22"
    outputs = produced(tmp_path, [servers["plain"].url(), "--bearer", bearer])
    assert_echoed(outputs)
    assert_nowhere(outputs, bearer)
    assert "x-echo" in outputs["leak recording"]  # the response header was recorded, masked


def test_oauth_named_fields_inside_json_text(servers: dict, tmp_path: Path) -> None:
    outputs = produced(tmp_path, [servers["plain"].url()])
    assert "access_token" in outputs["leak stdout"]
    assert_nowhere(outputs, OAUTH_FIELD_VALUE)


def test_a_cross_origin_redirect_of_a_post_is_refused_and_carries_nothing(
    servers: dict, tmp_path: Path
) -> None:
    secret = "rdr-8b4d2f6a0e33"
    url = servers["redirector"].url()
    proc = mcpx("call", url, "-H", f"X-Api-Key: {secret}", "--bearer", secret, "--method", "tools/list")
    assert proc.returncode == 4, proc.stderr
    sentence = proc.stderr.splitlines()[0]
    assert (
        "redirected a POST to another origin" in sentence and "MCPX_ALLOW_CROSS_ORIGIN_REDIRECTS" in sentence
    )
    log: Path = servers["other_log"]
    assert not log.exists() or log.read_text() == ""  # nothing at all reached the other origin
    assert secret not in proc.stdout + proc.stderr

    assert "--allow-cross-origin-redirects" in sentence

    # allowed on purpose (the flag, or the environment): followed, but without the credentials or headers
    proc = mcpx(
        "call", url, "-H", f"X-Api-Key: {secret}", "--bearer", secret, "--method", "tools/list",
        "--allow-cross-origin-redirects",
    )  # fmt: skip
    received = [json.loads(line) for line in log.read_text().splitlines()]
    assert received, proc.stderr
    log.write_text("")
    proc = mcpx(
        "call", url, "-H", f"X-Api-Key: {secret}", "--bearer", secret, "--method", "tools/list",
        env={"MCPX_ALLOW_CROSS_ORIGIN_REDIRECTS": "1"},
    )  # fmt: skip
    by_env = [json.loads(line) for line in log.read_text().splitlines()]
    assert by_env, proc.stderr
    received += by_env
    assert secret not in json.dumps(received)
    for entry in received:
        names = {name.lower() for name in entry["headers"]}
        assert not names & {"authorization", "cookie", "x-api-key", "mcp-session-id"}, names
