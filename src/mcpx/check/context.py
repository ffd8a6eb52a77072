"""What a check can reach: the server's connections (per era, revived when a check kills the server, fresh
processes on demand), the catalogues walked once and shared, and the results of calling tools.

The run has one main connection, opened as `--protocol-era` says (auto: modern when the server speaks it).
The other era gets its own connection, on its own process, when a check of that era needs it; a check that
needs a server nobody has spoken to yet (requests before `initialize`) gets a fresh process. Each
connection has its own traffic log, labelled, so findings point at `label#seq`.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from mcpx.check.lists import ListWalk, walk
from mcpx.check.model import Check, Incomplete, Skip
from mcpx.check.options import CheckOptions, LogListener, older
from mcpx.check.session import Reply, Session
from mcpx.errors import McpxError, RequestTimeoutError, RpcError
from mcpx.protocol.auto import AutoEra
from mcpx.protocol.client import Client
from mcpx.protocol.eras import Era, LegacyEra
from mcpx.protocol.modern import ModernEra, is_modern_evidence
from mcpx.protocol.names import ListName
from mcpx.protocol.peer import Peer
from mcpx.protocol.session import open_session
from mcpx.target import ServerSpec
from mcpx.transports.open import open_transport
from mcpx.wire import TrafficLog


class CheckContext:
    def __init__(
        self, spec: ServerSpec, options: CheckOptions | None = None, *, on_log: LogListener | None = None
    ) -> None:
        self.spec = spec
        self.options = options or CheckOptions()
        self.on_log = on_log
        #: every connection the run opened, by label, in order (their logs are the evidence)
        self.sessions: dict[str, Session] = {}
        self.main: Session | None = None
        self._by_era: dict[str, Session] = {}
        self._era_missing: dict[str, str] = {}
        #: eras whose connection could not be opened for a reason of mcpx's (a timeout): not judged
        self._era_broken: dict[str, str] = {}
        #: connections started ahead for the checks that may break theirs (`Check.isolated`)
        self._own_pool: list[Session] = []
        #: the connection those checks share while none of them has broken it
        self._isolated: Session | None = None
        #: the revision of the connection the running check asked for last
        self.revision = ""
        self._fresh: list[Session] = []
        #: processes started ahead of need: bare ones for `fresh()`, and the other era's connection
        self._pool: list[Session] = []
        self._spare_era: dict[str, Session] = {}
        self._closing: set[asyncio.Future[None]] = set()
        self._catalogues: dict[ListName, ListWalk] = {}
        self._tool_runs: Any = None
        self.current: Check | None = None
        #: sentences for the report's header (era verdicts, restarts)
        self.notes: list[str] = []

    # -- connections -------------------------------------------------------------------------------------
    def _era(self, name: str) -> Era:
        if name == "legacy":
            return LegacyEra()
        if name == "modern":
            return ModernEra()
        # the probe waits as `check_session` says (a start-up's grace unless told otherwise)
        return AutoEra(probe_timeout=self.options.session.probe_timeout, cache=None)

    def _client(self, label: str, era: Era) -> Session:
        log = TrafficLog()
        # the run's options (opening includes a start-up: `check_session` gives it the grace); `era`
        # is this connection's own strategy
        client = open_session(self.spec, self.options.session, traffic=log, era=era)
        return Session(label, log, client.peer, client, timeout=self.options.timeout)

    async def _connect(self, session: Session) -> Session:
        """Open a session made by `_client` (its process may already run), registering it under its label."""
        client = session.client
        assert client is not None
        self.sessions[session.label] = session
        if session.label != "main":
            self._announce(session)
        try:
            connecting = session.extra.pop("connecting", None)  # started ahead (see `open`)
            await (connecting if connecting is not None else client.connect())
        except BaseException:
            await session.close()
            raise
        assert client.opened is not None
        session.era, session.version = client.opened.era, client.opened.protocol_version
        session.extra["answered"] = True
        return session

    def _start_connecting(self, session: Session) -> Session:
        """Connect a client session in the background, so its server starts up while checks run."""
        assert session.client is not None
        session.extra["connecting"] = asyncio.ensure_future(session.client.connect())
        return session

    async def _start(self, session: Session) -> Session:
        """Spawn a bare session's server now, so its start-up overlaps with other work."""
        await session.peer.start()
        return session

    async def open(self, checks: list[Check] | None = None, *, client: Client | None = None) -> Session:
        """Open the main connection (raises the connection's error when the server cannot be reached).

        The processes the selected checks will need (a connection of the other era, fresh processes) are
        started as soon as it is open, so they start up while the first checks run.
        """
        wanted = self.options.protocol_era
        checks = checks or []
        main = self._borrow(client) if client is not None else await self._open_main(wanted)
        # the main connection is named after its era, so findings read "modern#12"
        main.label = main.era
        self.sessions = {(main.label if s is main else k): s for k, s in self.sessions.items()}
        self.main = self._by_era[main.era] = main
        self._announce(main)
        other = "legacy" if main.era == "modern" else "modern"
        if wanted != "auto":
            self._era_missing[other] = f"--protocol-era {wanted} was given, so the {other} era is not checked"
        elif main.era == "legacy" and (reason := self._probe_reason(main)) is not None:
            self._era_missing["modern"] = f"the server does not speak the modern era ({reason})"
        wanted_eras = {c.era for c in checks if c.era != "any" and c.era not in self._era_missing}
        try:
            if "legacy" in wanted_eras and main.era == "modern":
                self._spare_era["legacy"] = self._start_connecting(self._client("legacy", LegacyEra()))
            for _ in range(sum(c.fresh for c in checks if c.era == "any" or c.era in wanted_eras)):
                self._pool.append(await self._start(self._bare("fresh")))
            # one for the first of them (another is started when a check leaves it broken)
            for _ in range(min(1, sum(1 for c in checks if c.isolated))):
                self._own_pool.append(self._start_connecting(self._client("isolated", self._same_era(main))))
        except McpxError:
            pass  # a server that cannot be started twice shows up when it is needed
        return main

    @staticmethod
    def _same_era(session: Session) -> Era:
        """A new era strategy for another connection like `session` (no new probe)."""
        return ModernEra() if session.era == "modern" else LegacyEra()

    async def own(self) -> Session:
        """The connection for checks whose rule may leave a connection broken (silent after a line that is
        not JSON, dead), in the main connection's era: a server process (stdio) or a session (HTTP) apart
        from the main one, so no other check pays for what they provoke. They share it while it holds; one
        that leaves it broken gets it replaced (`after_isolated`)."""
        assert self.main is not None, "open() first"
        if self._isolated is not None:
            return self._gate(self._isolated)
        name, n = "isolated", 1
        while name in self.sessions:
            n += 1
            name = f"isolated-{n}"
        session = self._own_pool.pop(0) if self._own_pool else self._client(name, self._same_era(self.main))
        session.label = name
        session.extra["own"] = True  # the check judges what this connection does, silence included
        try:
            await self._connect(session)
        except McpxError as exc:
            raise Incomplete(
                f"a connection apart from the main one did not open ({exc.message.splitlines()[0]})"
            ) from None
        self._isolated = session
        return self._gate(session)

    def after_isolated(self, held: bool | None) -> None:
        """After a check on the isolated connection: keep it for the next one only if the rule held and
        the server still answers (a broken rule may have left it in any state)."""
        session = self._isolated
        if session is None or (held is True and session.alive and not session.extra.get("silent")):
            return
        self._isolated = None
        task = asyncio.ensure_future(session.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _gate(self, session: Session) -> Session:
        """`Skip` when the running check's rule is newer than the revision the connection speaks."""
        check = self.current
        if check is not None and check.since is not None and older(session.version, check.since):
            raise Skip(f"a rule of {check.since} and later; this connection speaks {session.version}")
        self.revision = session.version
        return session

    def _borrow(self, client: Client) -> Session:
        """Run on a client someone else opened (the TUI's): its log is the evidence; it is not closed."""
        if client.opened is None:
            raise McpxError("the client is not connected")
        session = Session("main", client.traffic, client.peer, client, timeout=self.options.timeout)
        session.era, session.version = client.opened.era, client.opened.protocol_version
        session.extra["borrowed"] = True
        self.sessions["main"] = session
        return session

    async def _open_main(self, wanted: str) -> Session:
        main = self._client("main", self._era(wanted))
        try:
            return await self._connect(main)
        except RpcError as exc:
            # auto gave up on server/discover and fell back to initialize, but the answer came late and the
            # server is modern after all (it refuses initialize with -32022): open it as modern
            if wanted != "auto" or not is_modern_evidence(exc):
                raise
        main = self._client("main", ModernEra())
        main.log.info(
            "era: modern — the server refused initialize with -32022 after a late server/discover", "protocol"
        )
        return await self._connect(main)

    def _probe_reason(self, session: Session) -> str | None:
        """Why auto chose legacy, from its note in the log (None when no probe ran: then ask again)."""
        for event in session.log:
            if event.direction == "info" and event.raw.startswith("era: legacy — "):
                return event.raw.removeprefix("era: legacy — ").split("; using")[0]
        return None

    async def session(self, era: str) -> Session:
        """The connection of that era (opened on first use, revived if the server died); `Skip` when the
        server does not speak it."""
        if era in self._era_missing:
            raise Skip(self._era_missing[era])
        if era in self._era_broken:
            raise Incomplete(self._era_broken[era])
        session = self._by_era.get(era)
        if session is None:
            try:
                spare = self._spare_era.pop(era) if era in self._spare_era else None
                session = await self._connect(spare or self._client(era, self._era(era)))
            except RequestTimeoutError as exc:
                # no answer in time is not "does not speak it": a slow start looks the same
                first = exc.message.split("\n")[0]
                self._era_broken[era] = (
                    f"the {era} connection did not open ({first}); a larger --timeout may let it"
                )
                raise Incomplete(self._era_broken[era]) from None
            except McpxError as exc:
                first = exc.message.split("\n")[0]
                self._era_missing[era] = f"the server does not speak the {era} era ({first})"
                raise Skip(self._era_missing[era]) from None
            self._by_era[era] = session
        return self._gate(await self._alive(session))

    def era_ruled_out(self, era: str) -> bool:
        """Whether a --protocol-era flag (not the server) keeps that era from being checked."""
        return self._era_missing.get(era, "").startswith("--protocol-era")

    async def speaks(self, era: str) -> bool:
        """Whether a connection of that era opens (False also when the era was ruled out by a flag)."""
        try:
            await self.session(era)
        except Skip:
            return False
        return True

    async def main_session(self) -> Session:
        """The main connection, or for a check that may break its connection, one of its own."""
        assert self.main is not None, "open() first"
        if self.current is not None and self.current.isolated:
            return await self.own()
        return self._gate(await self._alive(self.main))

    async def _alive(self, session: Session) -> Session:
        if session.alive:
            return session
        if session.extra.get("gone"):
            raise Incomplete(f"the server could not be started again ({session.extra['gone']})")
        await self.revive(session)
        return session

    async def revive(self, session: Session) -> None:
        """Start a dead connection's server again and reopen it in the same era (same log, ids go on)."""
        client = session.client
        assert client is not None
        session.extra.pop("noticed", None)
        session.extra.pop("silent", None)
        session.log.info("mcpx check: starting the server again for the next checks", "process")
        era = getattr(client.era, "chosen", None) or client.era  # auto: the era it chose, no new probe
        try:
            await client.peer.restart()
            client.opened = await era.open(client.peer, client.identity, self.options.timeout)
            for note in client.opened.notes:
                session.log.info(note, "protocol")
        except McpxError as exc:
            session.extra["gone"] = exc.message.split("\n")[0]
            raise Incomplete(f"the server could not be started again ({session.extra['gone']})") from None

    def era_sessions(self) -> list[Session]:
        """The connections checks share (one per era), not the processes a check has to itself."""
        return list(self._by_era.values())

    def dead_sessions(self) -> list[Session]:
        """Era connections whose server has died since it was last noticed (each is told once)."""
        dead = [s for s in self._by_era.values() if not s.alive and not s.extra.get("gone")]
        return [s for s in dead if not s.extra.get("noticed")]

    async def fresh(self, label: str | None = None) -> Session:
        """A new server process nobody has spoken to: a bare peer, no handshake, no envelope."""
        base = label or (self.current.id if self.current else "fresh")
        name, n = base, 1
        while name in self.sessions:
            n += 1
            name = f"{base}-{n}"
        session = self._pool.pop(0) if self._pool else await self._start(self._bare(name))
        session.label = name
        self.sessions[name] = session
        self._announce(session)
        self._fresh.append(session)
        return session

    def _announce(self, session: Session) -> None:
        if self.on_log is not None and not session.extra.get("announced"):
            session.extra["announced"] = True
            self.on_log(session.label, session.log)

    def _bare(self, label: str) -> Session:
        log = TrafficLog()
        return Session(
            label,
            log,
            Peer(open_transport(self.spec, log), timeout=self.options.timeout),
            timeout=self.options.timeout,
        )

    async def close_fresh(self) -> None:
        """Stop the fresh processes of the check that just ran (in the background: nobody waits for them)."""
        while self._fresh:
            session = self._fresh.pop()
            task = asyncio.ensure_future(session.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def close(self) -> None:
        await self.close_fresh()
        for spare in self._spare_era.values():  # started ahead, never needed
            connecting = spare.extra.pop("connecting", None)
            if connecting is not None:
                connecting.cancel()
                await asyncio.gather(connecting, return_exceptions=True)
        for spare in self._own_pool:
            connecting = spare.extra.pop("connecting", None)
            if connecting is not None:
                connecting.cancel()
                await asyncio.gather(connecting, return_exceptions=True)
        sessions = [*self.sessions.values(), *self._pool, *self._spare_era.values(), *self._own_pool]
        sessions = [s for s in sessions if not s.extra.get("borrowed")]
        await asyncio.gather(*(s.close() for s in sessions), *self._closing, return_exceptions=True)

    # -- shared work -----------------------------------------------------------------------------------
    async def harmless(self, session: Session, timeout: float | None = None) -> Reply:
        """A request every server of the session's era answers: ping (legacy), server/discover (modern)."""
        method = "server/discover" if session.era == "modern" else "ping"
        return await session.ask(method, timeout=timeout)

    def advertised(self, capability: str) -> bool:
        assert self.main is not None and self.main.client is not None
        return capability in self.main.client.server_capabilities

    async def catalogue(self, name: ListName) -> ListWalk:
        """The list walked once on the main connection (page by page, each exchange kept)."""
        if name not in self._catalogues:
            self._catalogues[name] = await self.walk(name)
        return self._catalogues[name]

    async def walk(self, name: ListName) -> ListWalk:
        """The list walked page by page on the main connection, anew (each exchange kept)."""
        return await walk(self, name)

    async def tools(self) -> list[dict[str, Any]]:
        """The main connection's tools (objects only), or `Skip` when there are none to look at."""
        catalogue = await self.catalogue("tools")
        if not catalogue.advertised:
            raise Skip("the server does not advertise the tools capability")
        if catalogue.failed is not None:
            raise Skip(f"tools/list failed ({catalogue.failed.describe()}); see catalogue.lists")
        tools = [t for t in catalogue.items if isinstance(t, dict)]
        if not tools:
            raise Skip("the server lists no tools")
        return tools

    async def tool_runs(self) -> Any:
        """Each eligible tool called once with arguments generated from its schema (shared by checks)."""
        if not self.options.call_tools:
            raise Skip("calls tools: run with --call-tools (read-only tools) or --all-tools")
        if self._tool_runs is None:
            from mcpx.check.calls import call_tools

            self._tool_runs = await call_tools(self, await self.tools())
        return self._tool_runs

    def logs(self) -> dict[str, TrafficLog]:
        return {label: session.log for label, session in self.sessions.items()}


async def close_quietly(session: Session) -> None:
    with contextlib.suppress(McpxError, OSError):
        await session.close()


__all__ = ["CheckContext"]
