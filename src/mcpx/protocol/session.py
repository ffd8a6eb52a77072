"""The front door: `open_session()` is the one way a face or a feature gets a client, and `Session` (a
client's `.session`) answers what faces ask about the connection — so none reads a client's peer or
transport.

    from mcpx.protocol.options import SessionOptions
    from mcpx.protocol.session import open_session

    options = SessionOptions(era="auto", timeout=30, roots=[...], on_elicit=ask_the_user)
    async with open_session(target, options, traffic=log) as client:    # connects; closes on the way out
        tools = await client.list_tools()
        client.session.describe()        # transport facts: {"transport": "stdio", "pid": …, "url": …}
        client.session.transport_name    # "stdio", "http", "sse" (an `auto` URL: what it chose)
        client.session.in_flight         # requests of ours awaiting an answer
        await client.session.wait_closed()   # until the server goes away (or the client closes)
        client.session.ended             # why it ended (an McpxError), None while it goes on
        await client.session.reconnect()     # start the server again / reconnect, reopen in the same era

`open_session()` returns the client unconnected: `async with` connects it, or step by step,
`await client.start()` (the transport only: a doctor watches the process come up) then
`await client.open()` (the era's probe or handshake). `target` may also be a transport already built
(the in-memory pair in tests, a replay).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpx.protocol.client import Client
from mcpx.protocol.facade import Session
from mcpx.protocol.options import SessionOptions
from mcpx.target import ServerSpec
from mcpx.transports.base import Transport
from mcpx.transports.open import open_transport
from mcpx.wire import TrafficLog

if TYPE_CHECKING:
    from mcpx.protocol.eras import Era

_DEFAULTS = SessionOptions()


def open_session(
    target: ServerSpec | Transport,
    options: SessionOptions = _DEFAULTS,
    *,
    traffic: TrafficLog | None = None,
    era: Era | None = None,
) -> Client:
    """A client for `target` with `options`, not connected yet: `async with open_session(…) as client`.

    A `ServerSpec` is opened into its transport reporting into `traffic` (a new log by default); a
    transport is used as it is (it already reports into its own log). `era` replaces the strategy the
    options name (a check holds each era's connection by its own strategy).
    """
    if isinstance(target, ServerSpec):
        transport = open_transport(
            target,
            traffic if traffic is not None else TrafficLog(),
            headers=options.headers,
            auth=options.auth,
        )
        key: str | None = target.label
    else:
        transport, key = target, None
    client = Client(
        transport,
        era=era if era is not None else options.make_era(key),
        timeout=options.timeout,
        connect_timeout=options.connect_timeout,
        max_total_timeout=options.max_total_timeout,
        client_info=dict(options.client_info) if options.client_info is not None else None,
        **options.handlers(),
    )
    for name, settings in options.extensions.items():
        client.declare_extension(name, dict(settings))
    return client


__all__ = ["Session", "SessionOptions", "open_session"]
