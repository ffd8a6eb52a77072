"""What `mcpx call` does once its flags are read, by typer (call.py) or without it (call_argv.py): check
the flags, connect, send one request, print its result, and say how it went as an exit code."""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from mcpx.cli import connection as o
from mcpx.cli.answers import elicitation_handler, roots_from_flags, sampling_handler
from mcpx.cli.output import TrafficPrinter, print_result, release_stdout
from mcpx.errors import ConnectError, McpxError, RequestTimeoutError, RpcError, ToolError, UsageError
from mcpx.protocol.client import Client
from mcpx.protocol.names import LIST_OF_METHOD, LOG_LEVELS
from mcpx.protocol.options import SessionOptions
from mcpx.protocol.session import open_session
from mcpx.target import ServerSpec
from mcpx.wire.traffic import TrafficLog

if TYPE_CHECKING:
    from mcpx.cli.recording import RecordingPlan

#: `--max-total-timeout`'s default: generous (a build or a crawl with progress may take minutes), yet a
#: server that reports progress forever cannot hold a script for ever (the official inspector's
#: MCP_REQUEST_MAX_TOTAL_TIMEOUT plays this part)
MAX_TOTAL_TIMEOUT = 600.0
#: the event loop: `mcpx call` sends one request (a few more to page through a list), and uvloop, faster
#: by ~30 µs a frame, costs more than that once: its import and a fork without vfork per spawn (~8 ms of
#: CPU a run, docs/performance.md); MCPX_LOOP=uvloop still picks it
LOOP = "asyncio"
#: record.format.RECORD_DIR_ENV (a test holds them equal): a run that records nothing imports no recorder
RECORD_DIR_ENV = "MCPX_RECORD_DIR"


class CallRequest:
    """What `mcpx call`'s flags ask for, as given. A plain class, not a dataclass: it is built once per
    run, and a dataclass's generated methods are compiled at import (~1.2 ms of start-up at load 5)."""

    def __init__(
        self,
        method: str,
        tool_name: str | None,
        tool_args: list[str],
        tool_args_json: str | None,
        uri: str | None,
        prompt_name: str | None,
        prompt_args: list[str],
        params: str | None,
        cursor: str | None,
        log_level: str | None,
        verify: bool = False,
        task: bool = False,
    ) -> None:
        self.method, self.tool_name, self.tool_args = method, tool_name, tool_args
        self.tool_args_json, self.uri, self.prompt_name = tool_args_json, uri, prompt_name
        self.prompt_args, self.params, self.cursor = prompt_args, params, cursor
        self.log_level, self.verify, self.task = log_level, verify, task

    def check(self) -> None:
        """Refuse what cannot work before any server is started."""
        needs = {
            "tools/call": ("--tool-name", self.tool_name),
            "resources/read": ("--uri", self.uri),
            "resources/subscribe": ("--uri", self.uri),
            "resources/unsubscribe": ("--uri", self.uri),
            "prompts/get": ("--prompt-name", self.prompt_name),
            "logging/setLevel": ("--log-level", self.log_level),
        }
        flag, value = needs.get(self.method, ("", "ok"))
        if value is None and self.params is None:
            raise UsageError(f"--method {self.method} needs {flag}")
        if self.log_level is not None and self.log_level not in LOG_LEVELS:
            raise UsageError(f"--log-level must be one of {', '.join(LOG_LEVELS)}, not {self.log_level!r}")
        if self.method == "completion/complete" and self.params is None:
            raise UsageError('--method completion/complete needs --params \'{"ref": {…}, "argument": {…}}\'')
        if self.method.startswith("skills/") or self.verify:
            from mcpx.cli import skills_call

            skills_call.check(self.method, self.uri, o.parse_params(self.params), self.verify)
        # parse now so a malformed argument fails before the server starts
        o.parse_tool_args(self.tool_args, self.tool_args_json)
        o.parse_pairs(self.prompt_args, "--prompt-args", "key=value")
        o.parse_params(self.params)


def prepare(
    *,
    connection: o.ConnectionOptions,
    method: str | None = None,
    tool_name: str | None = None,
    tool_arg: list[str] | None = None,
    tool_args_json: str | None = None,
    uri: str | None = None,
    prompt_name: str | None = None,
    prompt_args: list[str] | None = None,
    params: str | None = None,
    cursor: str | None = None,
    log_level: str | None = None,
    verify: bool = False,
    task: bool = False,
    advertise_apps: bool = False,
    max_total_timeout: float = MAX_TOTAL_TIMEOUT,
    elicit: str | None = None,
    sample: str | None = None,
    root: list[str] | None = None,
    fmt: str = "text",
    traffic: bool = False,
    record: str | None = None,
    record_secrets: bool = False,
) -> Callable[[], Coroutine[Any, Any, int]]:
    """The call the flags ask for: a `prepare` for `main.execute` / `main.outcome` (it checks the flags,
    raising `UsageError` before any server starts, and returns the coroutine that does the call)."""
    request = CallRequest(
        method or "",
        tool_name,
        tool_arg or [],
        tool_args_json,
        uri,
        prompt_name,
        prompt_args or [],
        params,
        cursor,
        log_level,
        verify,
        task,
    )

    def checked() -> Coroutine[Any, Any, int]:
        if method is None:
            raise UsageError("--method is required (for example --method tools/list)")
        o.check_format(fmt)
        request.check()
        spec = connection.spec()
        if max_total_timeout < 0:
            raise UsageError("--max-total-timeout must be 0 (no bound) or more seconds")
        options = connection.session(
            on_elicit=elicitation_handler(elicit),
            on_sample=sampling_handler(sample),
            roots=roots_from_flags(root),
            max_total_timeout=max_total_timeout or None,
            extensions=_apps() if advertise_apps else {},
        )
        recording = None
        if record is not None or record_secrets or os.environ.get(RECORD_DIR_ENV):
            from mcpx.cli.recording import RecordingPlan

            recording = RecordingPlan.from_flags(record, record_secrets, spec, options.pinned_era)
        run = _run(spec, options, request, fmt, traffic, recording)
        return recording.run(run) if recording is not None else run

    return checked


