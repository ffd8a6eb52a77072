"""What a conformance check is, what it finds, and the registry that holds them all.

A `Check` is a small unit of data plus one coroutine: an id (`group.name`), a title, the spec rule it comes
from (quoted, with where it is written), how binding the rule is (MUST → a violation fails, SHOULD → it
warns), which era's connection it needs and whether it calls tools. Its coroutine returns an `Outcome`:
the rule held, the rule was broken, or the check could not apply (`Skip`, never counted as a pass) — each
with the exchanges in the traffic log that show it. The CLI, the JSON and JUnit reports and (later) the
TUI's Check view all read the same `CheckResult`s, and the HTTP checks register themselves the same way.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mcpx.check.context import CheckContext

Level = Literal["MUST", "SHOULD"]
Status = Literal["pass", "fail", "warn", "skip", "incomplete"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "warn", "skip", "incomplete")
Group = Literal["jsonrpc", "lifecycle", "catalogue", "behaviour", "http", "skills"]
#: "any": runs on the main connection, whatever its era; "legacy"/"modern": needs a connection of that era
EraNeed = Literal["any", "legacy", "modern"]

GROUP_TITLES: dict[str, str] = {
    "jsonrpc": "JSON-RPC hygiene",
    "lifecycle": "Lifecycle",
    "catalogue": "Catalogues",
    "behaviour": "Behaviour",
    "http": "HTTP",
    "skills": "Skills extension (SEP-2640)",
}
#: id prefixes that name an era rather than a group
_GROUP_OF_PREFIX = {"legacy": "lifecycle", "modern": "lifecycle"}


@dataclass(frozen=True, slots=True)
class ExchangeRef:
    """Traffic events that show a finding: which connection's log, and the sequence numbers in it."""

    log: str
    seqs: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"log": self.log, "seq": list(self.seqs)}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a check's coroutine found. `held` is None for a skip, or (with `unjudged`) when it could not be
    judged."""

    held: bool | None
    detail: str
    exchanges: tuple[ExchangeRef, ...] = ()
    unjudged: bool = False


def held(detail: str, *exchanges: ExchangeRef | None) -> Outcome:
    return Outcome(True, detail, tuple(e for e in exchanges if e is not None and e.seqs))


def broken(detail: str, *exchanges: ExchangeRef | None) -> Outcome:
    return Outcome(False, detail, tuple(e for e in exchanges if e is not None and e.seqs))


class Skip(Exception):
    """Raised (or returned via `skipped`) when a check cannot apply; the reason is shown to the user."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def skipped(reason: str) -> Outcome:
    return Outcome(None, reason)


class Incomplete(Exception):
    """Raised when a check cannot be judged: mcpx's own error (its timeout, an HTTP failure), or a connection
    that broke before the check could look. Reported as `incomplete`, never as a failure."""

    def __init__(self, reason: str, *exchanges: ExchangeRef | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.exchanges = tuple(e for e in exchanges if e is not None and e.seqs)


def unjudged(reason: str, *exchanges: ExchangeRef | None) -> Outcome:
    return Outcome(None, reason, tuple(e for e in exchanges if e is not None and e.seqs), unjudged=True)


Runner = Callable[["CheckContext"], Awaitable[Outcome]]


@dataclass(frozen=True, slots=True)
class Check:
    id: str
    title: str
    level: Level
    #: the rule, quoted from where it is written
    rule: str
    #: where the rule is written (a spec page, JSON-RPC 2.0, an RFC)
    source: str
    run: Runner
    era: EraNeed = "any"
    #: calls tools, so runs only with --call-tools
    calls_tools: bool = False
    #: runs after every other check (it sweeps the traffic the others made)
    final: bool = False
    transports: frozenset[str] = frozenset({"stdio", "http"})
    #: how many fresh server processes it asks for (started ahead, side by side with the others)
    fresh: int = 0
    #: the first revision whose text has the rule (None: every revision); a connection at an older one skips
    since: str | None = None
    #: why a broken MUST only warns (hosts never lean on it; the official SDKs leave it out), shown with it
    warns: str | None = None
    #: may leave its connection broken (silent, dead), so it runs on a connection of its own
    isolated: bool = False

    @property
    def cost(self) -> Literal["fail", "warn"]:
        """What breaking the rule costs."""
        return "fail" if self.level == "MUST" and self.warns is None else "warn"

    @property
    def cite(self) -> str:
        """Where the rule is written, in words: "MCP 2025-11-25 basic/lifecycle § initialization" or
        "JSON-RPC 2.0 § error_object"."""
        return cite(self.source)

    @property
    def group(self) -> str:
        prefix = self.id.split(".", 1)[0]
        return _GROUP_OF_PREFIX.get(prefix, prefix)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "group": self.group,
            "level": self.level,
            "rule": self.rule,
            "source": self.source,
            "era": self.era,
            "calls_tools": self.calls_tools,
            "cite": self.cite,
            "since": self.since,
            "cost": self.cost,
            "warns": self.warns,
        }


