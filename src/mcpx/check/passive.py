"""`mcpx check --recording FILE`: judge a recorded (or proxied) session without a server.

Nothing is sent: the rules are read off the traffic as it was. The client's frames are those mcpx wrote
("out"), the server's those it read ("in"). Each rule says which side broke it.

- `recording.schema`: every frame against the JSON Schema of the revision in use (`wire_schema`);
- `recording.pairing`: every request answered once, no answer without a request;
- `recording.ids`: request ids are strings or integers, never null, not reused while in flight, and come
  back with their JSON type;
- `recording.lifecycle`: legacy: `initialize` first, then `notifications/initialized`, before anything else
  but ping (and, from the server, logging); modern: every request names the protocol version;
- `recording.notification-replies`: nothing answers a notification;
- `recording.capabilities`: neither side uses a capability the other did not declare.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcpx.check.model import Check, CheckResult, ExchangeRef, Outcome, broken, held, skipped, status_of
from mcpx.check.report import CheckReport
from mcpx.check.wire_schema import REVISIONS, judge_frame
from mcpx.protocol.versions import LEGACY_VERSIONS
from mcpx.wire import ErrorResponse, Notification, Request, Response, TrafficEvent, TrafficLog

SPEC = "https://modelcontextprotocol.io/specification"
JSONRPC = "https://www.jsonrpc.org/specification"
LOG = "recording"
#: at most this many examples are named per finding
SHOWN = 5
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"

#: client → server method prefix → the server capability it needs (and a sub-key, if one)
SERVER_NEEDS: dict[str, tuple[str, str | None]] = {
    "tools/": ("tools", None),
    "resources/subscribe": ("resources", "subscribe"),
    "resources/unsubscribe": ("resources", "subscribe"),
    "resources/": ("resources", None),
    "prompts/": ("prompts", None),
    "logging/setLevel": ("logging", None),
    "completion/complete": ("completions", None),
    # server notifications
    "notifications/tools/list_changed": ("tools", "listChanged"),
    "notifications/prompts/list_changed": ("prompts", "listChanged"),
    "notifications/resources/list_changed": ("resources", "listChanged"),
    "notifications/resources/updated": ("resources", "subscribe"),
    "notifications/message": ("logging", None),
}
#: server → client method → the client capability it needs
CLIENT_NEEDS: dict[str, tuple[str, str | None]] = {
    "sampling/createMessage": ("sampling", None),
    "elicitation/create": ("elicitation", None),
    "roots/list": ("roots", None),
    "notifications/roots/list_changed": ("roots", "listChanged"),
}


class Session:
    """What the judges read: the log, who is the client, the revision, the declared capabilities."""

    def __init__(self, log: TrafficLog, revision: str | None, client_side: str = "out") -> None:
        self.log = log
        self.revision = revision
        self.client_side = client_side
        self.frames = [e for e in log if e.direction in ("in", "out") and e.channel != "stderr"]

    def side(self, event: TrafficEvent) -> str:
        return "client" if event.direction == self.client_side else "server"

    def ref(self, *events: TrafficEvent | None) -> ExchangeRef:
        return ExchangeRef(LOG, tuple(sorted({e.seq for e in events if e is not None}))[: SHOWN * 2])

    def era(self) -> str:
        return "legacy" if self.revision in LEGACY_VERSIONS else "modern"

    def opening(self) -> tuple[TrafficEvent | None, TrafficEvent | None]:
        """The initialize request and its result (legacy), or (None, None)."""
        for event in self.frames:
            if isinstance(event.message, Request) and event.message.method == "initialize":
                answer = self.log[event.response_seq] if event.response_seq is not None else None
                return event, answer
        return None, None

    def declared(self, side: str) -> dict[str, Any] | None:
        """The capabilities that side declared (legacy: in initialize; modern server: server/discover)."""
        request, _ = self.opening()
        if side == "client" and request is not None and isinstance(request.message, Request):
            params = request.message.params
            caps = params.get("capabilities") if isinstance(params, dict) else None
            return caps if isinstance(caps, dict) else {}
        if side == "server":
            for event in self.frames:
                if event.method in ("initialize", "server/discover") and isinstance(event.message, Response):
                    result = event.message.result
                    caps = result.get("capabilities") if isinstance(result, dict) else None
                    if isinstance(caps, dict):
                        return caps
        return None


def _raw(event: TrafficEvent) -> Any:
    try:
        return json.loads(event.raw)
    except ValueError:
        return None


def _list(items: list[str]) -> str:
    more = f" (and {len(items) - SHOWN} more)" if len(items) > SHOWN else ""
    return "; ".join(items[:SHOWN]) + more


# -- the rules ---------------------------------------------------------------------------------------
def judge_schema(s: Session) -> Outcome:
    if s.revision is None:
        return skipped("the recording shows no protocol revision (no initialize result, no modern _meta)")
    if s.revision not in REVISIONS:
        return skipped(f"mcpx ships no schema of revision {s.revision!r}")
    found: list[tuple[TrafficEvent, str]] = []
    for event in s.frames:
        request = s.log[event.request_seq] if event.request_seq is not None else None
        for problem in judge_frame(s.revision, event, request, client_side=s.client_side):
            found.append((event, problem))
    if found:
        shown = [f"#{e.seq} ({s.side(e)}, {e.method or 'answer'}) {p}" for e, p in found]
        return broken(
            f"{len(found)} problem(s) in {len({e.seq for e, _ in found})} frame(s) against the {s.revision} "
            f"schema: {_list(shown)}",
            s.ref(*(e for e, _ in found)),
        )
    return held(f"all {len(s.frames)} frames are valid against the {s.revision} schema")


def judge_pairing(s: Session) -> Outcome:
    unanswered, strays, twice = [], [], []
    last = s.frames[-1].seq if s.frames else 0
    for event in s.frames:
        message = event.message
        if isinstance(message, Request) and event.response_seq is None:
            unanswered.append(event)
        elif isinstance(message, (Response, ErrorResponse)):
            if any(f.startswith("duplicate answer") for f in event.flags):
                twice.append(event)
            elif event.request_seq is None and message.id is not None:
                strays.append(event)
    # a request still open when the recording ends may just have been cut off: not judged
    cut = [e for e in unanswered if e.seq >= last - 1 or e.method == "subscriptions/listen"]
    unanswered = [e for e in unanswered if e not in cut]
    problems = [f"#{e.seq}: {s.side(e)}'s {e.method} (id {_id(e)}) got no answer" for e in unanswered]
    problems += [f"#{e.seq}: {s.side(e)} answered id {_id(e)}, which no request carried" for e in strays]
    problems += [f"#{e.seq}: {s.side(e)} answered id {_id(e)} a second time" for e in twice]
    if problems:
        return broken(f"{len(problems)} problem(s): {_list(problems)}", s.ref(*unanswered, *strays, *twice))
    requests = sum(isinstance(e.message, Request) for e in s.frames)
    return held(f"all {requests - len(cut)} requests answered once, no answer without a request")


def _id(event: TrafficEvent) -> str:
    obj = _raw(event)
    return json.dumps(obj.get("id")) if isinstance(obj, dict) else "?"


def judge_ids(s: Session) -> Outcome:
    problems, events = [], []
    open_ids: dict[tuple[str, str], TrafficEvent] = {}
    for event in s.frames:
        obj = _raw(event)
        if not isinstance(obj, dict):
            continue
        if "method" in obj and "id" in obj:
            rid = obj["id"]
            if rid is None or isinstance(rid, bool) or not isinstance(rid, (str, int)):
                problems.append(f"#{event.seq}: {s.side(event)}'s {obj['method']} has id {json.dumps(rid)}")
                events.append(event)
            elif any("reused while still in flight" in f for f in event.flags):
                problems.append(f"#{event.seq}: {s.side(event)} reused id {json.dumps(rid)} while in flight")
                events.append(event)
            open_ids[(event.direction, str(rid))] = event
        elif ("result" in obj or "error" in obj) and event.request_seq is None and obj.get("id") is not None:
            # an answer whose id matches a request only as text: its JSON type changed on the way back
            origin = "out" if event.direction == "in" else "in"
            request = open_ids.get((origin, str(obj["id"])))
            sent = _raw(request).get("id") if request is not None else None
            if request is not None and type(sent) is not type(obj["id"]):
                problems.append(
                    f"#{event.seq}: {s.side(event)} answered id {json.dumps(sent)} as {json.dumps(obj['id'])}"
                )
                events += [request, event]
    if problems:
        return broken(f"{len(problems)} problem(s): {_list(problems)}", s.ref(*events))
    return held("every request id is a string or an integer, unique in flight, echoed with its type")


def judge_lifecycle(s: Session) -> Outcome:
    if s.revision is None:
        return skipped("the recording shows no protocol revision")
    if s.era() == "modern":
        bare = [
            e
            for e in s.frames
            if isinstance(e.message, Request) and s.side(e) == "client" and not _has_version(e.message.params)
        ]
        if bare:
            return broken(
                f"{len(bare)} modern request(s) without _meta {META_VERSION}: "
                + _list([f"#{e.seq} {e.method}" for e in bare]),
                s.ref(*bare),
            )
        return held("every modern request names its protocol version in _meta")
    problems, events = [], []
    request, answer = s.opening()
    first = next((e for e in s.frames if isinstance(e.message, Request) and s.side(e) == "client"), None)
    if request is None:
        return skipped("the recording has no initialize (it began after the handshake)")
    if first is not None and first is not request and first.method != "ping":
        problems.append(f"#{first.seq}: the client's first request is {first.method}, not initialize")
        events.append(first)
    ready = next(
        (
            e
            for e in s.frames
            if isinstance(e.message, Notification) and e.method == "notifications/initialized"
        ),
        None,
    )
    if answer is not None and ready is None:
        problems.append("the client never sent notifications/initialized")
    for event in s.frames:
        message = event.message
        if not isinstance(message, Request) or event is request or message.method == "ping":
            continue
        if s.side(event) == "client" and (answer is None or event.seq < answer.seq):
            problems.append(f"#{event.seq}: the client sent {message.method} before initialize was answered")
            events.append(event)
        if s.side(event) == "server" and (ready is None or event.seq < ready.seq):
            problems.append(
                f"#{event.seq}: the server sent {message.method} before notifications/initialized"
            )
            events.append(event)
    if problems:
        return broken(
            f"{len(problems)} problem(s): {_list(problems)}", s.ref(request, answer, ready, *events)
        )
    return held(
        "initialize first, then notifications/initialized, then the session", s.ref(request, answer, ready)
    )


def _has_version(params: Any) -> bool:
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and isinstance(meta.get(META_VERSION), str)


def judge_notification_replies(s: Session) -> Outcome:
    replies = []
    for index, event in enumerate(s.frames):
        message = event.message
        if not isinstance(message, (Response, ErrorResponse)) or event.request_seq is not None:
            continue
        before = s.frames[index - 1] if index else None
        status = event.facts.get("status")
        refused = isinstance(status, int) and 400 <= status < 500 and message.id is None  # HTTP allows it
        if (
            before is not None
            and isinstance(before.message, Notification)
            and s.side(before) != s.side(event)
            and not refused
        ):
            replies.append((before, event))
    if replies:
        shown = [f"#{r.seq}: the {s.side(r)} answered {n.method}" for n, r in replies]
        return broken(_list(shown), s.ref(*(e for pair in replies for e in pair)))
    count = sum(isinstance(e.message, Notification) for e in s.frames)
    return held(f"none of the {count} notifications was answered")


def judge_capabilities(s: Session) -> Outcome:
    if s.revision is None:
        return skipped("the recording shows no protocol revision")
    declared = {"server": s.declared("server"), "client": s.declared("client")}
    problems, events = [], []
    for event in s.frames:
        message = event.message
        if not isinstance(message, (Request, Notification)):
            continue
        need: tuple[str, str | None] | None
        if message.method in CLIENT_NEEDS:
            need, whose = CLIENT_NEEDS[message.method], "client"
        else:
            need, whose = _need(SERVER_NEEDS, message.method), "server"
        if need is None or (need[0] == "completions" and s.revision == "2024-11-05"):
            continue  # 2024-11-05 had no completions capability
        caps = declared[whose] if s.era() == "legacy" or whose == "server" else _meta_caps(message)
        if caps is None:
            continue  # the recording does not show what was declared
        capability, sub = need
        value = caps.get(capability)
        if not isinstance(value, dict) or (sub is not None and not value.get(sub)):
            what = f"{capability}.{sub}" if sub else capability
            problems.append(
                f"#{event.seq}: the {s.side(event)} used {message.method}; the {whose} did not declare {what}"
            )
            events.append(event)
    if problems:
        return broken(f"{len(problems)} problem(s): {_list(problems)}", s.ref(*events))
    return held("every method used was covered by a declared capability")


def _need(table: dict[str, tuple[str, str | None]], method: str) -> tuple[str, str | None] | None:
    for prefix, need in table.items():  # exact keys come before the prefixes they overlap
        if method == prefix or (prefix.endswith("/") and method.startswith(prefix)):
            return need
    return None


def _meta_caps(message: Request | Notification) -> dict[str, Any] | None:
    """Modern: the client's capabilities travel in each request's _meta."""
    meta = message.params.get("_meta") if isinstance(message.params, dict) else None
    caps = meta.get(META_CAPABILITIES) if isinstance(meta, dict) else None
    return caps if isinstance(caps, dict) else None


def _rule(
    id: str, title: str, rule: str, source: str, judge: Callable[[Session], Outcome]
) -> tuple[Check, Callable[[Session], Outcome]]:
    async def never(ctx: Any) -> Outcome:  # passive rules are judged on a recording, never run live
        raise NotImplementedError

    return Check(id, title, "MUST", " ".join(rule.split()), source, never), judge


def rules(revision: str | None) -> list[tuple[Check, Callable[[Session], Outcome]]]:
    rev = revision if revision in REVISIONS else LEGACY_VERSIONS[0]
    return [
        _rule(
            "recording.schema",
            "Every frame is valid against the JSON Schema of the revision in use",
            f"""MCP {rev} schema.json is the protocol's definition of every message ("the authoritative
            definition of the protocol" is schema.ts, from which schema.json is generated).""",
            f"{SPEC}/{rev}/schema",
            judge_schema,
        ),
        _rule(
            "recording.pairing",
            "Every request is answered once; no answer comes without a request",
            """JSON-RPC 2.0 §4: "When a rpc call is made, the Server MUST reply with a Response"; §5: the
            Response's id "MUST be the same as the value of the id member in the Request Object".""",
            f"{JSONRPC}#response_object",
            judge_pairing,
        ),
        _rule(
            "recording.ids",
            "Request ids are strings or integers, not null, unique in flight, echoed with their type",
            f"""MCP {rev} basic, Requests: "Requests MUST include a string or integer ID. Unlike base
            JSON-RPC, the ID MUST NOT be null. The request ID MUST NOT have been previously used by the
            requestor within the same session." JSON-RPC 2.0 §5: the response id "MUST be the same".""",
            f"{SPEC}/{rev}/basic#requests",
            judge_ids,
        ),
        _rule(
            "recording.lifecycle",
            "Lifecycle order: initialize, initialized, then the session (modern: _meta on each request)",
            f"""MCP {rev} lifecycle: "The initialization phase MUST be the first interaction between client
            and server"; "the client MUST send an initialized notification"; "The client SHOULD NOT send
            requests other than pings before the server has responded to the initialize request"; "The
            server SHOULD NOT send requests other than pings and logging before receiving the initialized
            notification." (2026-07-28: every request carries _meta {META_VERSION}.)""",
            f"{SPEC}/{rev}/basic/lifecycle#initialization",
            judge_lifecycle,
        ),
        _rule(
            "recording.notification-replies",
            "Notifications are not answered",
            """JSON-RPC 2.0 §4.1: "The Server MUST NOT reply to a Notification." MCP: "The receiver MUST
            NOT send a response." (Over Streamable HTTP a 4xx with an error that has no id is how a POST of a
            notification is refused, and is allowed.)""",
            f"{JSONRPC}#notification",
            judge_notification_replies,
        ),
        _rule(
            "recording.capabilities",
            "Neither side uses a capability the other did not declare",
            f"""MCP {rev} lifecycle, Operation: "Both parties MUST: Respect the negotiated protocol
            version; Only use capabilities that were successfully negotiated." """,
            f"{SPEC}/{rev}/basic/lifecycle#operation",
            judge_capabilities,
        ),
    ]