def _apps() -> dict[str, Any]:
    """`--advertise-apps`: the MCP Apps extension, declared as a client that can show apps does."""
    from mcpx.protocol import apps

    return {apps.APPS_EXTENSION: apps.capability()}


async def _run(
    spec: ServerSpec,
    options: SessionOptions,
    request: CallRequest,
    fmt: str,
    traffic: bool,
    recording: RecordingPlan | None = None,
) -> int:
    log = TrafficLog()
    if recording is not None:
        recording.attach(log)
    if traffic:
        TrafficPrinter(log).attach()
    client = open_session(spec, options, traffic=log)
    try:
        await client.connect()
    except (ConnectError, RequestTimeoutError) as exc:
        await client.close()
        from mcpx.target import command_line

        exc.message += f"\n(run `{command_line('doctor', spec)}` to walk the connection step by step)"
        raise log.secrets.error(exc) from None
    except McpxError as exc:
        await client.close()
        raise log.secrets.error(exc) from None
    except BaseException:
        await client.close()
        raise
    try:
        async with client:
            result, failure = await _send(client, request)
            print_result(result, fmt, secrets=log.secrets, method=request.method)
            release_stdout()  # the answer is complete: stopping the server comes after, unseen by a pipe
            if failure is not None:
                raise failure
    except McpxError as exc:
        raise log.secrets.error(exc) from None
    return 0


async def _send(client: Client, request: CallRequest) -> tuple[Any, McpxError | None]:
    """The result to print, and the failure to raise once it is printed (a tool error, a failed check)."""
    method = request.method
    params = o.parse_params(request.params)
    if request.log_level is not None and method != "logging/setLevel":
        # modern: the level rides in each request's _meta, which servers honour without advertising
        # logging; legacy: logging/setLevel only where the server has the capability (else it is -32601)
        modern = client.opened is not None and client.opened.era == "modern"
        if modern or "logging" in client.server_capabilities:
            await client.set_logging_level(request.log_level)
    if method == "initialize":
        return client.opened.raw if client.opened else None, None
    if method in ("skills/list", "skills/get"):
        from mcpx.cli import skills_call

        result, problems = await skills_call.send(
            client, method, request.uri, params, request.cursor, request.verify
        )
        return result, skills_call.failed(problems) if problems else None
    if method in LIST_OF_METHOD:
        if request.cursor is not None or params is not None:
            merged = {**(params or {}), **({"cursor": request.cursor} if request.cursor is not None else {})}
            return await client.request(method, merged or None), None
        return await client.list_all(method, LIST_OF_METHOD[method]), None
    params = dict(params or {})
    if method == "tools/call":
        if request.tool_name is not None:
            params["name"] = request.tool_name
        arguments = o.parse_tool_args(request.tool_args, request.tool_args_json)
        if arguments is not None:
            params["arguments"] = {**params.get("arguments", {}), **arguments}
        try:
            if request.task or await _task_required(client, str(params.get("name") or "")):
                # created now, finished later: polled, and its result awaited (protocol/tasks.py)
                result = await client.tasks.call_tool(
                    str(params.get("name") or ""), params.get("arguments"), meta=params.get("_meta")
                )
            else:
                # a progress token lets the server's progress restart the timeout (and shows in --traffic)
                result = await client.request(method, params, on_progress=_ignore_progress)
        except RpcError as exc:
            raise ToolError(
                f"tool {params.get('name')!r} failed: {exc.error_message} (JSON-RPC error {exc.error_code})",
                tool=params.get("name"),
                rpc_code=exc.error_code,
                data=exc.data,
            ) from None
        if isinstance(result, dict) and result.get("isError") is True:
            return result, ToolError(
                _tool_error_message(str(params.get("name") or ""), result), tool=params.get("name")
            )
        return result, None
    if (
        method in ("resources/read", "resources/subscribe", "resources/unsubscribe")
        and request.uri is not None
    ):
        params["uri"] = request.uri
    elif method == "prompts/get":
        if request.prompt_name is not None:
            params["name"] = request.prompt_name
        prompt_args = o.parse_pairs(request.prompt_args, "--prompt-args", "key=value")
        if prompt_args:
            params["arguments"] = {**params.get("arguments", {}), **prompt_args}
    elif method == "logging/setLevel" and request.log_level is not None:
        params["level"] = request.log_level
    return await client.request(method, params or None), None


async def _task_required(client: Client, name: str) -> bool:
    """The tool must be called as a task: asked only of a server that declares task-augmented tools/call
    (so other servers see no extra tools/list)."""
    if not client.tasks.tool_calls:
        return False
    from mcpx.protocol.tasks import task_support

    tools = {tool.name: tool for tool in await client.list_tools()}
    return name in tools and task_support(tools[name]) == "required"


def _ignore_progress(progress: float, total: float | None, message: str | None) -> None:
    return None


def _tool_error_message(name: str, result: Any) -> str:
    text = ""
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        texts = [
            b.get("text", "") for b in result["content"] if isinstance(b, dict) and b.get("type") == "text"
        ]
        text = " ".join(t for t in texts if isinstance(t, str)).strip()
    if len(text) > 300:
        text = text[:300] + "…"
    return f"tool {name!r} returned an error" + (f": {text}" if text else "")
