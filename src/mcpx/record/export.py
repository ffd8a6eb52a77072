"""A recording written for other tools: HAR 1.2 (browser devtools, HAR viewers) or OTLP/JSON traces
(OpenTelemetry collectors, Jaeger, Tempo…).

One entry (HAR) or one span (OTLP) per JSON-RPC exchange, in the order the requests were sent: a request
with its answer, or a notification alone. The client's side (`out`: mcpx's or, through `mcpx proxy`, the
host's) and the server's (`in`: the server's own requests, such as sampling) are both kept and told
apart (`_direction` in HAR, the span kind in OTLP). The frames are the recording's `raw` text, masked as
the recording was. A frame that was not JSON-RPC is an exchange of its own, marked malformed.

HAR is about HTTP, MCP is not always: over stdio an entry's URL is `stdio:` followed by the server's
label, its method is POST and its status 200 (an answer came) or 0 (none did); over HTTP the URL is the
server's. What HAR has no field for is in underscore fields, as HAR allows (`_mcpMethod`, `_id`,
`_direction`, `_flags`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from mcpx.__about__ import __version__
from mcpx.record.format import iso
from mcpx.record.reader import Recording
from mcpx.wire.jsonrpc import ErrorResponse, Malformed, Notification, Request
from mcpx.wire.traffic import TrafficEvent

ExportFormat = Literal["har", "otlp-json"]
FORMATS: tuple[ExportFormat, ...] = ("har", "otlp-json")


@dataclass(slots=True)
class Exchange:
    """A request (or a notification, or a malformed frame) and its answer, if one came."""

    first: TrafficEvent
    answer: TrafficEvent | None


def exchanges(recording: Recording) -> Iterator[Exchange]:
    log = recording.log
    for event in log:
        message = event.message
        if event.channel in ("stderr", "process", "protocol") or message is None:
            continue
        if isinstance(message, (Request, Notification)):
            yield Exchange(event, log.find_response(event))
        elif isinstance(message, Malformed) and event.request_seq is None:
            yield Exchange(event, None)


def _wall(recording: Recording, event: TrafficEvent) -> float:
    return recording.log.started_wall + recording.log.elapsed(event)


def _url(recording: Recording) -> str:
    target = recording.header.get("target")
    if isinstance(target, dict) and isinstance(target.get("url"), str):
        return str(target["url"])
    return "stdio:" + recording.target


def to_har(recording: Recording) -> dict[str, Any]:
    entries = [_har_entry(recording, exchange) for exchange in exchanges(recording)]
    started = recording.header.get("started") or iso(recording.log.started_wall)
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "mcpx", "version": __version__},
            "pages": [
                {"startedDateTime": started, "id": "session", "title": recording.target, "pageTimings": {}}
            ],
            "entries": entries,
            "comment": f"mcpx recording {recording.path} ({recording.era} era)",
        }
    }


def _har_entry(recording: Recording, exchange: Exchange) -> dict[str, Any]:
    first, answer = exchange.first, exchange.answer
    wait = (answer.mono - first.mono) * 1000 if answer is not None else 0.0
    request_text = first.raw
    answer_text = answer.raw if answer is not None else ""
    entry: dict[str, Any] = {
        "pageref": "session",
        "startedDateTime": iso(_wall(recording, first)),
        "time": round(wait, 3),
        "request": {
            "method": "POST",
            "url": _url(recording),
            "httpVersion": "HTTP/1.1" if first.channel in ("http", "sse") else "stdio",
            "cookies": [],
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "queryString": [],
            "postData": {"mimeType": "application/json", "text": request_text},
            "headersSize": -1,
            "bodySize": len(request_text.encode()),
        },
        "response": {
            "status": 200 if answer is not None else 0,
            "statusText": "OK" if answer is not None else "",
            "httpVersion": "HTTP/1.1" if first.channel in ("http", "sse") else "stdio",
            "cookies": [],
            "headers": [],
            "content": {
                "size": len(answer_text.encode()),
                "mimeType": "application/json",
                "text": answer_text,
            },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(answer_text.encode()),
        },
        "cache": {},
        "timings": {"send": 0, "wait": round(wait, 3), "receive": 0},
        "_direction": "client→server" if first.direction == "out" else "server→client",
        "_mcpMethod": first.method,
        "_id": first.rpc_id,
    }
    flags = [*first.flags, *(answer.flags if answer is not None else [])]
    if flags:
        entry["_flags"] = flags
    if isinstance(first.message, Notification):
        entry["_notification"] = True
    return entry


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": str(value)}}


def _nanos(seconds: float) -> str:
    return str(round(seconds * 1e9))


def to_otlp(recording: Recording) -> dict[str, Any]:
    """OTLP/JSON (the collector's `/v1/traces` body): one trace for the session, one span per exchange."""
    seed = f"{recording.path}|{recording.header.get('started_wall')}".encode()
    trace_id = hashlib.sha256(seed).hexdigest()[:32]
    spans = []
    for exchange in exchanges(recording):
        first, answer = exchange.first, exchange.answer
        start = _wall(recording, first)
        end = _wall(recording, answer) if answer is not None else start
        attributes = [_attr("rpc.system", "jsonrpc"), _attr("network.transport", first.channel)]
        if first.method:
            attributes.append(_attr("mcp.method.name", first.method))
        if first.rpc_id is not None:
            attributes.append(_attr("jsonrpc.request.id", str(first.rpc_id)))
        status: dict[str, Any] = {"code": 1} if answer is not None else {"code": 0}
        if answer is not None and isinstance(answer.message, ErrorResponse):
            status = {"code": 2, "message": str(answer.message.message)}
            attributes.append(_attr("rpc.jsonrpc.error_code", int(answer.message.code)))
        if isinstance(first.message, Malformed):
            status = {"code": 2, "message": first.flags[0] if first.flags else "malformed"}
        flags = [*first.flags, *(answer.flags if answer is not None else [])]
        if flags:
            attributes.append(_attr("mcpx.flags", "; ".join(flags)))
        span_id = hashlib.sha256(f"{trace_id}|{first.seq}".encode()).hexdigest()[:16]
        spans.append(
            {
                "traceId": trace_id,
                "spanId": span_id,
                "name": first.method or "malformed frame",
                # CLIENT for what the client sent, SERVER for the server's own requests to it
                "kind": 3 if first.direction == "out" else 2,
                "startTimeUnixNano": _nanos(start),
                "endTimeUnixNano": _nanos(end),
                "attributes": attributes,
                "status": status,
            }
        )
    resource = [_attr("service.name", _server_name(recording)), _attr("mcpx.target", recording.target)]
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": resource},
                "scopeSpans": [{"scope": {"name": "mcpx", "version": __version__}, "spans": spans}],
            }
        ]
    }


def _server_name(recording: Recording) -> str:
    opening = recording.opening()
    message = opening.message if opening is not None else None
    result = getattr(message, "result", None)
    if isinstance(result, dict):
        info = result.get("serverInfo")
        if not isinstance(info, dict):
            meta = result.get("_meta")
            info = meta.get("io.modelcontextprotocol/serverInfo") if isinstance(meta, dict) else None
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            return str(info["name"])
    return recording.target


def export(recording: Recording, fmt: ExportFormat) -> dict[str, Any]:
    return to_har(recording) if fmt == "har" else to_otlp(recording)
