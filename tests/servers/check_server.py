"""A hand-written stdio server that gets every rule `mcpx check` tests right, in both eras, except the one
named by argv[1]. Each mode breaks exactly one rule, and exactly one check must catch it.

Modern era (2026-07-28) for requests that carry the `_meta` envelope (and for any request before
`initialize`); legacy era after `initialize`. No SDK, standard library only, so it starts fast.

mode                   the rule it breaks                                              the check that catches it
none                   (none)                                                          —
modern-only            (none: it refuses initialize, naming the versions it speaks)    —
silent-on-garbage      a line that is not JSON gets no answer (what the SDKs do)       jsonrpc.parse-error
dies-on-garbage        a line that is not JSON makes it exit (mcpx starts it again)    jsonrpc.parse-error
mute-after-garbage     after a line that is not JSON it answers nothing, yet stays alive  jsonrpc.parse-error
wrong-unknown-code     an unknown method gets -32600, not -32601                       jsonrpc.method-not-found
answers-notifications  unknown notifications get an error reply with id null           jsonrpc.notification-no-reply
falsy-ids              ids 0 and "" are taken for notifications (no answer)            jsonrpc.id-echo
large-ids-as-doubles   ids beyond 2^53 come back rounded, as a JavaScript server would  jsonrpc.id-echo-large
string-ids-as-numbers  string ids that look like numbers ("42") come back as numbers     jsonrpc.id-echo
unknown-tool-result    an unknown tool is answered with an isError result              jsonrpc.unknown-tool
validation-rpc-error   invalid tool arguments get JSON-RPC -32602, not isError         jsonrpc.tool-error
stdout-banner          a banner line on stdout at start-up                             jsonrpc.stdout-clean
echo-unknown-version   initialize at an unknown version is answered with that version  legacy.version-negotiation
exit-before-initialize  exits when the first request is not initialize/discover       legacy.before-initialize
ping-not-empty         ping answers {"pong": true}                                     legacy.ping
no-server-info         initialize result without serverInfo                            legacy.initialize
bad-supported-versions  supportedVersions holds a number                              modern.discover
version-error-32602    an unknown protocol version gets -32602, not -32022              modern.version-negotiation
no-envelope-check      requests without the _meta envelope are served                  modern.envelope-required
no-result-type         modern results lack resultType                                  modern.result-type
no-cache-hints         modern list results lack ttlMs and cacheScope                   modern.cache-hints
no-meta-server-info    modern results lack _meta serverInfo                            modern.server-info
mute-refusal           modern only; refuses initialize with -32601 and no versions     modern.initialize-refusal
cursor-loops           the last tools page points back at itself                       catalogue.lists
unstable-order         each walk of tools/list starts somewhere else                   catalogue.stable-order
accepts-bad-cursor     an unknown cursor is answered with the first page               catalogue.invalid-cursor
bad-tool-name          a tool is named "add numbers!"                                  catalogue.tool-names
bad-input-schema       an inputSchema uses type "strnig"                               catalogue.input-schema
bad-output-schema      an outputSchema uses type 5                                     catalogue.output-schema
bad-header             x-mcp-header on a number property                               catalogue.x-mcp-header
bad-template           a resource template with an unclosed brace                      catalogue.uri-templates
duplicate-prompt-args  a prompt lists the same argument twice                          catalogue.prompt-arguments
lenient-prompt         prompts/get without a required argument succeeds                catalogue.prompt-missing-argument
wrong-mime             a resource reads back with another MIME type than listed        behaviour.resource-read
bad-image              a tool result holds an image whose data is not base64           behaviour.tool-results
bad-structured         structuredContent does not match the outputSchema               behaviour.structured-content
progress-backwards     progress goes 2, 1                                              behaviour.progress
ignores-cancel         a cancelled call is answered anyway                             behaviour.cancellation
only-2025-06-18        (none: legacy only at 2025-06-18, invalid arguments get -32602)  —
mute-on-bad-cursor     an unknown cursor makes it answer nothing more (alive): not a rule's finding  —
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "none"
MODERN = "2026-07-28"
LEGACY = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = {"name": "check-server", "version": "1.0.0"}
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
PAGE = 2
RO = {"readOnlyHint": True}

_out = sys.stdout.buffer
_lock = threading.Lock()
state: dict[str, Any] = {"initialized": False, "first": True, "walks": 0}
cancelled: set[Any] = set()


def send(obj: dict[str, Any], unless_cancelled: Any = None) -> None:
    """Write one message; with `unless_cancelled`, not if that request was cancelled — checked under the lock
    the cancel is recorded under, so a cancel read before the answer is written always wins."""
    text = json.dumps(obj, separators=(",", ":"))
    if MODE == "large-ids-as-doubles" and isinstance(obj.get("id"), int) and abs(obj["id"]) > 2**53:
        text = text.replace(str(obj["id"]), str(int(float(obj["id"]))), 1)
    if MODE == "string-ids-as-numbers" and isinstance(obj.get("id"), str):
        with contextlib.suppress(ValueError):
            text = json.dumps({**obj, "id": int(obj["id"])}, separators=(",", ":"))
    with _lock:
        if unless_cancelled is not None and unless_cancelled in cancelled and MODE != "ignores-cancel":
            return
        _out.write(text.encode() + b"\n")
        _out.flush()


def error(rid: Any, code: int, message: str, data: Any = None) -> None:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    send({"jsonrpc": "2.0", "id": rid, "error": err})


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


# -- the catalogue -------------------------------------------------------------------------------------
def tools() -> list[dict[str, Any]]:
    text_schema: dict[str, Any] = {"type": "string"}
    if MODE != "bad-header":
        text_schema["x-mcp-header"] = "Text"
    listed = [
        {
            "name": "echo",
            "inputSchema": {"type": "object", "properties": {"text": text_schema}, "required": ["text"]},
            "annotations": RO,
        },
        {
            "name": "add numbers!" if MODE == "bad-tool-name" else "add",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "integer"},
                    "weight": {
                        "type": "number",
                        **({"x-mcp-header": "Weight"} if MODE == "bad-header" else {}),
                    },
                },
                "required": ["a", "b"],
            },
            "outputSchema": {
                "type": "object",
                "properties": {"sum": {"type": 5 if MODE == "bad-output-schema" else "integer"}},
                "required": ["sum"],
            },
            "annotations": RO,
        },
        {
            "name": "slow",
            "inputSchema": {"type": "object", "properties": {"steps": {"type": "integer", "default": 10}}},
            "annotations": RO,
        },
        {
            "name": "picture",
            "inputSchema": {"type": "object", "additionalProperties": False},
            "annotations": RO,
        },
        {
            "name": "forget",
            "inputSchema": {
                "type": "object",
                "properties": {"key": {"type": "strnig" if MODE == "bad-input-schema" else "string"}},
            },
            "annotations": {"readOnlyHint": False, "destructiveHint": True},
        },
    ]
    return listed


RESOURCES = [
    {"uri": "test://readme", "name": "readme", "mimeType": "text/plain"},
    {"uri": "test://pixel.png", "name": "pixel", "mimeType": "image/png"},
]
TEMPLATES = [
    {"uriTemplate": "notes://{topic" if MODE == "bad-template" else "notes://{topic}", "name": "note"}
]
PROMPTS = [
    {"name": "greet", "arguments": [{"name": "who", "required": True}, {"name": "tone", "required": False}]},
    {
        "name": "plain",
        "arguments": [{"name": "style"}, {"name": "style"}] if MODE == "duplicate-prompt-args" else [],
    },
]


def page(items: list[dict[str, Any]], params: dict[str, Any], key: str) -> dict[str, Any]:
    """Two items per page; cursors are "p<offset>" (tools: "w<walk>p<offset>", so a walk stays stable)."""
    cursor = params.get("cursor")
    rotation = 0
    if cursor is None:
        offset = 0
        if key == "tools":
            state["walks"] += 1
            rotation = state["walks"] if MODE == "unstable-order" else 0
    else:
        try:
            walk, _, at = str(cursor).partition("p")
            rotation, offset = int(walk.lstrip("w") or 0), int(at)
        except ValueError:
            if MODE != "accepts-bad-cursor":
                raise RpcError(-32602, f"Invalid cursor: {cursor}") from None
            offset = 0
    rotated = items[rotation % len(items) :] + items[: rotation % len(items)]
    result: dict[str, Any] = {key: rotated[offset : offset + PAGE]}
    if offset + PAGE < len(items):
        result["nextCursor"] = f"w{rotation}p{offset + PAGE}"
    elif MODE == "cursor-loops" and key == "tools":
        result["nextCursor"] = f"w{rotation}p{offset}"
    return result


# -- handlers ------------------------------------------------------------------------------------------
def call_tool(rid: Any, params: dict[str, Any], modern: bool) -> dict[str, Any] | None:
    name, args = params.get("name"), params.get("arguments") or {}
    names = [t["name"] for t in tools()]
    if name not in names:
        if MODE == "unknown-tool-result":
            return text_result(f"Unknown tool: {name}", error=True)
        raise RpcError(-32602, f"Unknown tool: {name}")
    if name == "echo":
        if not isinstance(args.get("text"), str):
            return invalid("echo: 'text' must be a string")
        return text_result(args["text"])
    if name in ("add", "add numbers!"):
        if not isinstance(args.get("a"), int) or not isinstance(args.get("b"), int):
            return invalid("add: 'a' and 'b' must be integers")
        total = args["a"] + args["b"]
        structured = {"sum": str(total) if MODE == "bad-structured" else total}
        return {**text_result(json.dumps(structured)), "structuredContent": structured}
    if name == "slow":
        steps = args.get("steps", 10)
        if not isinstance(steps, int):
            return invalid("slow: 'steps' must be an integer")
        token = (params.get("_meta") or {}).get("progressToken")
        threading.Thread(target=run_slow, args=(rid, steps, token, modern), daemon=True).start()
        return None
    if name == "picture":
        data = "not base64!" if MODE == "bad-image" else PIXEL
        return {
            "content": [
                {"type": "image", "data": data, "mimeType": "image/png"},
                {"type": "resource_link", "uri": "test://pixel.png", "name": "pixel"},
                {
                    "type": "resource",
                    "resource": {"uri": "test://readme", "mimeType": "text/plain", "text": "hi"},
                },
            ]
        }
    return text_result("forgotten")


def invalid(message: str) -> dict[str, Any]:
    if MODE in ("validation-rpc-error", "only-2025-06-18"):
        raise RpcError(-32602, message)
    return text_result(message, error=True)


def text_result(text: str, *, error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if error:
        result["isError"] = True
    return result


def run_slow(rid: Any, steps: int, token: Any, modern: bool) -> None:
    values = [2, 1] if MODE == "progress-backwards" else range(1, steps + 1)
    for step in values:
        time.sleep(0.08)
        if rid in cancelled and MODE != "ignores-cancel":
            return
        if token is not None:
            notify = {"progressToken": token, "progress": step, "total": steps}
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": notify})
    if rid in cancelled and MODE != "ignores-cancel":
        return
    send(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "result": dress(text_result(f"counted to {steps}"), "tools/call", modern),
        },
        unless_cancelled=rid,
    )


def read_resource(params: dict[str, Any]) -> dict[str, Any]:
    uri = params.get("uri")
    if uri == "test://readme":
        mime = "text/markdown" if MODE == "wrong-mime" else "text/plain"
        return {"contents": [{"uri": uri, "mimeType": mime, "text": "Hello."}]}
    if uri == "test://pixel.png":
        return {"contents": [{"uri": uri, "mimeType": "image/png", "blob": PIXEL}]}
    raise RpcError(-32602, f"Resource not found: {uri}", {"uri": uri})


def get_prompt(params: dict[str, Any]) -> dict[str, Any]:
    name, args = params.get("name"), params.get("arguments") or {}
    if name == "greet":
        if "who" not in args and MODE != "lenient-prompt":
            raise RpcError(-32602, "Missing required argument: who")
        text = f"Say hello to {args.get('who', 'someone')}."
    elif name == "plain":
        text = "Say something."
    else:
        raise RpcError(-32602, f"Unknown prompt: {name}")
    return {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}


CAPABILITIES = {"tools": {}, "resources": {}, "prompts": {}}
CACHEABLE = {"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"}


def dress(result: dict[str, Any], method: str, modern: bool) -> dict[str, Any]:
    """What a modern result carries besides its fields: resultType, cache hints, serverInfo."""
    if not modern:
        return result
    out = dict(result)
    if MODE != "no-result-type":
        out["resultType"] = "complete"
    if (method in CACHEABLE or method == "resources/read") and MODE != "no-cache-hints":
        out.update(ttlMs=0, cacheScope="private")
    if MODE != "no-meta-server-info":
        out["_meta"] = {"io.modelcontextprotocol/serverInfo": SERVER_INFO}
    return out


def handle(method: str, params: dict[str, Any], rid: Any, modern: bool) -> dict[str, Any] | None:
    if method == "initialize" and MODE == "mute-refusal":
        raise RpcError(-32601, "Method not found")
    if method == "initialize" and MODE == "modern-only":
        data = {"supported": [MODERN], "requested": params.get("protocolVersion")}
        raise RpcError(-32602, f"This server speaks only {MODERN}", data)
    if method == "initialize":
        offered = params.get("protocolVersion")
        version = offered if offered in LEGACY or MODE == "echo-unknown-version" else LEGACY[0]
        if MODE == "only-2025-06-18":
            version = "2025-06-18"
        state["initialized"] = True
        result: dict[str, Any] = {"protocolVersion": version, "capabilities": CAPABILITIES}
        if MODE != "no-server-info":
            result["serverInfo"] = SERVER_INFO
        return result
    if method == "ping" and not modern:
        return {"pong": True} if MODE == "ping-not-empty" else {}
    if method == "server/discover":
        versions: list[Any] = [MODERN, 20260728] if MODE == "bad-supported-versions" else [MODERN]
        return {"supportedVersions": versions, "capabilities": CAPABILITIES}
    if method == "tools/list":
        return page(tools(), params, "tools")
    if method == "resources/list":
        return page(RESOURCES, params, "resources")
    if method == "resources/templates/list":
        return page(TEMPLATES, params, "resourceTemplates")
    if method == "prompts/list":
        return page(PROMPTS, params, "prompts")
    if method == "tools/call":
        return call_tool(rid, params, modern)
    if method == "resources/read":
        return read_resource(params)
    if method == "prompts/get":
        return get_prompt(params)
    code = -32600 if MODE == "wrong-unknown-code" else -32601
    raise RpcError(code, f"Method not found: {method}")


def envelope(params: dict[str, Any]) -> None:
    """Modern: the _meta envelope must name the version and the client's capabilities."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or META_VERSION not in meta or META_CAPS not in meta:
        if MODE == "no-envelope-check":
            return
        raise RpcError(-32602, "params._meta must carry protocolVersion and clientCapabilities")
    if meta[META_VERSION] != MODERN:
        if MODE == "version-error-32602":
            raise RpcError(-32602, "Unsupported protocol version")
        data = {"supported": [MODERN], "requested": meta[META_VERSION]}
        raise RpcError(-32022, "Unsupported protocol version", data)


