"""Signing in to a real protected server: tests/servers/oauth_sdk.py, the official SDK's resource server
and authorization server (auto-approving, short-lived tokens), driven through the `mcpx` console script.

Each test has its own data directory (tests/conftest.py), so each starts signed out.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from call_harness import MCPX, mcpx
from http_servers import SERVERS, Server, free_port, running

LIFETIME = 3.0


def _launch(*flags: str) -> Iterator[Server]:
    port = free_port()
    server = Server.launch(
        [sys.executable, str(SERVERS / "oauth_sdk.py"), "--port", str(port), "--token-lifetime", str(LIFETIME),
         *flags],
        port,
    )  # fmt: skip
    with running(server):
        yield server


@pytest.fixture(scope="module")
def protected() -> Iterator[Server]:
    yield from _launch()


def stats(url: str) -> dict[str, int]:
    run = mcpx("call", url, "--method", "tools/call", "--tool-name", "stats", "--format", "json")
    assert run.returncode == 0, str(run)
    counts: dict[str, int] = run.result()["structuredContent"]
    return counts


def stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((Path(os.environ["MCPX_DATA_DIR"]) / "oauth.json").read_text())
    return data


def secrets_in_store() -> list[str]:
    data = stored()
    values = [t.get(k) for t in data.get("tokens", {}).values() for k in ("access_token", "refresh_token")]
    values += [c.get("client_secret") for c in data.get("clients", {}).values()]
    return [v for v in values if isinstance(v, str) and v]


def test_sign_in_then_reuse_refresh_token_and_logout(protected: Server) -> None:
    url = protected.url()
    first = mcpx("call", url, "--method", "tools/call", "--tool-name", "whoami", "--oauth-non-interactive")
    assert first.returncode == 0, str(first)
    assert "signed in" in first.stdout
    assert (Path(os.environ["MCPX_DATA_DIR"]) / "oauth.json").stat().st_mode & 0o777 == 0o600
    before = stats(url)  # a second run: no browser flag, so it must reuse the stored token
    again = stats(url)
    assert again["authorizations"] == before["authorizations"]
    assert again["code_exchanges"] == before["code_exchanges"]

    time.sleep(LIFETIME + 0.5)
    # two processes find the token expired at once; the server rotates refresh tokens and refuses a used
    # one, so without the store's lock one of them would lose its refresh and have to sign in again
    with ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda _: stats(url), range(2)))
    after = max(both, key=lambda counts: counts["refreshes"])
    assert after["refreshes"] > again["refreshes"], "an expired token is refreshed"
    assert after["authorizations"] == before["authorizations"], "refreshing needs no new authorization"

    status = mcpx("auth", "status", url, "--format", "json")
    assert status.returncode == 0, str(status)
    (server,) = json.loads(status.stdout)["servers"]
    assert server["issuer"] == f"http://127.0.0.1:{protected.port}"
    assert server["client"] == "dynamic" and server["refresh_token"] is True
    assert "read" in server["scopes"]
    assert not any(secret in status.stdout for secret in secrets_in_store())

    token = mcpx("auth", "token", url)
    assert token.returncode == 0, str(token)
    assert token.stdout.strip() == stored()["tokens"][url]["access_token"]

    out = mcpx("auth", "logout", url)
    assert out.returncode == 0, str(out)
    assert "revoked at" in out.stdout and "HTTP 200" in out.stdout, str(out)
    gone = mcpx("auth", "status", url)
    assert gone.returncode == 3 and "not signed in" in gone.stdout


def test_step_up_on_insufficient_scope(protected: Server) -> None:
    run = mcpx(
        "call", protected.url(), "--method", "tools/call", "--tool-name", "admin_action",
        "--oauth-non-interactive", "--traffic",
    )  # fmt: skip
    assert run.returncode == 0, str(run)
    assert "admin done" in run.stdout
    assert any("HTTP 403" in line for line in run.traffic())
    assert any("authorization request" in line and "read admin" in line for line in run.traffic())


def test_no_secret_in_clear_in_traffic_or_recording(protected: Server, tmp_path: Path) -> None:
    recording = tmp_path / "session.jsonl"
    run = mcpx(
        "call", protected.url(), "--method", "tools/call", "--tool-name", "whoami",
        "--oauth-non-interactive", "--traffic", "--record", str(recording),
    )  # fmt: skip
    assert run.returncode == 0, str(run)
    secrets = secrets_in_store()
    assert secrets, "the sign-in stored tokens"
    saved = recording.read_text()
    for secret in secrets:
        assert secret not in run.stdout + run.stderr and secret not in saved
    shown = run.stderr + saved
    assert "code=" in shown, "the redirect with its code is in the traffic"
    assert not re.search(r"[?&]code=(?!••••)", shown), "authorization codes are masked"
    assert not re.search(r"code_verifier=(?!••••)", shown)


@pytest.fixture(scope="module")
def wrong_state() -> Iterator[Server]:
    yield from _launch("--wrong-state")


def test_a_wrong_state_stops_the_sign_in(wrong_state: Server) -> None:
    run = mcpx(
        "call", wrong_state.url(), "--method", "tools/list", "--oauth-non-interactive", "--format", "json",
    )  # fmt: skip
    error = run.failure(3, "auth_failed")
    assert error["step"] == "authorization response"
    assert "state" in error["message"]


def test_browser_redirect_reaches_the_loopback_listener(protected: Server) -> None:
    """--oauth-no-browser prints the address; a stand-in for the browser opens it and follows the
    redirect to mcpx's one-shot listener on 127.0.0.1, which finishes the sign-in. The person takes
    longer than --timeout: the request that met the 401 waits for them all the same."""
    port = free_port()
    proc = subprocess.Popen(
        [*MCPX, "call", protected.url(), "--method", "tools/call", "--tool-name", "whoami",
         "--oauth-no-browser", "--oauth-callback-port", str(port), "--timeout", "4"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.startswith(f"http://127.0.0.1:{protected.port}/authorize?"):
                break
        else:
            raise AssertionError("".join(lines))
        time.sleep(5)  # longer than --timeout
        answer = httpx.get(line.strip(), follow_redirects=True, timeout=30)
        assert answer.status_code == 200 and "Signed in" in answer.text
        assert str(answer.url).startswith(f"http://127.0.0.1:{port}/callback?")
        stdout, rest = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, "".join(lines) + rest
    assert "signed in" in stdout


def test_without_browser_or_terminal_it_says_how_to_sign_in(protected: Server) -> None:
    run = mcpx("call", protected.url(), "--method", "tools/list", "--format", "json", env={"DISPLAY": ""})
    error = run.failure(3, "auth_failed")
    assert error["step"] == "authorization"
    assert "mcpx auth login" in error["message"]


def test_an_as_without_registration_asks_the_person_for_a_client_id() -> None:
    """The spec's last resort: no pre-registered client, no metadata document, no dynamic registration —
    mcpx asks at the terminal (a pty here) for a client id, then signs in with it."""
    import pty

    callback_port = free_port()
    redirect = f"http://127.0.0.1:{callback_port}/callback"
    launched = _launch("--no-registration", redirect)
    server = next(launched)
    try:
        primary, secondary = pty.openpty()
        proc = subprocess.Popen(
            [*MCPX, "call", server.url(), "--method", "tools/call", "--tool-name", "whoami",
             "--oauth-no-browser", "--oauth-callback-port", str(callback_port)],
            stdin=secondary, stdout=subprocess.PIPE, stderr=secondary, text=True,
        )  # fmt: skip
        os.close(secondary)
        seen = ""
        try:
            seen = _read_until(primary, "type its client id here")
            os.write(primary, b"typed-client\n")
            seen += _read_until(primary, "Waiting for the redirect")  # printed after the address
            address = seen[seen.index(f"http://127.0.0.1:{server.port}/authorize?") :].split()[0]
            answer = httpx.get(address, follow_redirects=True, timeout=30)
            assert answer.status_code == 200, answer.text
            stdout, _ = proc.communicate(timeout=60)
        finally:
            proc.kill()
            os.close(primary)
        assert proc.returncode == 0, seen
        assert "signed in" in stdout
        assert stored()["clients"][f"http://127.0.0.1:{server.port}"]["client_id"] == "typed-client"
    finally:
        launched.close()


def _read_until(fd: int, marker: str, timeout: float = 60) -> str:
    """What a pty shows until `marker` appears (what came with it in the same read included)."""
    import select

    text, deadline = "", time.monotonic() + timeout
    while marker not in text:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise AssertionError(f"no {marker!r} within {timeout} s; got:\n{text}")
        text += os.read(fd, 4096).decode("utf-8", "replace")
    return text
