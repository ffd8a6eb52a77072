"""JSON-RPC 2.0 framing, decoded leniently.

`decode()` turns any frame into exactly one of `Request`, `Notification`, `Response`, `ErrorResponse` or
`Malformed` and never raises: a debugger has to show what a broken server sent, not die on it. Decoding
keeps the parsed object (`.raw_obj`) next to the typed view so nothing of the frame is lost.

This module knows nothing of MCP.
"""

from __future__ import annotations

import json
import json.scanner
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import orjson

JsonId = int | str

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
#: how deep a frame may nest and still be decoded (deeper: a `Malformed` saying so)
MAX_DEPTH = 10_000


@dataclass(slots=True)
class Request:
    id: JsonId
    method: str
    params: Any = None

    def to_obj(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"jsonrpc": "2.0", "id": self.id, "method": self.method}
        if self.params is not None:
            obj["params"] = self.params
        return obj


@dataclass(slots=True)
class Notification:
    method: str
    params: Any = None

    def to_obj(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"jsonrpc": "2.0", "method": self.method}
        if self.params is not None:
            obj["params"] = self.params
        return obj


@dataclass(slots=True)
class Response:
    id: JsonId
    result: Any

    def to_obj(self) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": self.id, "result": self.result}


@dataclass(slots=True)
class ErrorResponse:
    id: JsonId | None
    code: int
    message: str
    data: Any = None

    def to_obj(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": self.id, "error": error}


@dataclass(slots=True)
class Malformed:
    """A frame that is not a usable JSON-RPC message; `reason` says why in one sentence.

    `id` is the request id the frame seems to answer, when it can be found, so a pending request fails at
    once with the reason instead of waiting for its timeout.
    """

    reason: str
    id: JsonId | None = None
    obj: Any = None


Message = Request | Notification | Response | ErrorResponse | Malformed


@dataclass(slots=True)
class Decoded:
    """What one frame decoded to: the text, the message and what was odd about it."""

    text: str
    message: Message
    flags: list[str] = field(default_factory=list)
    #: the frame's exact bytes when `text` is not them (invalid UTF-8 decoded with replacements)
    wire: bytes | None = None


_LONG_DIGITS = re.compile(rb"\d{19}")
_DIGITS = b"0123456789"
#: every digit to `0` (and nothing else changed): a run of 19 digits becomes 19 zeros, found by `in`
_DIGIT_MAP = bytes(48 if 48 <= c <= 57 else c for c in range(256))
_NINETEEN = b"0" * 19
_ID_GUESS = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def decode(raw: bytes) -> Decoded:
    """Decode one frame (a line without its newline). Never raises."""
    flags: list[str] = []
    wire = None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        flags.append(f"invalid UTF-8 at byte {exc.start} (decoded with replacement characters)")
        wire, raw = raw, text.encode("utf-8")
    obj, problem = _parse(raw, text)
    if problem is not None:
        return Decoded(text, Malformed(problem, _guess_id(raw)), flags, wire)
    return Decoded(text, classify(obj), flags, wire)


def decode_clean(raw: bytes, text: str, short_numbers: bool = False) -> Message | None:
    """`decode()`'s usual case in one step, for a frame already decoded to `text`: its message, or None
    when the frame is not a well-formed JSON-RPC message (then `decode()` says what is wrong with it).
    `short_numbers`: the caller knows the frame holds no run of 19 digits (it looked at many at once)."""
    if short_numbers or len(raw) - len(raw.translate(None, _DIGITS)) < 19:  # `_parse`'s test
        # the common frames without `_parse`'s tuple and `classify`'s walk: anything else, or anything
        # odd about them, goes the whole way below
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
        else:
            if type(obj) is dict and obj.get("jsonrpc") == "2.0":
                rid = obj.get("id")
                if "method" in obj:
                    method = obj["method"]
                    if type(method) is str:
                        if "id" not in obj:
                            return Notification(method, obj.get("params"))
                        if type(rid) is int or type(rid) is str:  # not a bool, as `classify` says
                            return Request(rid, method, obj.get("params"))
                elif "result" in obj and (type(rid) is int or type(rid) is str):
                    return Response(rid, obj["result"])
            message = classify(obj)
            return None if type(message) is Malformed else message
    obj, problem = _parse(raw, text)
    if problem is not None:
        return None
    message = classify(obj)
    return None if type(message) is Malformed else message


def long_numbers(data: bytes) -> bool:
    """Whether `data` holds a run of 19 digits or more (which orjson would read as a float): one look
    at many frames, for `decode_clean(short_numbers=…)`."""
    return _NINETEEN in data.translate(_DIGIT_MAP)


def decode_text(text: str) -> Decoded:
    """`decode()` of a frame that is already text (a recording's line); never raises."""
    obj, problem = _parse(text.encode("utf-8"), text)
    if problem is not None:
        return Decoded(text, Malformed(problem, _guess_id(text.encode("utf-8"))))
    return Decoded(text, classify(obj))


def _parse(raw: bytes, text: str) -> tuple[Any, str | None]:
    # orjson turns integers beyond 64 bits into floats (losing digits): a frame with a long run of
    # digits goes to the stdlib, which keeps them exact. Most frames hold fewer than 19 digits in all,
    # and counting them (one pass in C) costs a fraction of the regular expression's scan.
    if len(raw) - len(raw.translate(None, _DIGITS)) < 19 or _LONG_DIGITS.search(raw) is None:
        try:
            return orjson.loads(raw), None
        except orjson.JSONDecodeError:
            pass  # orjson refuses NaN and deep nesting: the stdlib decides
    try:
        return json.loads(text), None
    except RecursionError:
        return _parse_deep(text)
    except ValueError as exc:
        stripped = text.strip()
        if not stripped:
            return None, "empty line"
        preview = stripped[:60] + ("…" if len(stripped) > 60 else "")
        return None, f"not JSON ({exc.args[0] if exc.args else exc}): {preview!r}"


def _parse_deep(text: str) -> tuple[Any, str | None]:
    """A frame nested deeper than Python's recursion limit (~1,000): a 3,000-level schema is legal JSON
    and a server may send one, so the stdlib gets room for `MAX_DEPTH` levels (its scanner needs little
    C stack per level); deeper than that stays a diagnostic."""
    limit = sys.getrecursionlimit()
    if limit >= MAX_DEPTH + 200:
        return None, "JSON nested too deeply to decode"
    sys.setrecursionlimit(MAX_DEPTH + 200)
    try:
        return json.loads(text), None
    except RecursionError:
        if sys.version_info < (3, 12):
            return None, f"JSON nested too deeply to decode (more than {MAX_DEPTH:,} levels)"
    except ValueError as exc:
        return None, f"not JSON ({exc.args[0] if exc.args else exc})"
    finally:
        sys.setrecursionlimit(limit)
    return _parse_deep_in_python(text, limit)


def _parse_deep_in_python(text: str, limit: int) -> tuple[Any, str | None]:
    """From Python 3.12 the C scanner's nesting is bounded by the C recursion limit (a few thousand
    levels), which `sys.setrecursionlimit` no longer raises: a 3,000-level schema (6,000 JSON levels)
    decoded on 3.11 and was refused on 3.12. The stdlib's pure-Python scanner recurses in Python frames
    (two per level), which the recursion limit does bound and which take no C stack from 3.11 on."""
    decoder = json.JSONDecoder()
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    sys.setrecursionlimit(2 * MAX_DEPTH + 200)
    try:
        return decoder.decode(text), None
    except RecursionError:
        return None, f"JSON nested too deeply to decode (more than {MAX_DEPTH:,} levels)"
    except ValueError as exc:
        return None, f"not JSON ({exc.args[0] if exc.args else exc})"
    finally:
        sys.setrecursionlimit(limit)


def _guess_id(raw: bytes) -> JsonId | None:
    match = _ID_GUESS.search(raw[:4096])
    if match is None:
        return None
    token = match.group(1)
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, (int, str)) else None


