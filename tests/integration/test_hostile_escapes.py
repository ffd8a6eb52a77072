"""Terminal-escape injection (tests/servers/escapes.py): server text reaches a terminal only escaped.

Output is captured as bytes (text mode would turn a lone CR into a newline and hide the spoof). Human-readable
output must hold no control character but newline and tab; JSON output and recordings keep the exact text.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from call_harness import MCPX, server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "servers"))
NASTY = "\x1b]52;c;aGk=\x07\x1b]0;pwned\x07\x1b[2J\x07\x9b31m\u202eevil\rok ✓ all checks passed"
# what a terminal would act on: C0 but tab/newline, lone CR, DEL, C1, bidi overrides
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")
SERVER = server("escapes.py")


def run(*args: str, timeout: float = 30) -> tuple[int, str, str]:
    proc = subprocess.run(
        [*MCPX, *args], stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, env=dict(os.environ)
    )
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def assert_clean(*streams: str) -> None:
    for stream in streams:
        found = CONTROL.search(stream)
        assert found is None, f"{found.group()!r} reached the terminal in:\n{stream!r}"


def test_call_with_traffic_escapes_stderr_names_descriptions_and_results() -> None:
    code, out, err = run("call", SERVER, "--method", "tools/call", "--tool-name", "shout", "--traffic")
    assert code == 0, err
    assert_clean(out, err)
    # visible, not dropped: the reader sees what the server tried
    # (the text format prints the tool's text, every control in it escaped by mcpx)
    assert "\\x1b]52;c;aGk=\\x07" in out and "\\r" in out and "\\x9b" in out and "\\u202e" in out
    assert "stderr| booting \\x1b]52;c;aGk=" in err
    assert "escapes \\x1b]52" in err  # serverInfo.name in the initialize result frame


def test_call_json_output_and_recordings_keep_the_exact_text(tmp_path: Path) -> None:
    recording = tmp_path / "r.mcpx.jsonl"
    args = ("--method", "tools/call", "--tool-name", "shout", "--format", "json", "--record", str(recording))
    code, out, err = run("call", SERVER, *args)
    assert code == 0, err
    assert json.loads(out)["result"]["content"][0]["text"] == NASTY
    events = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    assert any(strings(event) & {f"shouting {NASTY}", f"booting {NASTY}"} for event in events)


def strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def test_tools_list_text_output_escapes_a_description() -> None:
    code, out, err = run("call", SERVER, "--method", "tools/list")
    assert code == 0, err
    assert_clean(out, err)
    assert "Shouts \\u001b]52" in out and "\\x9b31m" in out


def test_error_line_escapes_the_stderr_tail_and_its_json_keeps_the_value() -> None:
    code, out, err = run("call", SERVER, "--method", "tools/call", "--tool-name", "die")
    assert code == 4, err
    assert_clean(out, err)
    assert "dying \\x1b]52" in err
    error = json.loads(err.strip().splitlines()[-1])["error"]
    assert f"dying {NASTY}" in error["stderr_tail"]


@pytest.mark.parametrize("command", ["doctor", "check"])
def test_doctor_and_check_escape_what_they_quote(command: str) -> None:
    code, out, err = run(command, SERVER, "--protocol-era", "legacy", timeout=60)
    assert code in (0, 6), out + err
    assert_clean(out, err)
    assert "escapes \\x1b]52" in out  # the server's name, as it said it


def test_ls_escapes_names_reasons_and_stderr(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    entry = {"command": sys.executable, "args": [SERVER]}
    dying = {"command": sys.executable, "args": [SERVER, "start"]}
    config.write_text(json.dumps({"mcpServers": {"evil\x1b[2Jname": entry, "dies": dying}}))
    code, out, err = run("ls", "--config", str(config), "--protocol-era", "legacy")
    assert code == 4, out + err
    assert_clean(out, err)
    assert "evil\\x1b[2Jname" in out
    assert "dying \\x1b]52" in out  # the stderr tail of the server that died


def test_the_tui_writes_no_server_control_to_the_terminal() -> None:
    """Under a real pty: the TUI shows the server's name, stderr, tool and result text, and nothing of
    what they hold reaches the terminal as a command (ESC sequences, C1, bidi overrides)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
    proc = subprocess.Popen(
        [*MCPX, "inspect", "--", sys.executable, SERVER], stdin=slave, stdout=slave, stderr=slave,
        env={**os.environ, "TERM": "xterm-256color"}, start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen = bytearray()
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline and b"shout" not in seen:  # the tool list is on screen
            if select.select([master], [], [], 0.2)[0]:
                seen += os.read(master, 1 << 16)
        time.sleep(0.5)
        while select.select([master], [], [], 0.2)[0]:
            seen += os.read(master, 1 << 16)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # how it exits is test_tui_signals' business, not this test's
            proc.kill()
            proc.wait()
        os.close(master)
    assert b"shout" in seen, bytes(seen[-500:])
    text = seen.decode("utf-8", "replace")
    for raw in ("\x1b]52;c;aGk=", "\x1b]0;pwned", "\x1b[2J", "\x9b", "\u202e"):
        assert raw not in text, f"{raw!r} reached the terminal"
