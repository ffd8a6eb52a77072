"""Start the suite's SDK servers without paying for the SDK's import each time.

Importing the official Python SDK costs ~1.3 s of CPU per process (pydantic builds every protocol model
at import), and the suite starts an SDK server a few hundred times: that import was a large share of
the whole run. A zygote (this file run as a script, one per pytest process) imports the SDK once; an SDK
server script calls `hand_off()` first thing, which gives the zygote its argv, cwd, environment and its
stdin/stdout/stderr (SCM_RIGHTS) and the zygote forks a child that runs the script there. The child is
the same SDK code on the same pipes; what mcpx sees is the process it started (the stub), which

- forwards SIGTERM/SIGINT/SIGHUP to the child and exits with the child's status (or its signal);
- holds none of the pipes after the hand-off, so end-of-file and closing are the child's alone;
- takes the child down with it: when the stub dies (even SIGKILL) the zygote kills the child.

Anything unusual gets the plain path: no zygote in the environment (`MCPX_TEST_SDK_ZYGOTE`), a test
that watches the server's own pid (`MCPX_TEST_PIDFILE`), or a zygote that does not answer.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import sys

ENV = "MCPX_TEST_SDK_ZYGOTE"
#: what the SDK servers under tests/servers import (the expensive part is common to all of them)
PRELOAD = (
    "anyio",
    "pydantic",
    "mcp_types",
    "mcp.types",
    "mcp.server",
    "mcp.server.mcpserver",
    "mcp.server.mcpserver.exceptions",
    "mcp.server.lowlevel",
    "mcp.server.stdio",
)


# -- the stub's side ---------------------------------------------------------------------------------
def hand_off() -> None:
    """Run this script in a child of the zygote, if there is one, and exit as that child exits."""
    path = os.environ.get(ENV)
    if not path or os.environ.get("MCPX_TEST_PIDFILE"):
        return
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        request = {"argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ), "path": sys.path[0]}
        body = json.dumps(request).encode()
        socket.send_fds(conn, [struct.pack("!I", len(body)) + body], [0, 1, 2])
        pid = int(_line(conn))
    except (OSError, ValueError):
        conn.close()
        return  # import the SDK here, as if there were no zygote
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: _forward(pid, number))
    # the child has the pipes now: our copies would keep mcpx from seeing its end of file
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        status = _line(conn)
    except (OSError, ValueError):
        status = "exit 1"
    kind, _, number = status.partition(" ")
    if kind == "signal":
        signal.signal(int(number), signal.SIG_DFL)
        os.kill(os.getpid(), int(number))
    os._exit(int(number) if number.lstrip("-").isdigit() else 1)


def _forward(pid: int, number: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, number)


def _line(conn: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(64)
        if not chunk:
            raise ValueError("the zygote went away")
        data += chunk
    return data.decode().strip()


# -- the zygote --------------------------------------------------------------------------------------
def serve(path: str) -> None:
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_r, wake_w = socket.socketpair()
    wake_r.setblocking(False)
    wake_w.setblocking(False)
    signal.set_wakeup_fd(wake_w.fileno())
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a Python handler, so the wakeup fd is written
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_r, selectors.EVENT_READ, "wake")
    children: dict[int, socket.socket] = {}  # pid -> its stub's connection
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while os.getppid() == parent:
        for key, _ in selector.select(timeout=1.0):
            if key.data == "accept":
                conn, _ = listener.accept()
                try:
                    pid = _spawn(conn, [listener, wake_r, wake_w, *children.values()])
                except Exception:
                    conn.close()
                    continue
                children[pid] = conn
                selector.register(conn, selectors.EVENT_READ, pid)
                conn.sendall(f"{pid}\n".encode())
            elif key.data == "wake":
                while True:
                    try:
                        if not wake_r.recv(512):
                            break
                    except BlockingIOError:
                        break
                _reap(children, selector)
            else:  # a stub's connection: it only ends when the stub dies
                if not key.fileobj.recv(64):  # type: ignore[union-attr]
                    _forward(key.data, signal.SIGKILL)
                    selector.unregister(key.fileobj)
        _reap(children, selector)
    for pid in children:
        _forward(pid, signal.SIGKILL)


def _reap(children: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is None:
            continue
        word = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
        with contextlib.suppress(OSError):
            conn.sendall(f"{word}\n".encode())
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(conn)
        conn.close()


def _spawn(conn: socket.socket, inherited: list[socket.socket]) -> int:
    head, fds, _, _ = socket.recv_fds(conn, 4, 3)
    (size,) = struct.unpack("!I", head)
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise ValueError("the stub went away")
        body += chunk
    request = json.loads(body)
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid
    # the child: a fresh server process in all but the import
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for sock in (*inherited, conn):
            sock.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = request["argv"]
        # the script calls hand_off() again when it runs here: in the child that is a no-op
        import types

        itself = types.ModuleType("sdk_zygote")
        itself.hand_off = lambda: None  # type: ignore[attr-defined]
        sys.modules["sdk_zygote"] = itself
        sys.path[0] = request["path"]
        unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False, buffering=1 if unbuffered else -1)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)  # noqa: SIM115
        import runpy

        code: object = 0
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
        except SystemExit as stop:
            code = stop.code
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        if code is None:
            os._exit(0)
        if isinstance(code, int):
            os._exit(code & 0xFF)
        print(code, file=sys.stderr, flush=True)
        os._exit(1)
    finally:
        os._exit(1)


if __name__ == "__main__":
    serve(sys.argv[1])
