"""`open_transport()`: the one place a target becomes a transport (not started yet).

A command gets stdio; a URL gets Streamable HTTP, legacy HTTP+SSE, or `auto` (which probes), built in
`remote` — imported only for URLs so that stdio servers never pay for httpx.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcpx.errors import UsageError
from mcpx.target import ServerSpec
from mcpx.transports.base import Transport
from mcpx.transports.stdio import StdioTransport
from mcpx.wire import TrafficLog


def open_transport(
    target: ServerSpec,
    traffic: TrafficLog,
    *,
    headers: Mapping[str, str] | None = None,
    auth: Callable[[TrafficLog], Any] | None = None,
    http_transport: Any = None,
) -> Transport:
    """The transport `target` describes, reporting into `traffic`.

    `headers` go on every HTTP request over the target's own (they win on a clash); `auth` builds the
    `httpx.Auth` from the log (default: the target's own sign-in, if it has one); `http_transport`, an
    `httpx.AsyncBaseTransport`, makes a URL's requests (under the traffic tap) instead of httpx's own.
    """
    target.teach(traffic.secrets)
    if target.command is not None and target.transport in ("stdio", "auto"):
        return StdioTransport(target.command, traffic=traffic, env=target.env, cwd=target.cwd)
    if target.url is not None:
        from mcpx.transports.remote import open_url

        sign_in = auth if auth is not None else target.auth
        options: dict[str, Any] = {"headers": {**target.headers, **(headers or {})}}
        if sign_in is not None:
            options["auth"] = sign_in(traffic)
        if http_transport is not None:
            options["http_transport"] = http_transport
        return open_url(target.url, target.transport, target.secret_headers, traffic, **options)
    raise UsageError(f"the {target.transport} transport needs a URL, and {target.label!r} is a command")
