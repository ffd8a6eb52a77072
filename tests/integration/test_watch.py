"""`mcpx watch`: a real SDK server in a temporary folder, edited under the watch — restarted, its catalogue
diffed field by field, its collection run again (and again without a restart when only the collection
changed), a broken edit reported with its stderr and the fix picked up, Ctrl-C leaving no server behind.
One watch run walks the whole story (each SDK start costs about a second of CPU)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SERVER = '''\
import os, sys
from mcp.server import MCPServer

server = MCPServer("watched", version="1.0.0")
# outside the watched folder: writing it must not restart the server
with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pids"), "a") as f:
    f.write(f"{os.getpid()}\\n")
print("watched server up", file=sys.stderr, flush=True)


@server.tool()
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)

# more tools

if __name__ == "__main__":
    server.run()
'''
MUL = '''
@server.tool()
def mul(a: int, b: int) -> str:
    """Multiply two numbers."""
    return str(a * b)
'''


COLLECTION = """\
server: ./server.py
tests:
  - name: adds two numbers
    call: add
    arguments: {a: 2, b: 3}
    expect: {isError: false, text: "5"}
  - name: lists the add tool
    method: tools/list
    expect: {json: {"$.tools[*].name": {contains: add}}}
"""


class Watch:
    """`mcpx watch --format json` in a subprocess, read event by event."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcpx", "watch", *args, "--format", "json", "--debounce", "50"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )
        self.seen: list[dict[str, Any]] = []
        self._pending = b""  # read from the pipe, not yet a whole line

    def next(self, kind: str, timeout: float = 30) -> dict[str, Any]:
        """The next event of `kind` (events of other kinds on the way are kept in `seen`).

        Read from the pipe itself, a line at a time out of our own buffer: select() on the pipe and then
        readline() on its buffered reader lost lines (two events arriving in one read, the second waited
        in the reader's buffer while select() waited on an empty pipe: a "hang" of mcpx watch that was
        the test's own, about 1 run in 100 under load)."""
        import selectors

        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                while b"\n" in self._pending:
                    line, self._pending = self._pending.split(b"\n", 1)
                    event = json.loads(line)
                    self.seen.append(event)
                    if event["event"] == kind:
                        return event
                if time.monotonic() >= deadline:
                    break
                if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                    break
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                self._pending += chunk
        self.proc.kill()
        _, err = self.proc.communicate()
        raise AssertionError(f"no {kind!r} event; seen {self.seen}\nstderr: {err[-2000:]}")

    def interrupt(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=20)
        for line in (self._pending.decode() + out).splitlines():
            self.seen.append(json.loads(line))
        return self.proc.returncode, err


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def edit(path: Path, text: str) -> None:
    # a new mtime even on a coarse clock, and a content change the watcher sees
    path.write_text(text)


def test_watch_restarts_diffs_reruns_the_tests_survives_a_broken_edit_and_stops_clean(tmp_path: Path) -> None:
    (tmp_path / "srv").mkdir()
    script = tmp_path / "srv" / "server.py"
    script.write_text(SERVER)
    collection = script.parent / "server.mcpx.yaml"  # beside the script: run without being named
    collection.write_text(COLLECTION)
    watch = Watch(str(script), cwd=tmp_path)
    try:
        watching = watch.next("watching")
        assert watching["paths"] == [str(script.parent.resolve())]  # the script's folder, not the cwd
        first = watch.next("started")
        assert first["cycle"] == 0 and first["catalogue"]["tools"] == 1 and first["diff"] is None
        assert watching["tests"] == str(collection.resolve())
        tests = watch.next("tests")
        assert (tests["cycle"], tests["passed"], tests["failed"]) == (0, 2, 0)
        # the server's stderr is shown as it writes it
        assert {"event": "stderr", "cycle": 0, "line": "watched server up"} in watch.seen

        # a broken edit: the server does not start, its stderr says why, the watch goes on
        edit(script, SERVER.replace("# more tools", "syntax error("))
        changed = watch.next("changed")
        assert changed["paths"] == [str(script.resolve())] and not changed["tests_only"]
        failed = watch.next("failed")
        assert failed["started"] is False and failed["returncode"] == 1
        assert any("SyntaxError" in line for line in failed["stderr"])
        told = [e["line"] for e in watch.seen if e["event"] == "stderr" and e["cycle"] == 1]
        assert any("SyntaxError" in line for line in told), "the traceback came only with the failure"

        # the fix, with a schema change and a new tool: compared with the last listing that worked,
        # field by field
        edit(script, SERVER.replace("b: int) -> str:\n    \"\"\"Add", "b: float) -> str:\n    \"\"\"Add")
             .replace("# more tools", MUL))  # fmt: skip
        fixed = watch.next("started")
        tools = fixed["diff"]["catalogues"]["tools"]
        assert tools["added"] == ["mul"] and tools["removed"] == []
        assert tools["changed"]["add"] == [
            {
                "path": "$.inputSchema.properties.b.type",
                "kind": "changed",
                "before": "integer",
                "after": "number",
            }
        ]
        assert fixed["summary"] == "tools: +1 ~1" and fixed["since_change_seconds"] >= 0
        # the collection ran again on the new server: `add` answers "5.0" now
        tests = watch.next("tests")
        assert (tests["cycle"], tests["passed"], tests["failed"]) == (2, 1, 1)
        assert tests["results"][0]["differences"] == [{"where": "text", "expected": "5", "actual": "5.0"}]

        # an edit to the collection alone: the tests run again on the same server, no restart
        edit(collection, COLLECTION.replace('text: "5"', 'text: "5.0"'))
        assert watch.next("changed")["tests_only"] is True
        tests = watch.next("tests")
        assert (tests["cycle"], tests["passed"], tests["failed"]) == (2, 2, 0)
    finally:
        code, err = watch.interrupt()
    assert code == 0, err
    assert watch.seen[-1] == {"event": "stopped", "starts": 3}
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert len(pids) == 2  # the broken edit never got as far as writing its pid
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if alive(pid)], "a server outlived the watch"
