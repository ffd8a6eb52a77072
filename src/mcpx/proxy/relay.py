"""`mcpx proxy`: a stdio MCP server that relays every frame between its host and a real server.

    host ──stdin──▶ proxy ──▶ server          each frame is logged once, as if mcpx were the client:
    host ◀─stdout── proxy ◀── server          host → server `out`, server → host `in`

Frames are relayed as they came, never rewritten: a malformed frame goes on as it is and is flagged in
the log. The session's traffic log is recorded as it happens (`mcpx.record`, secrets masked) and the
session is registered in the sessions folder so `mcpx sessions` and `mcpx inspect --attach` find it.

The proxy's own failures never stop the relay: a recorder that cannot write says so once on stderr and
the frames keep flowing. When one side ends, the other is told as a real peer would tell it: the host
closing our stdin closes the server the way a host does (stdin, then SIGTERM, then SIGKILL to its
group); the server dying ends our stdout and we exit with its code, as the server itself would have.
The server's stderr goes on to ours (hosts show it in their logs).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import orjson

from mcpx.errors import McpxError
from mcpx.proxy.forget import ForgottenEvents
from mcpx.proxy.host import HostEnd, HostSide
from mcpx.proxy.sessions import SessionEntry, register
from mcpx.proxy.upstream import StdioUpstream, Upstream, open_upstream
from mcpx.record.writer import Recorder, start_recording
from mcpx.target import ServerSpec
from mcpx.transports.stdio_server import _streams
from mcpx.wire import Request, TrafficEvent, TrafficLog
from mcpx.wire.controls import escape_controls

Say = Callable[[str], None]
#: what the proxy answers a host's request it could not deliver (a bridge's error, not the server's)
UNDELIVERED = -32000
#: events the proxy's log holds as objects (a live session's log holds 5,000): nothing in the proxy reads
#: an old one back (they are in the recording, `forget.py`), and fewer long-lived objects make the garbage
#: collector's passes short — with 5,000 they were a fifth of the relay's CPU under a pipelining host
KEEP_EVENTS = 512


@dataclass(slots=True)
class ProxyOptions:
    name: str | None = None
    #: the recording's path; None: a new file in the sessions folder
    record: Path | None = None
    record_secrets: bool = False
    sessions: Path | None = None
    stdin: BinaryIO = field(default_factory=lambda: sys.stdin.buffer)
    stdout: BinaryIO = field(default_factory=lambda: sys.stdout.buffer)
    #: (host, port) to serve Streamable HTTP on instead of stdio
    listen: tuple[str, int] | None = None
    #: header names an HTTP host sends that go on to a URL target besides the default ones (forward.py)
    forward_headers: tuple[str, ...] = ()


class Proxy:
    def __init__(self, spec: ServerSpec, options: ProxyOptions, say: Say | None = None) -> None:
        self.spec = spec
        self.options = options
        self._stderr = _StderrRelay()
        clock = time.monotonic
        self.log = TrafficLog(clock, cold=ForgottenEvents(clock()), keep=KEEP_EVENTS)
        self.say: Say = say or self._say
        self.upstream: Upstream = open_upstream(spec, self.log)
        self.host: HostEnd
        #: stdio to stdio: the two ends that relay chunks exactly (None: frame by frame)
        self._exact: tuple[StdioUpstream, HostSide] | None = None
        if options.listen is not None:
            from mcpx.proxy.forward import HeaderFilter
            from mcpx.proxy.listen import HttpHost

            self.host = HttpHost(*options.listen, self.log, HeaderFilter(options.forward_headers))
        else:
            self.host = host = HostSide(options.stdin, options.stdout)
            # a host that stops reading holds the server back, as a pipe would: no unbounded buffer
            host.on_full = self.upstream.hold
            if isinstance(self.upstream, StdioUpstream):  # and a server that stops reading, the host
                self.upstream.on_full = host.hold_input
                # stdio to stdio: bytes go on as read, each chunk whole and at once, framed and logged
                # after (exact line endings, one write per read, nothing re-encoded)
                self._exact = (self.upstream, host)
                self.upstream.relay_exactly(self._to_host)
                host.forward = self._to_server
                host.frames = self._host_frames
        self.recorder: Recorder | None = None
        self.entry: SessionEntry | None = None
        self._server_gone = False
        self._own_failures = 0

    # -- the two directions --------------------------------------------------------------------------
    def from_host(self, line: bytes, headers: Mapping[str, str] | None = None) -> None:
        try:
            self.upstream.relay(line, headers)
        except McpxError:
            self._server_gone = True  # the server's end says so itself; what the host sent is in the log
        except Exception as exc:
            self._failed("relaying a frame from the host", exc)

    def _host_frames(self, lines: list[bytes]) -> None:
        """The frames of a read of the host's, written to the server with it already: logged together."""
        try:
            self.log.frames("out", "stdio", lines)
        except Exception as exc:
            self._failed("logging the host's frames", exc)

    def _to_server(self, data: bytes) -> None:
        if self._server_gone or self._exact is None:
            return
        try:
            self._exact[0].forward(data)
        except McpxError:
            self._server_gone = True
        except Exception as exc:
            self._failed("relaying the host's bytes", exc)

    def _to_host(self, data: bytes) -> None:
        if self._exact is None:
            return
        try:
            self._exact[1].write_raw(data)
        except Exception as exc:
            self._failed("relaying the server's bytes", exc)

    def from_server(self, event: TrafficEvent) -> None:
        if self._exact is not None:  # relayed with its chunk already; the log has it
            return
        try:
            wire = event.facts.get("wire_base64")
            data = _unbase64(wire) if wire else event.raw.encode("utf-8")
            if b"\n" in data:
                # stdio frames are one line; a JSON text's line breaks are whitespace between tokens (a
                # string cannot hold a raw one), so spaces say the same thing
                data = data.replace(b"\r\n", b" ").replace(b"\n", b" ")
                self.log.flag(
                    event, "relayed to the host with its line breaks as spaces (stdio frames are one line)"
                )
            self.host.write(data, event.message)
        except Exception as exc:
            self._failed("relaying a frame from the server", exc)

    def unanswered(self, request: Request, why: str) -> None:
        """A host's request the server could not be asked: the host gets an error answer, as from a
        bridge that lost its server, so it does not wait for ever."""
        frame = orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": request.id,
                "error": {
                    "code": UNDELIVERED,
                    "message": f"mcpx proxy: the server could not be reached: {why}",
                },
            }
        )
        self.log.info(
            f"answered the host's {request.method} (id {request.id!r}) with an error: {why}",
            "protocol",
            event="undelivered",
            id=request.id,
        )
        self.host.write(frame)

    def _say(self, text: str) -> None:
        self._stderr.write("mcpx proxy: " + escape_controls(self.log.secrets.text(text)))

    def _failed(self, doing: str, exc: BaseException) -> None:
        self._own_failures += 1
        if self._own_failures <= 3:
            self.say(f"internal error while {doing} (relaying goes on): {type(exc).__name__}: {exc}")

    def _on_log(self, event: TrafficEvent) -> None:
        if event.channel == "stderr":
            self._stderr.write(event.raw)

    def _recording_failed(self, exc: OSError) -> None:
        self.say(f"the recording stopped ({exc.strerror or exc}); relaying goes on without it")
        with contextlib.suppress(Exception):
            self.log.info(
                f"the recording stopped: {exc.strerror or exc}", "protocol", event="recording-failed"
            )

    # -- the session ---------------------------------------------------------------------------------
    async def run(self) -> int:
        spec, options = self.spec, self.options
        self.entry = register(options.sessions, spec.label, options.name, options.record)
        try:
            self.recorder = start_recording(
                self.entry.recording,
                self.log,
                spec,
                record_secrets=options.record_secrets,
                on_error=self._recording_failed,
            )
        except McpxError as exc:  # an unwritable file: relay anyway, say so
            self.say(str(exc) + "; relaying without a recording")
        self.log.info(
            f"mcpx proxy {self.entry.name!r}: relaying between the host on "
            f"{'HTTP' if options.listen else 'stdio'} and {spec.label}",
            "protocol",
            event="proxy",
            name=self.entry.name,
            pid=os.getpid(),
        )
        unsubscribe = self.log.subscribe(self._on_log)
        code = 1  # until the session ends as it should: a server that cannot start, a crash of ours
        try:
            await self.upstream.start(self.from_server, self.unanswered)
            await self.host.start(self.from_host)
            url = getattr(self.host, "url", None)
            if url:
                legacy = url.removesuffix("/mcp") + "/sse"
                self.say(
                    f"listening on {url} (Streamable HTTP; legacy HTTP+SSE at {legacy}) for {spec.label}"
                )
                self.entry.listen = url
                with contextlib.suppress(OSError):
                    self.entry.save()
            stopped = self._on_signals()
            host_gone = asyncio.ensure_future(self.host.gone.wait())
            told = asyncio.ensure_future(stopped.wait())
            server_ended = asyncio.ensure_future(self.upstream.ended())
            try:
                await asyncio.wait({host_gone, told, server_ended}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                host_gone.cancel()
                told.cancel()
            code = 0
            if stopped.is_set():
                server_ended.cancel()
                self.log.info("the proxy was told to stop: stopping the server", "protocol", event="stopped")
            elif server_ended.done():
                self.log.info(
                    "the server ended: closing the host's connection", "protocol", event="server-ended"
                )
                code = self.upstream.exit_code
            else:
                server_ended.cancel()
                self.log.info(
                    "the host closed the connection: stopping the server", "protocol", event="host-ended"
                )
        except McpxError as exc:  # the server could not start (or be reached): the session says so too
            code = exc.exit_code
            raise
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.upstream.close())
            self.host.close_output()
            unsubscribe()
            self._stderr.flush()
            if self.recorder is not None:
                self.recorder.close()
            self.entry.finish(code)
        return code

    def _on_signals(self) -> asyncio.Event:
        """SIGTERM, SIGINT and SIGHUP are how hosts stop a server: the proxy then stops its own server
        the same gentle way and exits 0, instead of dying in the middle of a frame."""
        stopped = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, stopped.set)
        return stopped


class _StderrRelay:
    """The server's stderr lines, passed on to ours. Written without blocking the relay: a host that
    does not read our stderr must not stall its own frames (lines beyond a bound are dropped)."""

    LIMIT = 1 << 20

    def __init__(self, fd: int = 2) -> None:
        self._fd = fd
        self._pending = bytearray()
        if _streams(fd):  # a pipe of the host's: ours alone to write, so non-blocking is safe (not a tty)
            with contextlib.suppress(OSError):
                os.set_blocking(fd, False)

    def write(self, line: str) -> None:
        if len(self._pending) < self.LIMIT:
            self._pending += line.encode("utf-8", "replace") + b"\n"
        self.flush()

    def flush(self) -> None:
        while self._pending:
            try:
                written = os.write(self._fd, self._pending)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._pending.clear()
                return
            del self._pending[:written]


def _unbase64(text: str) -> bytes:
    import base64

    return base64.b64decode(text)
