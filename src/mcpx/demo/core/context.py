"""What a handler knows about the request it serves, and how it talks back — the same in both eras.

`ask()` is the one way to get something from the client (elicitation, sampling, roots):

- legacy era: it sends server→client requests over the peer and waits (no timeout: a human may answer);
- modern era (2026-07-28): the server may not send requests, so `ask()` raises `InputRequired`; the core
  answers the call with an `input_required` result listing what it needs and a sealed `requestState`.
  The client re-sends the call with `inputResponses`; the handler runs again from the top, and this time
  `ask()` finds the answers (this round's, plus earlier rounds' carried in the state) and returns them.

So a handler must do the same things, in the same order, each time it runs up to its last `ask()` —
which is what makes the server stateless between rounds, as the modern era requires.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcpx.protocol.names import LOG_LEVELS
from mcpx.protocol.peer import IncomingRequest

if TYPE_CHECKING:
    from mcpx.demo.core.server import McpServer

Era = Literal["legacy", "modern"]


class InputRequired(Exception):  # control flow, turned into a result by the core
    """Modern era: the handler needs these answers from the client before it can finish."""

    def __init__(self, requests: dict[str, dict[str, Any]], state: str) -> None:
        super().__init__(f"input required: {', '.join(requests)}")
        self.requests = requests
        self.state = state


class MissingCapability(Exception):  # mapped to -32021 (modern) or a tool error (legacy)
    def __init__(self, required: dict[str, Any], what: str) -> None:
        super().__init__(f"the client did not declare the {what} capability this needs")
        self.required = required
        self.what = what


@dataclass(slots=True)
class Context:
    server: McpServer
    request: IncomingRequest
    params: dict[str, Any]
    era: Era
    #: the protocol revision this request is served under (negotiated, or named in `_meta`)
    version: str
    client_capabilities: dict[str, Any]
    client_info: dict[str, Any]
    #: the lowest level of `notifications/message` the client wants for this request (None: none)
    log_level: str | None
    #: modern: answers gathered so far (earlier rounds from requestState, plus this round's)
    answers: dict[str, Any] = field(default_factory=dict)

    @property
    def method(self) -> str:
        return self.request.method

    @property
    def progress_token(self) -> str | int | None:
        meta = self.params.get("_meta")
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        return token if isinstance(token, (str, int)) and not isinstance(token, bool) else None

    # -- talking back --------------------------------------------------------------------------------
    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self.server.notify(method, params)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress, if the client asked for it (a `progressToken` in `_meta`)."""
        token = self.progress_token
        if token is None:
            return
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.notify("notifications/progress", params)

    def wants_log(self, level: str) -> bool:
        if self.log_level is None:
            return False
        return LOG_LEVELS.index(level) >= LOG_LEVELS.index(self.log_level)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """`notifications/message`, when this request's client asked for that level or lower."""
        if not self.wants_log(level):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self.notify("notifications/message", params)

    # -- asking the client ---------------------------------------------------------------------------
    def has(self, capability: str, mode: str | None = None) -> bool:
        declared = self.client_capabilities.get(capability)
        if not isinstance(declared, dict):
            return False
        if capability == "elicitation" and mode is not None:
            # an empty elicitation capability means form mode only (2025-11-25 and later)
            return mode in declared or (mode == "form" and not declared)
        return True

    def require(self, capability: str, mode: str | None = None) -> None:
        if not self.has(capability, mode):
            required: dict[str, Any] = {capability: {mode: {}} if mode else {}}
            raise MissingCapability(required, f"{capability}{f'.{mode}' if mode else ''}")

    async def ask(self, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """Get the client's answers to `{key: {"method", "params"}}`; see the module docstring."""
        for asked in requests.values():
            self._check(asked)
        if self.era == "legacy":
            keys = list(requests)
            results = await asyncio.gather(
                *(self.server.peer_request(requests[k]["method"], requests[k].get("params")) for k in keys)
            )
            return dict(zip(keys, results, strict=True))
        missing = {k: v for k, v in requests.items() if k not in self.answers}
        if missing:
            state = self.server.sealer.seal(self.method, self.params, self.answers)
            raise InputRequired(missing, state)
        return {k: self.answers[k] for k in requests}

    async def ask_one(self, key: str, method: str, params: dict[str, Any] | None = None) -> Any:
        request: dict[str, Any] = {"method": method}
        if params is not None:
            request["params"] = params
        return (await self.ask({key: request}))[key]

    def _check(self, asked: dict[str, Any]) -> None:
        method = asked.get("method")
        if method == "elicitation/create":
            params = asked.get("params") or {}
            self.require("elicitation", params.get("mode", "form"))
        elif method == "sampling/createMessage":
            self.require("sampling")
        elif method == "roots/list":
            self.require("roots")
