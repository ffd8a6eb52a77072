"""Running the real `mcpx` console script as a subprocess, and reading what it left behind.

Every assertion about a failed run goes through `failure()`: the exit code, no traceback, and the last
stderr line being the one JSON error object the contract promises.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "servers"


def mcpx_command() -> list[str]:
    """The installed console script next to this interpreter (else on PATH), else `python -m mcpx`."""
    here = shutil.which("mcpx", path=str(Path(sys.executable).parent))
    found = here or shutil.which("mcpx")
    return [found] if found else [sys.executable, "-m", "mcpx"]


MCPX = mcpx_command()


def server(name: str) -> str:
    path = SERVERS / name
    assert path.exists(), f"no test server {path}"
    return str(path)


@dataclass
class Run:
    args: Sequence[str]
    returncode: int
    stdout: str
    stderr: str
    elapsed: float

    def __str__(self) -> str:
        return (
            f"mcpx {' '.join(self.args)}\n-> exit {self.returncode} after {self.elapsed:.2f}s\n"
            f"--- stdout (first 2000 chars)\n{self.stdout[:2000]}\n--- stderr (last 3000 chars)\n{self.stderr[-3000:]}"
        )

    @property
    def json_format(self) -> bool:
        args = list(self.args)
        pairs = zip(args, [*args[1:], ""], strict=False)
        return "--format=json" in args or any(a == "--format" and b == "json" for a, b in pairs)

    def result(self) -> Any:
        """The result of a successful run: with `--format json`, or in text for the methods whose text
        format is JSON (lists, initialize, …; tools/call, resources/read and prompts/get print content)."""
        assert self.returncode == 0, str(self)
        assert "Traceback" not in self.stderr, str(self)
        if self.json_format:
            lines = self.stdout.splitlines()
            assert len(lines) == 1, f"--format json must print exactly one line\n{self}"
            body = json.loads(lines[0])
            assert list(body) == ["result"], str(self)
            return body["result"]
        return json.loads(self.stdout)

    def text(self) -> str:
        """What a successful run printed in the text format (a tool's content as text), without the
        final newline."""
        assert self.returncode == 0, str(self)
        assert "Traceback" not in self.stderr, str(self)
        assert not self.json_format, "text() reads the text format"
        assert self.stdout.endswith("\n"), str(self)
        return self.stdout[:-1]

    def error(self) -> dict[str, Any]:
        """The `{"error": {...}}` object on the last stderr line."""
        assert "Traceback" not in self.stderr, str(self)
        lines = self.stderr.strip().splitlines()
        assert lines, f"nothing on stderr\n{self}"
        try:
            body = json.loads(lines[-1])
        except ValueError:
            raise AssertionError(f"the last stderr line is not JSON\n{self}") from None
        assert isinstance(body, dict) and list(body) == ["error"], str(self)
        error = body["error"]
        assert isinstance(error.get("code"), str) and isinstance(error.get("message"), str), str(self)
        return error

    def failure(self, exit_code: int, code: str | set[str]) -> dict[str, Any]:
        """Assert a clean failure with this exit code and error code; return the error object."""
        assert self.returncode == exit_code, str(self)
        error = self.error()
        codes = {code} if isinstance(code, str) else code
        assert error["code"] in codes, str(self)
        return error

    def traffic(self) -> list[str]:
        """The `--traffic` lines on stderr."""
        return [line for line in self.stderr.splitlines() if line.startswith("+")]


def mcpx(
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
    cwd: str | Path | None = None,
) -> Run:
    """Run `mcpx ARGS…` to completion."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [*MCPX, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        raise AssertionError(
            f"mcpx {' '.join(args)}\ndid not finish within {timeout:g}s (killed)\n--- stderr\n{stderr[-3000:]}"
        ) from None
    return Run(args, proc.returncode, stdout, stderr, time.monotonic() - started)


def call(*args: str, **kwargs: Any) -> Run:
    return mcpx("call", *args, **kwargs)


def text_of(result: dict[str, Any]) -> str:
    """All text blocks of a tools/call result, joined."""
    return "".join(b["text"] for b in result.get("content", []) if b.get("type") == "text")


# -- processes ---------------------------------------------------------------------------------------------
def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie counts as dead: it only waits to be reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_dead(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


def read_pid(path: Path, timeout: float = 10.0) -> int:
    """The pid a test server wrote (waits for the file)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.02)
    raise AssertionError(f"the server never wrote its pid to {path}")


def kill_quietly(pid: int) -> None:
    """Clean up after a failed test so one failure does not leave a process behind."""
    import signal

    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def recorded(path: Path) -> list[dict[str, Any]]:
    """What a bare test server received (MCPX_TEST_RECORD), one message per line."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_recorded(path: Path, method: str, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for message in recorded(path):
            if message.get("method") == method:
                return message
        time.sleep(0.02)
    raise AssertionError(f"the server never received {method}; it got {recorded(path)}")