def classify(obj: Any) -> Message:
    """Classify an already-parsed JSON value as a JSON-RPC message."""
    if isinstance(obj, list):
        return Malformed("a JSON array (a batch), which this protocol revision does not allow", obj=obj)
    if not isinstance(obj, dict):
        return Malformed(f"a JSON {type(obj).__name__}, not a JSON-RPC object", obj=obj)
    if obj.get("jsonrpc") != "2.0":
        rid = obj.get("id")
        return Malformed('missing "jsonrpc": "2.0"', rid if isinstance(rid, (int, str)) else None, obj)
    method = obj.get("method")
    has_id = "id" in obj
    rid = obj.get("id")
    if method is not None:
        if not isinstance(method, str):
            return Malformed('"method" is not a string', rid if isinstance(rid, (int, str)) else None, obj)
        if not has_id:
            return Notification(method, obj.get("params"))
        if isinstance(rid, bool) or not isinstance(rid, (int, str)):
            return Malformed('request "id" must be a string or an integer', None, obj)
        return Request(rid, method, obj.get("params"))
    if "result" in obj:
        if isinstance(rid, bool) or not isinstance(rid, (int, str)):
            return Malformed('response "id" must be a string or an integer', None, obj)
        return Response(rid, obj["result"])
    if "error" in obj:
        err = obj["error"]
        eid = rid if isinstance(rid, (int, str)) and not isinstance(rid, bool) else None
        if not isinstance(err, dict):
            return Malformed('"error" is not an object', eid, obj)
        code = err.get("code")
        message = err.get("message")
        if isinstance(code, bool) or not isinstance(code, int):
            return ErrorResponse(eid, INTERNAL_ERROR, f"(error without an integer code) {message!r}", err)
        return ErrorResponse(
            eid, code, message if isinstance(message, str) else repr(message), err.get("data")
        )
    return Malformed(
        'neither "method", "result" nor "error"', rid if isinstance(rid, (int, str)) else None, obj
    )


def encode(obj: Any) -> str:
    """Serialise an outgoing message as one line of compact JSON (no embedded newlines)."""
    try:
        return orjson.dumps(obj).decode("utf-8")
    except TypeError:
        # orjson refuses integers over 64 bits; the stdlib writes them
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