def serve_line(line: bytes) -> None:
    try:
        message = json.loads(line)
    except ValueError:
        if MODE == "dies-on-garbage":
            sys.exit(1)
        if MODE == "mute-after-garbage":
            state["mute"] = True
            return
        if MODE != "silent-on-garbage":
            error(None, -32700, "Parse error")
        return
    if state.get("mute"):
        return
    params_ = message.get("params") if isinstance(message, dict) else None
    if (
        MODE == "mute-on-bad-cursor"
        and isinstance(params_, dict)
        and params_.get("cursor") == "mcpx-check-invalid-cursor"
    ):
        state["mute"] = True
        return
    if not isinstance(message, dict):
        error(None, -32600, "Invalid Request")
        return
    method, rid = message.get("method"), message.get("id")
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    if method is None:
        return  # a response: this server asks nothing
    if "id" not in message or (MODE == "falsy-ids" and not rid):
        if method == "notifications/cancelled":
            with _lock:
                cancelled.add(params.get("requestId"))
        elif MODE == "answers-notifications" and method.startswith("notifications/mcpx"):
            error(None, -32601, f"Method not found: {method}")
        return
    if state["first"]:
        state["first"] = False
        if MODE == "exit-before-initialize" and method not in ("initialize", "server/discover"):
            sys.exit(3)
    modern = method != "initialize" and (not state["initialized"] or "_meta" in params)
    if MODE == "only-2025-06-18":
        modern = (
            method != "initialize" and not state["initialized"]
        )  # a progress token's _meta is no envelope to this server
    if modern and MODE == "only-2025-06-18":
        error(rid, -32601, f"Method not found: {method}")  # a legacy-only server knows no modern request
        return
    try:
        if modern:
            envelope(params)
        result = handle(method, params, rid, modern)
    except RpcError as exc:
        error(rid, exc.code, exc.message, exc.data)
        return
    if result is not None:
        send({"jsonrpc": "2.0", "id": rid, "result": dress(result, method, modern)})


def main() -> None:
    if MODE == "stdout-banner":
        print("check-server 1.0 ready", flush=True)
    for line in sys.stdin.buffer:
        if line.strip():
            serve_line(line.strip())


if __name__ == "__main__":
    main()
