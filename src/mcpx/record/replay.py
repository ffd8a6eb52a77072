"""Replaying a recording against a live server: a server author's regression test.

The recorded client requests go out again, in order, from a client that introduces itself as the
recorded one did; when the server asks (elicitation, sampling, roots) it gets the recorded answers. Each
response is compared with the recorded one structurally (`jsondiff`):

- `same`: equal, or different only where an `--ignore` pattern says not to look;
- `changed`: different, with a list of paths;
- `missing`: the recording has an answer and the server gave none (no answer in time, or it died);
- `new`: the server answered where the recording has no answer (it ended before one came).

What the server asked during a request (elicitation, sampling) is part of the comparison
(`$.asked[…]`), so a changed elicitation form shows as drift too; `roots/list`, which servers ask when
they like, is answered but not compared. The opening exchange (`initialize` or `server/discover`) is the
first item.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from mcpx.errors import ConnectError, McpxError, RpcError
from mcpx.protocol.client import Client
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.session import open_session
from mcpx.record.jsondiff import Change, Pattern, diff, split_ignored
from mcpx.record.reader import Recording
from mcpx.record.session import (
    PLUMBING,
    Answer,
    Exchange,
    Outcome,
    all_answers,
    client_identity,
    client_notifications,
    client_requests,
    plain_params,
)
from mcpx.target import ServerSpec
from mcpx.wire.jsonrpc import Notification
from mcpx.wire.secret_policy import MASK
from mcpx.wire.traffic import TrafficEvent, TrafficLog

Status = Literal["same", "changed", "missing", "new"]
USER_REJECTED = -1


@dataclass(slots=True)
class ReplayItem:
    seq: int
    method: str
    label: str
    status: Status
    changes: list[Change] = field(default_factory=list)
    ignored: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    recorded: dict[str, Any] | None = None
    live: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seq": self.seq,
            "method": self.method,
            "label": self.label,
            "status": self.status,
            "changes": [c.to_json() for c in self.changes],
        }
        if self.ignored:
            out["ignored"] = [c.where for c in self.ignored]
        if self.notes:
            out["notes"] = self.notes
        if self.status in ("missing", "new"):
            out["recorded"], out["live"] = self.recorded, self.live
        return out


@dataclass(slots=True)
class ReplayReport:
    recording: str
    against: str
    era: str | None = None
    protocol_version: str | None = None
    items: list[ReplayItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counts = {"same": 0, "changed": 0, "missing": 0, "new": 0}
        for item in self.items:
            counts[item.status] += 1
        return counts

    @property
    def drift(self) -> bool:
        return any(item.status != "same" for item in self.items)

    def to_json(self) -> dict[str, Any]:
        return {
            "recording": self.recording,
            "against": self.against,
            "era": self.era,
            "protocol_version": self.protocol_version,
            "drift": self.drift,
            "summary": self.counts(),
            "items": [item.to_json() for item in self.items],
            "notes": self.notes,
        }


class RecordedAnswers:
    """The recorded client's answers, handed out per method: an equal question first, else in order."""

    def __init__(self, answers: Sequence[Answer]) -> None:
        self._by_method: dict[str, list[Answer]] = {}
        for answer in answers:
            self._by_method.setdefault(answer.method, []).append(answer)
        self._used: set[int] = set()
        #: what the server asked during the current request: (method, params)
        self.asked: list[dict[str, Any]] = []
        self.notes: list[str] = []

    def take(self, method: str, params: Any) -> Outcome | None:
        self.asked.append({"method": method, "params": plain_params(params)})
        candidates = self._by_method.get(method, [])
        fresh = [a for a in candidates if id(a) not in self._used]
        wanted = plain_params(params)
        chosen = next((a for a in fresh if plain_params(a.params) == wanted), None)
        if chosen is None and fresh:
            chosen = fresh[0]
        if chosen is None and candidates:
            chosen = candidates[-1]  # asked more often than recorded: the last answer again
        if chosen is None:
            return None
        self._used.add(id(chosen))
        return chosen.outcome

    def handler(self, method: str) -> Any:
        async def answer(params: Any) -> Any:
            outcome = self.take(method, params)
            if outcome is None:
                self.notes.append(f"the server asked for {method}, which the recording never answered")
                if method == "elicitation/create":
                    return {"action": "decline"}
                why = f"mcpx replay: the recording has no answer for {method}"
                raise RpcError(method, USER_REJECTED, why)
            if outcome.error is not None:
                error = outcome.error
                code, text = int(error.get("code", -1)), str(error.get("message", ""))
                raise RpcError(method, code, text, error.get("data"))
            return outcome.result

        return answer


#: what a server asks because of a request (roots are asked whenever the server likes: not compared)
COMPARED_ASKS = ("elicitation/create", "sampling/createMessage")


def _asked(answers: Sequence[Answer]) -> list[dict[str, Any]]:
    return [
        {"method": a.method, "params": plain_params(a.params)}
        for a in answers
        if a.within and a.method in COMPARED_ASKS
    ]


