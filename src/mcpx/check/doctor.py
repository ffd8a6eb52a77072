"""`mcpx doctor`: walk the connection one step at a time and stop at the first step that fails.

Each step says what was expected, what came back and the likely fix, with its timing. The steps for a
command: found → spawned → stdout carries only JSON-RPC → stays alive → answers the era probe or the
handshake in time → a version mcpx speaks → capabilities consistent with what it then does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from mcpx.errors import (
    AuthRequiredError,
    ConnectError,
    McpxError,
    ProtocolError,
    RequestTimeoutError,
    RpcError,
    ServerExitedError,
    UnsupportedVersionError,
)
from mcpx.protocol.client import Client
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.session import open_session
from mcpx.protocol.versions import ALL_VERSIONS
from mcpx.target import ServerSpec
from mcpx.wire import Malformed, TrafficEvent, TrafficLog
from mcpx.wire.waiting import within

Status = Literal["ok", "fail", "warn", "skip"]


@dataclass(slots=True)
class Step:
    name: str
    status: Status
    took: float = 0.0
    detail: str = ""
    expected: str = ""
    got: str = ""
    hint: str = ""
    #: milliseconds per phase (DNS, connect, TLS handshake, first byte) for the network steps
    timings: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class Report:
    target: str
    steps: list[Step] = field(default_factory=list)
    exit_code: int = 0

    @property
    def failed(self) -> Step | None:
        return next((step for step in self.steps if step.status == "fail"), None)

    @property
    def verdict(self) -> str:
        failed = self.failed
        if failed is None:
            return "the server connects and answers as it should"
        said = (failed.got or failed.detail).split("\n")[0]
        return f"{failed.name}: {said}" + (f" — {failed.hint}" if failed.hint else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "ok": self.failed is None,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "steps": [asdict(step) for step in self.steps],
        }


class _Stop(Exception):
    """The walk ends at a failed step."""


class CommandDoctor:
    """The walk for a stdio server."""

    def __init__(self, spec: ServerSpec, options: SessionOptions, *, settle: float = 0.3) -> None:
        self.spec = spec
        self.options = options
        self.timeout = options.timeout or 10.0
        self.settle = settle
        self.report = Report(spec.label)
        self.traffic = TrafficLog()

    def _fail(self, step: Step) -> _Stop:
        self.report.steps.append(step)
        return _Stop()

    def _add(self, step: Step) -> Step:
        self.report.steps.append(step)
        if step.status == "fail":
            raise _Stop
        return step

    async def _timed(self, name: str, work: Callable[[], Awaitable[Step]]) -> Step:
        started = time.monotonic()
        step = await work()
        step.took = time.monotonic() - started
        step.name = step.name or name
        return self._add(step)

    async def run(self) -> Report:
        try:
            self._found()
            client = open_session(self.spec, self.options, traffic=self.traffic)
            try:
                await self._walk(client)
            finally:
                with contextlib.suppress(McpxError, OSError):
                    await client.close()
        except _Stop:
            pass
        return self.report

    async def _walk(self, client: Client) -> None:
        await self._timed("spawned", lambda: self._spawn(client))
        await self._timed("answers in time", lambda: self._connect(client))
        self._stdout_clean()
        self._version(client)
        await self._timed("capabilities match behaviour", lambda: self._capabilities(client))
        self._stdout_clean(final=True)

    # -- the steps -----------------------------------------------------------------------------------
    def _found(self) -> None:
        program = self.spec.command[0]  # type: ignore[index]
        where = shutil.which(program, path=os.environ.get("PATH")) if os.sep not in program else program
        if where is None or not os.path.exists(where):
            self.report.exit_code = 4
            raise self._fail(
                Step(
                    "command found",
                    "fail",
                    expected=f"{program!r} on PATH or as a path",
                    got="not found",
                    hint="install it, or give the full path; PATH is " + os.environ.get("PATH", "(unset)"),
                )
            )
        if not os.access(where, os.X_OK):
            self.report.exit_code = 4
            self._add(
                Step("command found", "fail", got=f"{where} is not executable", hint=f"chmod +x {where}")
            )
        self._add(Step("command found", "ok", detail=where))

    async def _spawn(self, client: Client) -> Step:
        try:
            await client.start()
        except ConnectError as exc:
            self.report.exit_code = exc.exit_code
            return Step(
                "spawned", "fail", got=exc.message, hint="check the command line and the working directory"
            )
        await asyncio.sleep(self.settle)  # a server that dies at start-up does so now
        if client.session.is_closed:
            error = client.session.ended_error("starting")
            self.report.exit_code = 4
            return Step(
                "stays alive",
                "fail",
                expected="the server keeps running and waits for requests on stdin",
                got=error.message,
                hint="run the command by hand to see why it exits; a missing argument or environment "
                "variable is the usual cause",
            )
        pid = client.session.describe().get("pid")
        return Step("spawned", "ok", detail=f"pid {pid}, alive after {self.settle:g} s")

    async def _connect(self, client: Client) -> Step:
        try:
            opened = await client.open()
        except RequestTimeoutError:
            self.report.exit_code = 4
            junk = self._junk()
            return Step(
                "answers in time",
                "fail",
                expected=f"an answer to initialize or server/discover within {self.timeout:g} s",
                got="no answer" + (f"; stdout carried non-JSON-RPC: {junk[0]}" if junk else ""),
                hint="the server must read newline-delimited JSON-RPC on stdin and answer on stdout; check "
                "that it is not waiting for something else (a port, a prompt) and that it flushes stdout",
            )
        except ServerExitedError as exc:
            self.report.exit_code = 4
            return Step(
                "stays alive",
                "fail",
                expected="the server keeps running through the handshake",
                got=exc.message,
                hint="its stderr above says why it stopped",
            )
        except UnsupportedVersionError as exc:
            self.report.exit_code = 1
            return Step("protocol version", "fail", got=exc.message, hint="upgrade mcpx or the server's SDK")
        except (RpcError, ProtocolError) as exc:
            self.report.exit_code = 1
            return Step("answers in time", "fail", got=exc.message, hint="the handshake was refused")
        client.opened = opened
        first = "initialize" if opened.era == "legacy" else "server/discover"
        return Step("answers in time", "ok", detail=f"{first} answered ({opened.era} era)")

    def _junk(self) -> list[str]:
        lines = []
        for event in self.traffic:
            if event.direction == "in" and event.channel == "stdio" and isinstance(event.message, Malformed):
                lines.append(f"line {self._stdout_index(event)}: {event.raw[:120]!r}")
        return lines

    def _stdout_index(self, event: TrafficEvent) -> int:
        return 1 + sum(
            1 for e in self.traffic.since(0)[: event.seq] if e.direction == "in" and e.channel == "stdio"
        )

    def _stdout_clean(self, final: bool = False) -> None:
        junk = self._junk()
        if junk:
            self.report.exit_code = 1
            self._add(
                Step(
                    "stdout carries only JSON-RPC",
                    "fail",
                    expected="only JSON-RPC messages on stdout, one per line",
                    got=f"{len(junk)} other line(s), first {junk[0]}",
                    hint="write banners and logs to stderr (print(..., file=sys.stderr), console.error, "
                    "logging to stderr); stdout belongs to the protocol",
                )
            )
        elif not final:
            self._add(Step("stdout carries only JSON-RPC", "ok"))

    def _version(self, client: Client) -> None:
        opened = client.opened
        assert opened is not None
        status: Status = "ok" if opened.protocol_version in ALL_VERSIONS else "fail"
        name = opened.server_info.name or "(no name)"
        self._add(Step("protocol version", status, detail=f"{opened.protocol_version}, server {name}"))

    async def _capabilities(self, client: Client) -> Step:
        capabilities = client.server_capabilities
        findings: list[str] = []
        warnings: list[str] = []
        for capability, method, key in (
            ("tools", "tools/list", "tools"),
            ("resources", "resources/list", "resources"),
            ("prompts", "prompts/list", "prompts"),
        ):
            advertised = capability in capabilities
            try:
                result = await client.list_all(method, key)
                count = len(result.get(key) or [])
                if advertised:
                    findings.append(f"{count} {key}")
                else:
                    warnings.append(f"{method} works but the {capability} capability is not advertised")
            except RpcError as exc:
                if advertised:
                    self.report.exit_code = 1
                    return Step(
                        "capabilities match behaviour",
                        "fail",
                        expected=f"{method} to work, since the server advertises {capability}",
                        got=exc.message,
                        hint=f"implement {method} or stop advertising the {capability} capability",
                    )
            except McpxError as exc:
                self.report.exit_code = exc.exit_code
                return Step("capabilities match behaviour", "fail", got=exc.message)
        if warnings:
            return Step(
                "capabilities match behaviour", "warn", detail="; ".join(findings), got="; ".join(warnings)
            )
        return Step(
            "capabilities match behaviour", "ok", detail=", ".join(findings) or "no catalogues advertised"
        )


class UrlDoctor(CommandDoctor):
    """The walk for a remote server: address → DNS → TCP connect → TLS (https) → the first HTTP answer
    (timed by httpx's trace hooks; a 401 leads to authorization discovery) → answers (transport and era)
    → version → capabilities."""

    async def run(self) -> Report:
        from mcpx.check import doctor_net

        try:
            host, port = self._address()
            self.report.exit_code = 4
            await self._timed("DNS", lambda: doctor_net.resolve(host, port, self.timeout))
            await self._timed("TCP connect", lambda: self._reach(host, port))
            self.report.exit_code = 4
            if (self.spec.url or "").startswith("https:"):
                await self._timed("TLS", lambda: doctor_net.tls(host, port, self.timeout))
            await self._http_answer()
            client = open_session(self.spec, self.options, traffic=self.traffic)
            try:
                await self._timed("answers in time", lambda: self._answer(client))
                self._version(client)
                await self._timed("capabilities match behaviour", lambda: self._capabilities(client))
            finally:
                with contextlib.suppress(McpxError, OSError):
                    await client.close()
        except _Stop:
            pass
        return self.report

    async def _http_answer(self) -> None:
        from mcpx.check import doctor_net
        from mcpx.transports.http_common import client_for

        url = self.spec.url or ""
        self.report.exit_code = 4
        http = client_for(url, self.traffic, secret_headers=self.spec.secret_headers)
        http.timeout = httpx_timeout(self.timeout)
        try:
            started = time.monotonic()
            step, response = await doctor_net.first_answer(http, url, dict(self.spec.headers))
            step.took = time.monotonic() - started
            if step.status == "fail":
                raise self._fail(step)
            self._add(step)
            if response is not None and response.status_code == 401:
                self.report.exit_code = 3
                started = time.monotonic()
                auth = await doctor_net.authorization(url, response, self.timeout)
                auth.took = time.monotonic() - started
                raise self._fail(auth)
        finally:
            await http.aclose()
        self.report.exit_code = 0

    def _address(self) -> tuple[str, int]:
        url = urlsplit(self.spec.url or "")
        if url.scheme not in ("http", "https") or not url.hostname:
            self.report.exit_code = 1
            raise self._fail(Step("URL", "fail", got=f"{self.spec.url!r} is not an http(s) URL with a host"))
        port = url.port or (443 if url.scheme == "https" else 80)
        self._add(Step("URL", "ok", detail=f"{url.scheme}, host {url.hostname}, port {port}"))
        return url.hostname, port

    async def _reach(self, host: str, port: int) -> Step:
        name = "TCP connect"
        self.report.exit_code = 4
        try:
            _, writer = await within(asyncio.open_connection(host, port), timeout=self.timeout)
        except socket.gaierror as exc:
            got = f"the name {host!r} does not resolve ({exc.strerror})"
            return Step(
                name, "fail", got=got, hint="check the host name, and that this machine's DNS sees it"
            )
        except ConnectionRefusedError:
            got = f"nothing listens on {host}:{port} (refused)"
            return Step(name, "fail", got=got, hint="start the server, or check the port")
        except (asyncio.TimeoutError, OSError) as exc:
            got = f"{host}:{port} did not accept a connection ({exc!r})"
            return Step(name, "fail", got=got, hint="a firewall, a wrong host, or a server that is not up")
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        self.report.exit_code = 0
        return Step(name, "ok", detail=f"{host}:{port} accepts connections")

    async def _answer(self, client: Client) -> Step:
        name = "answers in time"
        try:
            opened = await client.connect()
        except AuthRequiredError as exc:
            self.report.exit_code = 3
            hint = "the server wants a token: pass --bearer TOKEN or --header 'Authorization: …'"
            return Step("authorization", "fail", got=exc.message, hint=hint)
        except RequestTimeoutError as exc:
            self.report.exit_code = 4
            hint = "the server took the connection but did not answer: is this the MCP endpoint's path?"
            return Step(name, "fail", got=exc.message, hint=hint)
        except ConnectError as exc:
            self.report.exit_code = exc.exit_code
            hint = "check the path (often /mcp, or /sse for the legacy transport)"
            return Step(name, "fail", got=exc.message, hint=hint)
        except (RpcError, ProtocolError) as exc:
            self.report.exit_code = 1
            return Step(name, "fail", got=exc.message, hint="the handshake was refused")
        transport = client.session.describe()["transport"]
        first = "initialize" if opened.era == "legacy" else "server/discover"
        return Step(name, "ok", detail=f"{first} answered over {transport} ({opened.era} era)")


def httpx_timeout(seconds: float) -> Any:
    import httpx

    return httpx.Timeout(seconds)


async def doctor(spec: ServerSpec, options: SessionOptions) -> Report:
    """Walk the connection to `spec` as `options` say (each step waits `options.timeout`, 10 s if none)."""
    if spec.command is not None:
        return await CommandDoctor(spec, options).run()
    return await UrlDoctor(spec, options).run()
