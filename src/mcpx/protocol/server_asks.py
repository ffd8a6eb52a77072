"""What the server may ask of a client, and how the client answers: the handlers it was given for roots,
elicitation and sampling, the capabilities they declare, and the tasks the server may ask of it instead
(`TaskServer`, in tasks.py), all registered on the peer.

Legacy server→client requests and the handshake-free era's input requests are answered by the same
handlers (`answer()`); a handler that may wait on a person holds the client's request timers meanwhile.
Composed from the peer and the session's `Tasks`, not the whole client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcpx.errors import McpxError
from mcpx.protocol.options import ServerRequestHandler
from mcpx.protocol.peer import IncomingRequest, Peer
from mcpx.protocol.tasks import Tasks, TaskServer


class ServerAsks:
    """The answers a client gives the server, and the capabilities that say it will."""

    def __init__(
        self,
        peer: Peer,
        tasks: Tasks,
        *,
        roots: list[dict[str, Any]] | None = None,
        on_elicit: ServerRequestHandler | None = None,
        on_sample: ServerRequestHandler | None = None,
        sampling: dict[str, Any] | None = None,
    ) -> None:
        self.peer = peer
        self.roots = roots
        #: how many times the server asked for the roots
        self.roots_asked = 0
        #: what the handlers declare (the client's `capabilities`)
        self.capabilities: dict[str, Any] = {}
        #: method → handler: legacy server→client requests and modern input requests alike
        self.handlers: dict[str, ServerRequestHandler] = {}
        capabilities, handlers = self.capabilities, self.handlers
        if roots is not None:
            capabilities["roots"] = {"listChanged": True}
            handlers["roots/list"] = self._answer_roots
        if on_elicit is not None:
            capabilities["elicitation"] = {"form": {}, "url": {}}
            handlers["elicitation/create"] = self._patient(on_elicit)
        if on_sample is not None:
            capabilities["sampling"] = dict(sampling or {})
            handlers["sampling/createMessage"] = self._patient(on_sample)
        if handlers.keys() & {"sampling/createMessage", "elicitation/create"}:
            served = TaskServer(tasks)
            capabilities["tasks"] = TaskServer.capability(list(handlers))
            for method in ("sampling/createMessage", "elicitation/create"):
                if method in handlers:
                    handlers[method] = served.wrap(method, handlers[method])
            for name in ("get", "result", "list", "cancel"):
                peer.on_request(f"tasks/{name}", _adapt(getattr(served, name)))
        for method, handler in handlers.items():
            peer.on_request(method, _adapt(handler))

    async def answer(self, method: str, params: Any) -> Any:
        """Answer one thing the server asks with the handlers this client was given."""
        handler = self.handlers.get(method)
        if handler is None:
            raise McpxError(f"the server asked for {method}, which this client was not set up to answer")
        return await handler(params)

    async def _answer_roots(self, params: Any) -> dict[str, Any]:
        self.roots_asked += 1
        return {"roots": list(self.roots or [])}

    def _patient(self, handler: ServerRequestHandler) -> ServerRequestHandler:
        """A handler that may wait on a person: no request of ours times out meanwhile."""

        async def answer(params: Any) -> Any:
            with self.peer.hold_timers():
                return await handler(params)

        return answer


def _adapt(handler: ServerRequestHandler) -> Callable[[Any, IncomingRequest], Awaitable[Any]]:
    async def answer(params: Any, request: IncomingRequest) -> Any:
        return await handler(params)

    return answer
