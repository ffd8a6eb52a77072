"""`mcpx.connect()`: the small library entry point for scripts and benchmarks.

async with mcpx.connect("./server.py") as client:
    tools = await client.list_tools()
    result = await client.call_tool("echo", {"text": "hi"})
    print(len(client.traffic))
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from mcpx.protocol.client import Client
from mcpx.protocol.options import AuthFactory, ServerRequestHandler, SessionOptions, check_era
from mcpx.protocol.session import open_session
from mcpx.target import ServerSpec, TransportName, resolve_target
from mcpx.wire import TrafficLog


@asynccontextmanager
async def connect(
    target: str | ServerSpec,
    args: Sequence[str] = (),
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    headers: Mapping[str, str] | None = None,
    transport: TransportName = "auto",
    timeout: float | None = 60.0,
    connect_timeout: float | None = None,
    protocol_era: str = "auto",
    protocol_version: str | None = None,
    probe_timeout: float = 2.0,
    traffic: TrafficLog | None = None,
    roots: list[dict[str, Any]] | None = None,
    on_elicit: ServerRequestHandler | None = None,
    on_sample: ServerRequestHandler | None = None,
    sampling: dict[str, Any] | None = None,
    auth: AuthFactory | None = None,
    max_total_timeout: float | None = None,
    options: SessionOptions | None = None,
) -> AsyncIterator[Client]:
    """Start or reach the server, open the conversation, and close everything on the way out.

    `headers` go on every HTTP request; `transport` is stdio, http (Streamable HTTP), sse (legacy
    HTTP+SSE) or auto. Both apply to a TARGET string; a `ServerSpec` carries its own. `auth` builds the
    `httpx.Auth` for a URL from the traffic log (e.g. `mcpx.auth.oauth_for(url)`). `options`, when given,
    replaces every keyword from `timeout` on (it is what `open_session()` takes).
    """
    if isinstance(target, ServerSpec):
        spec = target
    else:
        spec = resolve_target(target, args, env=env, cwd=cwd, headers=headers, transport=transport)
    if options is None:
        options = SessionOptions(
            era=check_era(protocol_era),
            protocol_version=protocol_version,
            probe_timeout=probe_timeout,
            timeout=timeout,
            connect_timeout=connect_timeout,
            auth=auth,
            roots=roots,
            on_elicit=on_elicit,
            on_sample=on_sample,
            sampling=sampling,
            max_total_timeout=max_total_timeout,
        )
    async with open_session(spec, options, traffic=traffic) as client:
        yield client