@dataclass(slots=True)
class CheckResult:
    check: Check
    status: Status
    detail: str
    exchanges: tuple[ExchangeRef, ...] = ()
    #: which era's connection the check ran on ("" when it did not run)
    era: str = ""
    took: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: the protocol revision of the connection the check judged ("" when it did not run)
    revision: str = ""

    @property
    def id(self) -> str:
        return self.check.id

    def to_json(self) -> dict[str, Any]:
        return {
            **self.check.to_json(),
            "status": self.status,
            "detail": self.detail,
            "ran_in_era": self.era or None,
            "revision": self.revision or None,
            "took_ms": round(self.took * 1000),
            "exchange": [e.to_json() for e in self.exchanges],
            "notes": self.notes,
        }


def status_of(check: Check, outcome: Outcome) -> Status:
    """What a broken rule costs is the check's (`Check.cost`); what could not be judged is incomplete."""
    if outcome.unjudged:
        return "incomplete"
    if outcome.held is None:
        return "skip"
    if outcome.held:
        return "pass"
    return check.cost


_SPEC_URL = re.compile(
    r"https://modelcontextprotocol\.io/specification/(?P<rev>[0-9]{4}-[0-9]{2}-[0-9]{2})/(?P<page>[^#]+)(?:#(?P<section>.+))?"
)
JSONRPC_URL = "https://www.jsonrpc.org/specification"


def cite(source: str) -> str:
    """A source URL as a citation: revision and section for the MCP spec, the section for JSON-RPC 2.0."""
    if source.startswith(JSONRPC_URL):
        section = source.partition("#")[2]
        return "JSON-RPC 2.0" + (f" § {section}" if section else "")
    sep = re.fullmatch(r"https://modelcontextprotocol\.io/seps/(\d+)-[\w-]+(?:#(?P<section>\S+))?", source)
    if sep is not None:  # an extension's rule, written in its SEP
        return f"SEP-{sep[1]}" + (f" § {sep['section']}" if sep["section"] else "")
    match = _SPEC_URL.fullmatch(source)
    if match is None:
        return source
    section = (match["section"] or "").replace("%26", "&")
    return f"MCP {match['rev']} {match['page']}" + (f" § {section}" if section else "")


_REGISTRY: dict[str, Check] = {}


def check(
    id: str,
    title: str,
    *,
    level: Level,
    rule: str,
    source: str,
    era: EraNeed = "any",
    calls_tools: bool = False,
    final: bool = False,
    transports: Iterable[str] = ("stdio", "http"),
    fresh: int = 0,
    since: str | None = None,
    warns: str | None = None,
    isolated: bool = False,
) -> Callable[[Runner], Runner]:
    """Register the decorated coroutine as a check (ids are unique; registering twice replaces)."""

    def register(run: Runner) -> Runner:
        _REGISTRY[id] = Check(
            id,
            title,
            level,
            " ".join(rule.split()),
            source,
            run,
            era,
            calls_tools,
            final,
            frozenset(transports),
            fresh,
            since,
            " ".join(warns.split()) if warns else None,
            isolated,
        )
        return run

    return register


def all_checks() -> list[Check]:
    """Every registered check, in report order (groups in their order, then registration order)."""
    from mcpx.check import behaviour, catalogue, http_rules, hygiene, lifecycle, skills  # noqa: F401 - they register

    order = list(GROUP_TITLES)
    checks = list(_REGISTRY.values())
    return sorted(checks, key=lambda c: order.index(c.group) if c.group in order else len(order))


def select(checks: list[Check], only: Iterable[str] = (), skip: Iterable[str] = ()) -> list[Check]:
    """Keep the checks named by `only` (ids or id prefixes such as `jsonrpc` or `catalogue.tool`) and drop
    those named by `skip`."""
    only, skip = list(only), list(skip)

    def named(check: Check, names: list[str]) -> bool:
        return any(check.id.startswith(n) or check.group == n for n in names)

    return [c for c in checks if (not only or named(c, only)) and not named(c, skip)]
