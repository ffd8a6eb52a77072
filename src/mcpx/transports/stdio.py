"""stdio: the server is a child process speaking newline-delimited JSON on stdin/stdout.

The child runs in its own process group so closing it takes every grandchild along (`npx` → `node`).
Closing is: close stdin → wait → SIGTERM the group → wait → SIGKILL the group. A registry of live groups
is killed at interpreter exit, and if mcpx itself dies abruptly a sentinel process takes the server's whole
group down (sentinel.py), so no server outlives mcpx.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import shlex
import signal
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence

from mcpx.errors import ConnectError, ServerExitedError
from mcpx.transports import descendants
from mcpx.transports.line_reader import LineReader, Sink, Tap
from mcpx.transports.sentinel import Sentinel
from mcpx.wire import Message, TrafficEvent, TrafficLog
from mcpx.wire.waiting import ended, within

# One frame may be very large (a 50 MB result is a single line); the reader buffers it whole.
LINE_LIMIT = 1 << 30
_LIVE_GROUPS: set[int] = set()
#: the environment marks of live servers (descendants.py): what left their group is found by these
_LIVE_MARKS: set[str] = set()


def _kill_live_groups() -> None:
    for pgid in list(_LIVE_GROUPS):
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    _LIVE_GROUPS.clear()
    for mark in list(_LIVE_MARKS):
        descendants.signal_all(descendants.marked(mark))
    _LIVE_MARKS.clear()


atexit.register(_kill_live_groups)


#: bytes asked of the stdout pipe per read on asyncio (see start())
READ_CHUNK = 1 << 16
#: seconds to let a dead server's last stdout lines arrive before its leftover group is killed
EXIT_DRAIN = 0.5


class _ExitProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's stream protocol for the server, and a future done at the server's exit: on asyncio's own
    loop `Process.wait()` returns only once the child's pipes close too, which never comes while a
    grandchild holds stderr (uvloop returns at the exit), and a dead server must be seen at once."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


class StdioTransport:
    """Spawn `command` and talk to it over its stdin/stdout; capture stderr line by line."""

    name = "stdio"

    def __init__(
        self,
        command: Sequence[str],
        *,
        traffic: TrafficLog,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        inherit_env: bool = True,
        grace: float = 2.0,
        stderr_tail: int = 40,
    ) -> None:
        if not command:
            raise ConnectError("no command to start the server with")
        self.command = list(command)
        self.traffic = traffic
        self.env = dict(env or {})
        self.cwd = cwd
        self.inherit_env = inherit_env
        self.grace = grace
        self.process: asyncio.subprocess.Process | None = None
        #: the server's stdin as the loop's pipe transport, written to directly (StreamWriter.write only
        #: passes the bytes on, and its `.transport` is a property to call on every frame)
        self._stdin_pipe: asyncio.WriteTransport | None = None
        self.returncode: int | None = None
        self.stderr_tail: deque[str] = deque(maxlen=stderr_tail)
        self._stderr_task: asyncio.Task[None] | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self._sentinel: Sentinel | None = None
        self._exited: asyncio.Future[None] | None = None
        self._closing = False
        self._exit_logged = False
        self._sink: Sink | None = None
        self._tap: Tap | None = None
        self._stdout: LineReader | None = None
        self._mark = ""

    # -- lifecycle -----------------------------------------------------------------------------------
    async def start(self) -> None:
        """Spawn the server (again, after a close: a new process)."""
        self.returncode = None
        self._closing = False
        self._exit_logged = False
        self._stdout = None
        self.stderr_tail.clear()
        env = {**os.environ, **self.env} if self.inherit_env else dict(self.env)
        # every descendant inherits the mark, even one that leaves the group with setsid()
        self._mark = descendants.new_mark()
        env[descendants.ENV_MARK] = self._mark
        cmdline = shlex.join(self.command)
        # stdout is a pipe of our own, read by a protocol (line_reader.py says why), not a stream
        stdout_r, stdout_w = os.pipe()
        # the orphan guard first: mcpx killed right after the spawn still leaves nothing (sentinel.py)
        self._sentinel = await Sentinel.start(self._mark)
        spawned = False
        try:
            loop = asyncio.get_running_loop()
            transport, protocol = await loop.subprocess_exec(
                lambda: _ExitProtocol(LINE_LIMIT, loop),
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=stdout_w,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=self.cwd,
                start_new_session=True,
            )
            self.process = asyncio.subprocess.Process(transport, protocol, loop)
            self._stdin_pipe = transport.get_pipe_transport(0)  # type: ignore[assignment]
            self._exited = protocol.exited
            spawned = True
        except FileNotFoundError as exc:
            missing = exc.filename or self.command[0]
            if self.cwd and not os.path.isdir(self.cwd):  # noqa: ASYNC240 - once, on a failed start
                raise ConnectError(f"the working directory {self.cwd!r} does not exist") from None
            raise ConnectError(f"cannot start the server: {missing!r} was not found") from None
        except PermissionError:
            raise ConnectError(f"cannot start the server: {self.command[0]!r} is not executable") from None
        except OSError as exc:
            raise ConnectError(f"cannot start the server ({cmdline}): {exc.strerror or exc}") from None
        finally:
            os.close(stdout_w)  # the child has its copy; ours would keep the pipe from ever ending
            if not spawned:
                os.close(stdout_r)
                await self._stop_sentinel()
        if self._sentinel is not None:
            self._sentinel.guard(self.process.pid)
        _LIVE_GROUPS.add(self.process.pid)
        _LIVE_MARKS.add(self._mark)
        self.traffic.info(
            f"spawned {cmdline} (pid {self.process.pid})",
            "process",
            event="spawned",
            pid=self.process.pid,
            command=self.command,
            cwd=self.cwd or os.getcwd(),
            env_keys=sorted(self.env),
        )
        self._stdout = reader = LineReader(self.traffic, "stdio", LINE_LIMIT, self._sink)
        reader.tap = self._tap
        reader.exact = self._tap is not None
        pipe = os.fdopen(stdout_r, "rb", buffering=0)  # the read transport owns and closes it
        pipe_transport, _ = await asyncio.get_running_loop().connect_read_pipe(lambda: reader, pipe)
        if hasattr(pipe_transport, "max_size"):
            # asyncio reads into a fresh bytes object of max_size (256 KiB) each time: above malloc's mmap
            # threshold, that is mmap + mremap + munmap per frame; 64 KiB stays on the heap (uvloop has a
            # buffer of its own and no such attribute)
            pipe_transport.max_size = READ_CHUNK
        self._stderr_task = asyncio.create_task(self._read_stderr(), name="mcpx-stdio-stderr")
        self._watch_task = asyncio.create_task(self._watch_exit(), name="mcpx-stdio-exit")

    async def _stop_sentinel(self) -> None:
        sentinel, self._sentinel = self._sentinel, None
        if sentinel is not None:
            await sentinel.stop(timeout=self.grace)

    async def _watch_exit(self) -> None:
        """A dead server whose grandchild still holds stdout would never reach EOF: end it here."""
        assert self._exited is not None
        await asyncio.shield(self._exited)
        await asyncio.sleep(EXIT_DRAIN)
        if not self._stdout_eof and not self._closing:
            self.traffic.info(
                "the server exited but something it started still holds its output; "
                "stopping its process group",
                "process",
            )
            self._signal_group(signal.SIGKILL, running=True)
            self._stop_escaped(signal.SIGKILL)

    @property
    def _stdout_eof(self) -> bool:
        return self._stdout is not None and self._stdout.eof

    def describe(self) -> dict[str, object]:
        return {
            "transport": "stdio",
            "command": shlex.join(self.command),
            "pid": self.process.pid if self.process else None,
            "cwd": self.cwd or os.getcwd(),
            "returncode": self.returncode,
        }

    async def send(self, text: str, message: Message) -> TrafficEvent:
        process, pipe = self.process, self._stdin_pipe
        if process is None or process.stdin is None or pipe is None:
            raise ConnectError("the server is not running")
        event = self.traffic.sent(text, message, "stdio")
        try:
            pipe.write(text.encode("utf-8") + b"\n")
            # draining on every frame costs a context switch; only wait when the pipe backs up
            if pipe.get_write_buffer_size() > 1 << 16:
                await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            await self._wait_exit(timeout=self.grace)
            raise self.ended_error(f"sending {getattr(message, 'method', 'a message')}") from None
        return event

    def send_bytes(self, line: bytes) -> TrafficEvent:
        """Write one frame given as bytes, exactly (a proxy relaying a host's frame: no decode-and-encode
        round trip that could change it), and log it. Raises `ConnectError` once the server's stdin is
        gone; never waits (the caller relays from a read callback)."""
        process = self.process
        if process is None or process.stdin is None or process.stdin.is_closing():
            raise ConnectError("the server is not running")
        event = self.traffic.sent_raw(line, "stdio")
        try:
            process.stdin.write(line + b"\n")
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            raise ConnectError("the server closed its input") from None
        return event

    def write_raw(self, data: bytes) -> None:
        """Write bytes to the server's stdin as they are, logging nothing (a relay forwarding a chunk of
        its host's; it logs the frames itself). Raises `ConnectError` once the server's stdin is gone."""
        process = self.process
        if process is None or process.stdin is None or process.stdin.is_closing():
            raise ConnectError("the server is not running")
        try:
            process.stdin.write(data)
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            raise ConnectError("the server closed its input") from None

    def relay_output(self, tap: Tap | None) -> None:
        """Hand each chunk of the server's stdout to `tap` as it is read, before it is framed and logged
        (a relay forwarding it byte for byte); frames are then logged with their `\\r` kept. Set before
        `start()`."""
        self._tap = tap

    def input_backlog(self) -> int:
        """Bytes written to the server's stdin that it has not read yet (what the pipe could not take)."""
        process = self.process
        if process is None or process.stdin is None or process.stdin.is_closing():
            return 0
        return int(process.stdin.transport.get_write_buffer_size())

    async def input_drained(self) -> None:
        """Until the server has read what was written to it (or its stdin is gone)."""
        process = self.process
        if process is not None and process.stdin is not None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
                await process.stdin.drain()

    def hold_output(self, held: bool) -> None:
        """Stop reading the server's stdout for now (or go on): a relay whose reader has fallen behind."""
        if self._stdout is not None:
            self._stdout.hold(held)

    def receive_with(self, sink: Sink | None) -> None:
        """Hand each received event to `sink` in the read callback itself (see `PushReceiving`)."""
        self._sink = sink
        if self._stdout is not None:
            self._stdout.use_sink(sink)

    async def __aiter__(self) -> AsyncIterator[TrafficEvent]:
        reader = self._stdout
        assert reader is not None, "start() first"
        while True:
            while reader.queue:
                yield reader.popleft()
            if reader.eof or reader.error is not None:
                break
            await reader.wait()
        if reader.error is not None:
            raise reader.error
        await self._wait_exit(timeout=self.grace if not self._closing else 0.0)

    async def close(self) -> None:
        process = self.process
        if process is None:
            return
        self._closing = True
        # while the server lives its tree leads to every descendant, even one that cleared its environment
        tree = descendants.descendants(process.pid) if descendants.can_track() else set()
        if process.returncode is None:
            if process.stdin is not None and not process.stdin.is_closing():
                with contextlib.suppress(Exception):
                    process.stdin.close()
            if not await self._wait_exit(timeout=self.grace):
                self._signal_group(signal.SIGTERM)
                if not await self._wait_exit(timeout=self.grace):
                    self._signal_group(signal.SIGKILL)
                    await self._wait_exit(timeout=self.grace)
        # the leader is gone; take down anything it left in its group, and whatever left the group
        self._signal_group(signal.SIGTERM)
        await self._stop_escaped_gracefully(tree)
        _LIVE_GROUPS.discard(process.pid)
        _LIVE_MARKS.discard(self._mark)
        await self._stop_sentinel()
        if self._stdout is not None:
            # what the group wrote before it went is still in the pipe: read it out, then let go
            with contextlib.suppress(asyncio.TimeoutError):
                await within(self._stdout.wait_eof(), timeout=EXIT_DRAIN)
            self._stdout.close()
        if self._watch_task is not None:
            self._watch_task.cancel()
        if self._stderr_task is not None:
            await ended(self._stderr_task, 0.5)
            self._stderr_task.cancel()
        self._log_exit()

    # -- helpers -------------------------------------------------------------------------------------
    def _stop_escaped(self, sig: int, also: set[int] | frozenset[int] = frozenset()) -> set[int]:
        """Signal the descendants outside the server's process group (setsid); returns those reached."""
        if not descendants.can_track() or self.process is None:
            return set()
        pids = descendants.marked(self._mark) | set(also)
        pids = {pid for pid in pids if _group_of(pid) != self.process.pid}
        return descendants.signal_all(pids, sig)

    async def _stop_escaped_gracefully(self, tree: set[int]) -> None:
        reached = self._stop_escaped(signal.SIGTERM, tree)
        if not reached:
            return
        self.traffic.info(
            f"stopped {len(reached)} process(es) the server started outside its process group "
            f"(pid {', '.join(map(str, sorted(reached)))})",
            "process",
            event="escaped-descendants",
            pids=sorted(reached),
        )
        for _ in range(10):  # up to half a second for SIGTERM, then SIGKILL
            await asyncio.sleep(0.05)
            if not self._stop_escaped(0, tree):
                return
        self._stop_escaped(signal.SIGKILL, tree)

    def _signal_group(self, sig: signal.Signals, running: bool | None = None) -> None:
        assert self.process is not None
        running = self.process.returncode is None if running is None else running
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        if running:
            self.traffic.info(f"sent {sig.name} to the server's process group", "process", signal=sig.name)

    async def _wait_exit(self, timeout: float) -> bool:
        process = self.process
        assert process is not None
        if process.returncode is None:
            assert self._exited is not None
            try:
                await within(asyncio.shield(self._exited), timeout=timeout)
            except asyncio.TimeoutError:
                return False
        self.returncode = process.returncode
        # let stderr drain so the tail includes the server's last words
        if self._stderr_task is not None and not self._stderr_task.done():
            await ended(self._stderr_task, 0.5)
        self._log_exit()
        return True

    def _log_exit(self) -> None:
        process = self.process
        if self._exit_logged or process is None or process.returncode is None:
            return
        self._exit_logged = True
        self.returncode = code = process.returncode
        # stays in _LIVE_GROUPS until close(): grandchildren may outlive the leader

        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
        self.traffic.info(f"server {how}", "process", event="exited", returncode=code, expected=self._closing)

    async def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        stderr = self.process.stderr
        while True:
            try:
                line = await stderr.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial
                if not line:
                    return
            except asyncio.LimitOverrunError:
                line = await stderr.read(LINE_LIMIT)
            text = line.rstrip(b"\r\n").decode("utf-8", errors="replace")
            self.stderr_tail.append(text)
            self.traffic.stderr(text)

    def ended_error(self, doing: str) -> ServerExitedError:
        code = self.returncode
        tail = list(self.stderr_tail)[-10:]
        if code is None:
            what = "the server closed its output"
        elif code < 0:
            what = f"the server was killed by {signal.Signals(-code).name}"
        else:
            what = f"the server exited with code {code}"
        message = f"{what} while {doing}" if doing else what
        if tail:
            message += "; last stderr lines:\n" + "\n".join(tail)
        return ServerExitedError(message, returncode=code, stderr_tail=tail)


def _group_of(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None