def compare(
    seq: int,
    method: str,
    label: str,
    recorded: dict[str, Any] | None,
    live: dict[str, Any] | None,
    ignore: Sequence[Pattern],
) -> ReplayItem:
    if recorded is None and live is None:
        return ReplayItem(seq, method, label, "same", notes=["no answer in the recording, none now"])
    if recorded is None:
        return ReplayItem(seq, method, label, "new", recorded=None, live=live)
    if live is None:
        return ReplayItem(seq, method, label, "missing", recorded=recorded, live=None)
    changes, ignored = split_ignored(diff(recorded, live), ignore)
    masked = [c for c in changes if _masked_alike(c)]
    notes = []
    if masked:
        changes = [c for c in changes if c not in masked]
        ignored = [*ignored, *masked]
        notes.append(f"{len(masked)} value(s) masked in the recording (secrets) taken as the same")
    return ReplayItem(seq, method, label, "changed" if changes else "same", changes, ignored, notes)


def _masked_alike(change: Change) -> bool:
    """A secret masked when the recording was written (`••••`) cannot be compared: the live value is
    the same where everything around the mask is (`token=••••` and `token=abc`)."""
    before, after = change.before, change.after
    if change.kind != "changed" or not isinstance(before, str) or not isinstance(after, str):
        return False
    if MASK not in before:
        return False
    pattern = ".+?".join(re.escape(part) for part in before.split(MASK))
    return re.fullmatch(pattern, after, re.DOTALL) is not None


async def replay(
    recording: Recording,
    spec: ServerSpec,
    options: SessionOptions,
    *,
    ignore: Sequence[Pattern] = (),
    traffic: TrafficLog | None = None,
) -> ReplayReport:
    """Re-issue the recording's client requests against `spec` and compare every response.

    `options` say how to connect; what the server asks is answered from the recording, as whom it names.
    """
    report = ReplayReport(os.fspath(recording.path), spec.label)
    exchanges = client_requests(recording)
    info, capabilities = client_identity(recording)
    answers = RecordedAnswers(all_answers(exchanges))
    roots = next((a.outcome.result for a in all_answers(exchanges) if a.method == "roots/list"), None)
    handlers: dict[str, Any] = {}
    if not capabilities or "elicitation" in capabilities:
        handlers["on_elicit"] = answers.handler("elicitation/create")
    if not capabilities or "sampling" in capabilities:
        handlers["on_sample"] = answers.handler("sampling/createMessage")
    if "roots" in capabilities or roots is not None:
        listed = roots.get("roots") if isinstance(roots, dict) else None
        handlers["roots"] = listed if isinstance(listed, list) else []
    options = replace(options, client_info=info, **handlers)
    client = open_session(spec, options, traffic=traffic)
    steps: list[Exchange | TrafficEvent] = [x for x in exchanges if x.method not in PLUMBING]
    steps += client_notifications(recording)
    steps.sort(key=lambda step: step.seq)
    async with client:
        opened = client.opened
        assert opened is not None
        report.era, report.protocol_version = opened.era, opened.protocol_version
        report.items.append(_opening(recording, opened.era, opened.raw, ignore))
        ended: str | None = None
        for step in steps:
            if isinstance(step, TrafficEvent):  # a notification the client sent
                message = step.message
                if ended is None and isinstance(message, Notification):
                    try:
                        await client.notify(message.method, plain_params(message.params))
                    except McpxError as exc:
                        ended = exc.message
                continue
            item, why = await _request(client, step, answers, ignore, ended)
            ended = ended or why
            report.items.append(item)
    return report


async def _request(
    client: Client, step: Exchange, answers: RecordedAnswers, ignore: Sequence[Pattern], ended: str | None
) -> tuple[ReplayItem, str | None]:
    """Send one recorded request again and compare; also returns why the connection ended, if it did."""
    answers.asked, answers.notes = [], []
    recorded = step.outcome.to_json() if step.outcome is not None else None
    if recorded is not None and _asked(step.answers):
        recorded["asked"] = _asked(step.answers)
    live: dict[str, Any] | None = None
    note: str | None = None
    gone: str | None = None
    if ended is not None:
        note = f"not sent: {ended}"
    else:
        try:
            live = {"result": await client.request(step.method, plain_params(step.params))}
        except RpcError as exc:
            error: dict[str, Any] = {"code": exc.error_code, "message": exc.error_message}
            if exc.data is not None:
                error["data"] = exc.data
            live = {"error": error}
        except ConnectError as exc:
            gone = note = exc.message.split("\n")[0]
        except McpxError as exc:  # a timeout, a protocol error: this request only
            note = exc.message
    asked = [a for a in answers.asked if a["method"] in COMPARED_ASKS]
    if live is not None and asked:
        live["asked"] = asked
    item = compare(step.seq, step.method, step.label, recorded, live, ignore)
    item.notes.extend(answers.notes)
    if note:
        item.notes.append(note)
    return item, gone


def _opening(recording: Recording, live_era: str, live_raw: Any, ignore: Sequence[Pattern]) -> ReplayItem:
    response = recording.opening()
    recorded_era = recording.era
    method = "initialize" if live_era == "legacy" else "server/discover"
    seq = response.seq if response is not None else -1
    if response is None:
        item = compare(seq, method, method, None, {"result": live_raw}, ignore)
        item.notes.append("the recording does not show how the session opened")
        return item
    recorded = Outcome.of(response)
    before = recorded.to_json() if recorded else None
    if recorded_era != live_era:
        # an initialize result and a discover result differ everywhere: say so once
        item = ReplayItem(seq, method, method, "changed", recorded=before, live={"result": live_raw})
        item.notes.append(f"the recorded session was {recorded_era}; the server now speaks {live_era}")
        return item
    item = compare(seq, method, method, before, {"result": live_raw}, ignore)
    return item
