"""`auto`: find out which era a server speaks, as the spec's backwards-compatibility sections say.

Probe with `server/discover` at the newest modern revision. A DiscoverResult naming a modern revision,
or -32022 whose `supported` list shares one, means modern. Any other error, a DiscoverResult without a
modern revision, or silence within the probe timeout means legacy → `initialize`. The fallback is never
keyed to one error code. A legacy server that exits on the unknown request is started again.

Over HTTP the answer comes with a status: a JSON-RPC error in the body is judged as above; a refusal
without one (400, 404, 405) means legacy (and the transport tries HTTP+SSE if `initialize` is refused
too); 401/403 is an authorization problem and an unreachable server, a 5xx or silence an outage — none of
them says anything about the era, so they end the connection attempt instead of choosing one. Silence
being no evidence there, the probe waits as long as any request would.

The verdict is remembered per server (command line or URL) so a silent legacy server costs the probe
timeout once, and re-probed when it proves wrong. Every step is an `info` event in the traffic log.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcpx.errors import ConnectError, McpxError, RequestTimeoutError, RpcError, ServerExitedError
from mcpx.protocol.eras import Answer, ClientIdentity, Era, LegacyEra, Opened, Resend, Send
from mcpx.protocol.modern import ModernEra, is_modern_evidence
from mcpx.protocol.peer import Peer
from mcpx.transports.base import HeaderMirroring
from mcpx.wire.private_files import write_private

DEFAULT_PROBE_TIMEOUT = 2.0


def user_cache_dir() -> str:
    """`platformdirs.user_cache_dir("mcpx")`, without importing platformdirs (~2 ms of every `mcpx call`'s
    start-up) where every version of it answers alike: Linux with an absolute $XDG_CACHE_HOME, or none
    and an absolute $HOME."""
    if sys.platform == "linux" and "ANDROID_DATA" not in os.environ:
        xdg, home = os.environ.get("XDG_CACHE_HOME", ""), os.environ.get("HOME", "")
        if xdg.startswith("/"):
            return os.path.join(xdg, "mcpx")
        if not xdg and home.startswith("/"):
            return os.path.join(os.path.expanduser("~/.cache"), "mcpx")
    import platformdirs

    return platformdirs.user_cache_dir("mcpx")


#: verdicts kept: the newest; a forgotten one costs only a probe
MAX_VERDICTS = 256


def _sha256_hex(data: bytes) -> str:
    """SHA-256 from Python's own implementation where there is one: `import hashlib` sets up OpenSSL's
    digests (~4 ms of every `mcpx call`'s start-up, for the one hash the era cache needs). The digest is
    the same either way."""
    for name in ("_sha2", "_sha256"):  # Python 3.12+, 3.10-3.11
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        return str(module.sha256(data).hexdigest())
    import hashlib  # a build without the built-in hashes

    return hashlib.sha256(data).hexdigest()


class EraCache:
    """Verdicts per server in a small JSON file (the user's cache directory by default), keyed by a hash
    of the server's key: the file names no URL or command line, so none of their secrets. It keeps the
    `MAX_VERDICTS` newest: every server a user ever tried (each temp path, each port) would otherwise stay
    in it, and it is read whole by every connection that probes."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is None:
            # os.path, not pathlib: `mcpx call` imports no pathlib (~9 ms of its start-up's CPU)
            base = os.environ.get("MCPX_CACHE_DIR")
            path = os.path.join(base if base is not None else user_cache_dir(), "eras.json")
        self.path = path

    @staticmethod
    def hashed(key: str) -> str:
        return _sha256_hex(key.encode("utf-8", "surrogatepass"))[:32]

    def _load(self) -> dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as file:
                data = json.loads(file.read())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, key: str) -> str | None:
        entry = self._load().get(self.hashed(key))
        era = entry.get("era") if isinstance(entry, dict) else None
        return era if era in ("legacy", "modern") else None

    def put(self, key: str, era: str) -> None:
        data = self._load()
        data[self.hashed(key)] = {"era": era, "when": time.time()}
        if len(data) > MAX_VERDICTS:
            newest = sorted(data.items(), key=_when, reverse=True)[:MAX_VERDICTS]
            data = dict(newest)
        self._save(data)

    def forget(self, key: str) -> None:
        data = self._load()
        if data.pop(self.hashed(key), None) is not None:
            self._save(data)

    def _save(self, data: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs a probe next time
            write_private(self.path, json.dumps(data, indent=1), tighten=True)


def _when(item: tuple[str, Any]) -> float:
    when = item[1].get("when") if isinstance(item[1], dict) else None
    return float(when) if isinstance(when, (int, float)) else 0.0


class AutoEra:
    """Chooses legacy or modern on `open()`, then behaves as the chosen era."""

    def __init__(
        self,
        *,
        probe_timeout: float = DEFAULT_PROBE_TIMEOUT,
        cache: EraCache | None = None,
        key: str | None = None,
    ) -> None:
        self.probe_timeout = probe_timeout
        self.cache = cache
        self.key = key
        self.chosen: Era | None = None

    @property
    def name(self) -> str:
        return self.chosen.name if self.chosen is not None else "auto"

    async def open(self, peer: Peer, client: ClientIdentity, timeout: float | None) -> Opened:
        cached = self.cache.get(self.key) if self.cache is not None and self.key else None
        if cached is not None:
            peer.traffic.info(f"era: using the remembered verdict, {cached}", "protocol", era=cached)
            era: Era = LegacyEra() if cached == "legacy" else ModernEra()
            try:
                return self._chose(await era.open(peer, client, timeout), era, remembered=cached)
            except (RpcError, RequestTimeoutError, ConnectError) as exc:
                peer.traffic.info(
                    f"era: the remembered {cached} verdict failed ({exc.message}); probing", "protocol"
                )
                if self.cache is not None and self.key:
                    self.cache.forget(self.key)
                if not await self._alive(peer):
                    await peer.restart()
        return await self._probe(peer, client, timeout)

    async def _probe(self, peer: Peer, client: ClientIdentity, timeout: float | None) -> Opened:
        modern = ModernEra()
        log = peer.traffic
        http = isinstance(peer.transport, HeaderMirroring)
        wait = timeout if http else self.probe_timeout
        log.info(
            f"era: probing with server/discover at {modern.version}"
            + (f" ({wait:g} s)" if wait is not None else ""),
            "protocol",
        )
        reason: str
        try:
            event = await modern.discover(peer, client, wait)
            opened = modern.opened_from(event, peer)
            if opened is not None:
                log.info("era: modern — the server answered server/discover", "protocol", era="modern")
                return self._chose(opened, modern)
            reason = "its server/discover result names no modern revision"
        except RpcError as exc:
            if is_modern_evidence(exc):
                log.info(
                    f"era: modern — the server answered {exc.error_code} ({exc.error_message})", "protocol"
                )
                return self._chose(await modern.open(peer, client, timeout), modern)
            reason = f"server/discover answered error {exc.error_code} ({exc.error_message})"
        except RequestTimeoutError:
            if http:
                raise  # an HTTP server that does not answer is down, whatever era it speaks
            reason = f"no answer to server/discover within {self.probe_timeout:g} s"
        except ServerExitedError as exc:
            reason = f"the server ended when probed ({exc.message.split(';')[0]}); mcpx started it again"
            await peer.restart()
        except ConnectError as exc:
            # a refused probe (an HTTP 400 with no JSON-RPC body, say) is no evidence of a modern server;
            # over HTTP only a refusal carries a status: without one the server was not reached at all
            if http and exc.details.get("status") is None:
                raise
            reason = f"server/discover was refused ({exc.message.splitlines()[0]})"
            if peer.closed.is_set():
                await peer.restart()
        log.info(f"era: legacy — {reason}; using the initialize handshake", "protocol", era="legacy")
        legacy = LegacyEra()
        try:
            return self._chose(await legacy.open(peer, client, timeout), legacy)
        except RpcError as exc:
            # a server slower to start than the probe answers initialize with -32022 naming only modern
            # revisions: that is the evidence the probe did not wait long enough to see
            if not is_modern_evidence(exc):
                raise
            log.info(
                f"era: modern after all — initialize was refused with {exc.error_code} ({exc.error_message})",
                "protocol",
            )
            return self._chose(await modern.open(peer, client, timeout), modern)

    async def _alive(self, peer: Peer) -> bool:
        return not peer.closed.is_set()

    def _chose(self, opened: Opened, era: Era, remembered: str | None = None) -> Opened:
        self.chosen = era
        # a verdict the cache already holds is not written again (a rewrite per run, for nothing)
        if self.cache is not None and self.key and opened.era != remembered:
            self.cache.put(self.key, opened.era)
        return opened

    def _era(self) -> Era:
        if self.chosen is None:
            raise McpxError("the era is not known before the connection is open")
        return self.chosen

    def wrap(self, method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
        return self._era().wrap(method, params)

    async def settle(
        self, method: str, params: dict[str, Any] | None, result: Any, resend: Resend, answer: Answer
    ) -> Any:
        return await self._era().settle(method, params, result, resend, answer)

    async def set_log_level(self, level: str, send: Send) -> Any:
        return await self._era().set_log_level(level, send)

    async def recover(
        self, method: str, error: RpcError, resend: Resend, refresh_tools: Callable[[], Awaitable[None]]
    ) -> Any:
        return await self._era().recover(method, error, resend, refresh_tools)


def make_era(
    era: str,
    version: str | None = None,
    *,
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT,
    key: str | None = None,
    cache: EraCache | None = None,
) -> Era:
    """The strategy for `--protocol-era` and `--protocol-version` (a version pins its era)."""
    from mcpx.errors import UsageError
    from mcpx.protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS, era_of

    if version is not None:
        pinned = era_of(version)
        if pinned is None:
            known = ", ".join((*MODERN_VERSIONS, *LEGACY_VERSIONS))
            raise UsageError(f"--protocol-version {version!r} is not a revision mcpx knows ({known})")
        if era not in ("auto", pinned):
            raise UsageError(f"--protocol-version {version} belongs to the {pinned} era, not {era}")
        era = pinned
    if era == "legacy":
        return LegacyEra(version)
    if era == "modern":
        return ModernEra(version)
    if era == "auto":
        return AutoEra(probe_timeout=probe_timeout, key=key, cache=cache if cache is not None else EraCache())
    raise UsageError(f"--protocol-era must be legacy, auto or modern, not {era!r}")
