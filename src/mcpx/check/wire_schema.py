"""Every frame against the official JSON Schema of the protocol revision in use.

The schemas are the spec repository's own `schema/<revision>/schema.json` files, shipped verbatim in
`mcpx/check/schemas/` (their commit and checksums are in `schemas/README.md`; a test holds the files to
them). A frame is judged by what it is: a request or a notification by the definition whose `method` is
its method (and by whether that side may send it: `ClientRequest`, `ServerNotification`, …), a result by
the result definition of the request it answers, an error by `JSONRPCError(Response)`.

`SchemaFlagger` is the same judgement as a traffic-log listener: it flags each frame that breaks the
schema (`TrafficLog.flag`), so any view of the log's problems (the TUI's Problems tab) shows it live.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from mcpx.wire import ErrorResponse, Malformed, Notification, Request, Response, TrafficEvent, TrafficLog

#: the revisions whose schema ships with mcpx
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
#: the prefix of every flag this module sets (a view may filter on it)
FLAG = "schema"
#: at most this many problems are told per frame
PER_FRAME = 3


@cache
def load(revision: str) -> dict[str, Any]:
    """The revision's schema.json, parsed (KeyError for a revision mcpx has none of)."""
    if revision not in REVISIONS:
        raise KeyError(revision)
    text = resources.files("mcpx.check").joinpath("schemas").joinpath(f"{revision}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@dataclass(slots=True)
class RevisionSchema:
    """One revision's schema, indexed by method and by side."""

    revision: str
    root: dict[str, Any]
    defs_key: str
    #: method → name of its request or notification definition
    methods: dict[str, str] = field(default_factory=dict)
    #: definition names each side may send: "client" / "server" → {definition name}
    sends: dict[str, set[str]] = field(default_factory=dict)
    _validators: dict[str, Any] = field(default_factory=dict)

    @property
    def defs(self) -> dict[str, Any]:
        defs: dict[str, Any] = self.root[self.defs_key]
        return defs

    def validator(self, name: str) -> Any:
        """A validator of definition `name`, resolving its references inside this schema."""
        if name not in self._validators:
            from jsonschema.validators import validator_for

            schema = {**self.root, "$ref": f"#/{self.defs_key}/{name}"}
            cls = validator_for(self.root)
            self._validators[name] = cls(schema)
        return self._validators[name]

    def problems(self, name: str, value: Any, where: str = "") -> list[str]:
        """What is wrong with `value` as an instance of definition `name`, in words (empty when valid);
        `where` names the place of `value` in the frame."""
        errors = sorted(self.validator(name).iter_errors(value), key=lambda e: list(e.absolute_path))
        return [_words(error, where) for error in _deepest(errors)[:PER_FRAME]]

    def result_of(self, method: str) -> str | None:
        """The definition of the result that answers `method` (None for a method this revision lacks)."""
        request = self.methods.get(method)
        if request is None:
            return None
        name = request.removesuffix("Request") + "Result"
        if name in self.defs:
            return name
        return "EmptyResult" if "EmptyResult" in self.defs else "Result"


@cache
def schema(revision: str) -> RevisionSchema:
    root = load(revision)
    key = "$defs" if "$defs" in root else "definitions"
    found = RevisionSchema(revision, root, key)
    for name, definition in root[key].items():
        method = definition.get("properties", {}).get("method", {}) if isinstance(definition, dict) else {}
        if isinstance(method, dict) and isinstance(method.get("const"), str):
            found.methods[method["const"]] = name
    for side, unions in (
        ("client", ("ClientRequest", "ClientNotification", "ClientResult")),
        ("server", ("ServerRequest", "ServerNotification", "ServerResult")),
    ):
        names: set[str] = set()
        for union in unions:
            for option in root[key].get(union, {}).get("anyOf", []):
                names.add(str(option.get("$ref", "")).rsplit("/", 1)[-1])
        found.sends[side] = names
    return found


def _deepest(errors: list[Any]) -> list[Any]:
    """For an anyOf/oneOf mismatch, the errors of the option the value meant to be (what a person can act
    on): options ruled out by a `const` (a content block's "type", a request's "method") are set aside."""
    out = []
    for error in errors:
        if not error.context:
            out.append(error)
            continue
        options: dict[Any, list[Any]] = {}
        for sub in error.context:
            options.setdefault(sub.schema_path[0] if sub.schema_path else None, []).append(sub)
        meant = [subs for subs in options.values() if not any(e.validator == "const" for e in subs)]
        chosen = min(meant or list(options.values()), key=len)
        out.extend(_deepest(chosen))
    return out


def _words(error: Any, where: str) -> str:
    path = "/".join(
        [where, *(str(p) for p in error.absolute_path)] if where else map(str, error.absolute_path)
    )
    return f"{path or 'the frame'}: {error.message[:200]}"


def judge_frame(
    revision: str,
    event: TrafficEvent,
    request: TrafficEvent | None = None,
    *,
    client_side: str = "out",
) -> list[str]:
    """What is wrong with one frame against the revision's schema (empty when nothing is, or when the frame
    is not a JSON-RPC message at all: that is a problem of its own, flagged where it was read).

    `client_side` is the direction in which the client's frames travel ("out" when mcpx was the client).
    `request` is the request a response answers (its method decides the result's definition).
    """
    if revision not in REVISIONS or event.direction not in ("in", "out"):
        return []
    message = event.message
    if message is None or isinstance(message, Malformed):
        return []
    try:
        obj = json.loads(event.raw)
    except ValueError:
        return []
    found = schema(revision)
    side = "client" if event.direction == client_side else "server"
    if isinstance(message, (Request, Notification)):
        name = found.methods.get(message.method)
        if name is None:
            return []  # a method this revision does not define (an extension's): nothing to hold it to
        problems = found.problems(name, obj)
        if found.sends.get(side) and name not in found.sends[side]:
            problems.insert(0, f"{message.method} is not something the {side} sends in {revision}")
        return problems
    if isinstance(message, ErrorResponse):
        name = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in found.defs else "JSONRPCError"
        return found.problems(name, obj)
    if isinstance(message, Response):
        envelope = "JSONRPCResultResponse" if "JSONRPCResultResponse" in found.defs else "JSONRPCResponse"
        problems = found.problems(envelope, obj)
        method = request.method if request is not None else None
        result = found.result_of(method) if method else None
        value = obj.get("result") if isinstance(obj, dict) else None
        if result is not None:
            if isinstance(value, dict) and value.get("resultType") == "input_required":
                result = "InputRequiredResult" if "InputRequiredResult" in found.defs else result
            params = getattr(request.message if request is not None else None, "params", None)
            if (
                isinstance(params, dict)
                and isinstance(params.get("task"), dict)
                and "CreateTaskResult" in found.defs
            ):
                result = (
                    "CreateTaskResult"  # a task-augmented request is answered with the task, not its result
                )
            problems += found.problems(result, value, "result")
        return problems[:PER_FRAME]
    return []


class SchemaFlagger:
    """Flags every frame of a traffic log that breaks the schema of the revision in use.

    The revision is learnt from the traffic itself (an `initialize` result's protocolVersion, a modern
    request's `_meta` version) unless given. `attach(log)` subscribes it (with replay: frames already in
    the log are judged too); problems appear as flags that start with "schema".

    Validation stays off the read path: inside a running event loop each frame is judged in a callback
    after the one that appended it (`call_soon`), and frames over `max_bytes` are not judged at all (a
    50 MB result is a problem of size, not of shape).
    """

    def __init__(
        self, revision: str | None = None, *, client_side: str = "out", max_bytes: int = 1_000_000
    ) -> None:
        self.revision = revision
        self.client_side = client_side
        self.max_bytes = max_bytes
        self.log: TrafficLog | None = None
        self.count = 0

    def attach(self, log: TrafficLog) -> None:
        self.log = log
        log.subscribe(self, replay=True)

    def __call__(self, event: TrafficEvent) -> None:
        if self.log is None or event.direction == "info" or event.channel == "stderr":
            return
        self._learn(event)  # cheap, and in order: a later frame's revision may depend on it
        if self.revision is None or len(event.raw) > self.max_bytes:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.judge(event)
        else:
            loop.call_soon(self.judge, event)

    def judge(self, event: TrafficEvent) -> None:
        if self.log is None or self.revision is None:
            return
        request = self.log[event.request_seq] if event.request_seq is not None else None
        for problem in judge_frame(self.revision, event, request, client_side=self.client_side):
            self.count += 1
            self.log.flag(event, f"{FLAG} {self.revision}: {problem}")

    def _learn(self, event: TrafficEvent) -> None:
        message = event.message
        if isinstance(message, Response) and event.method == "initialize":
            result = message.result
            version = result.get("protocolVersion") if isinstance(result, dict) else None
            if isinstance(version, str) and version in REVISIONS:
                self.revision = version
        elif isinstance(message, Request) and self.revision is None and isinstance(message.params, dict):
            meta = message.params.get("_meta")
            version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
            if isinstance(version, str) and version in REVISIONS:
                self.revision = version