def revision_seen(log: TrafficLog) -> str | None:
    """The revision a session spoke, as its traffic shows it: the answer to `initialize`, else the
    version the first request's `_meta` names (the handshake-free era); None before either is seen."""
    for event in log:
        message = event.message
        if (
            event.method == "initialize"
            and isinstance(message, Response)
            and isinstance(message.result, dict)
        ):
            version = message.result.get("protocolVersion")
            if isinstance(version, str):
                return version
        if isinstance(message, Request) and isinstance(message.params, dict):
            meta = message.params.get("_meta")
            version = meta.get(META_VERSION) if isinstance(meta, dict) else None
            if isinstance(version, str):
                return version
    return None


def judge_recording(
    log: TrafficLog, revision: str | None, target: str, client_side: str = "out"
) -> CheckReport:
    """Judge a recorded session's traffic log: a report like `mcpx check`'s, its findings pointing into
    the recording (`recording#12` is event 12 of the file)."""
    session = Session(log, revision, client_side)
    report = CheckReport(target)
    report.main_era = session.era() if revision else ""
    report.eras = {session.era(): revision} if revision else {}
    for check, judge in rules(revision):
        outcome = judge(session)
        result = CheckResult(check, status_of(check, outcome), outcome.detail, outcome.exchanges)
        result.revision = revision or ""
        report.results.append(result)
    report.logs = {LOG: log}
    return report
