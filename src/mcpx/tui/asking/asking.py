"""`Asking`: what the server asks the user — elicitation and sampling requests waiting for an answer, and
the roots the client advertises.

The client's handlers (`elicit`, `sample`; both eras: legacy server→client requests and modern input
requests alike) put an `Ask` in a queue and wait, for as long as it takes, for its screen to answer. The
app shows the first waiting ask as soon as the user is on the main screen (never on top of another modal
screen, so nothing the user types lands in the wrong place); the header counts what waits. An ask the
server withdraws (`notifications/cancelled`) or loses with the connection closes its screen and leaves
the queue.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol
from urllib.parse import urlparse

from mcpx.errors import RpcError

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from mcpx.protocol.client import Client
    from mcpx.tui.session_state import SessionState

AskKind = Literal["elicitation", "sampling"]
#: the error a server sees when the user rejects a sampling request (the spec's example code)
USER_REJECTED = -1
#: previous sampling replies kept for reuse
MAX_REPLIES = 20
#: seconds before a question that could not show (another screen was up) is tried again
LOOK_AGAIN = 0.1


@dataclass(eq=False)
class Ask:
    """One question from the server, waiting for the user."""

    kind: AskKind
    params: dict[str, Any]
    number: int
    #: who asks: the server's name (and title) as the header shows it
    server: str
    #: the server's host when it is reached over HTTP (URL elicitation warns when a page is elsewhere)
    server_host: str | None
    #: the method mcpx retries after this URL elicitation (a -32042 error listed it), or None
    retries: str | None = None
    future: asyncio.Future[Any] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    screen: Screen[Any] | None = None

    @property
    def pending(self) -> bool:
        return not self.future.done()

    def answer(self, result: Any) -> None:
        if not self.future.done():
            self.future.set_result(result)

    def reject(self, error: BaseException) -> None:
        if not self.future.done():
            self.future.set_exception(error)


def rejected_sampling() -> RpcError:
    return RpcError("sampling/createMessage", USER_REJECTED, "User rejected sampling request")


def root_for(path: str | Path, name: str | None = None) -> dict[str, Any]:
    """A root for a directory (a `file://` URI named after its last part)."""
    resolved = Path(path).resolve()
    return {"uri": resolved.as_uri(), "name": name or resolved.name or str(resolved)}


class AskingState(Protocol):
    """What the queue reads and sets on the inspector it serves: who is connected, and what the header
    (questions waiting) and the Roots tab (the roots advertised) show."""

    @property
    def session(self) -> SessionState: ...
    @property
    def target(self) -> str: ...
    @property
    def client(self) -> Client | None: ...

    waiting: int
    roots: tuple[dict[str, Any], ...]


class Asking:
    """The queue of questions, the roots, and the sampling replies given so far, for one app."""

    def __init__(self, app: App[Any], state: AskingState, roots: list[dict[str, Any]] | None = None) -> None:
        #: where the questions' screens, notifications and workers go
        self.app = app
        self.state = state
        self.queue: list[Ask] = []
        self.roots: list[dict[str, Any]] = list(roots or [])
        #: sampling replies the user sent, newest first (offered for reuse)
        self.replies: list[dict[str, Any]] = []
        #: elicitation ids the server said are complete (`notifications/elicitation/complete`)
        self.completed: set[str] = set()
        self._numbers = itertools.count(1)
        self._look_again = False

    # -- the client's handlers ----------------------------------------------------------------------
    async def elicit(self, params: Any) -> Any:
        return await self._ask("elicitation", params)

    async def sample(self, params: Any) -> Any:
        return await self._ask("sampling", params)

    def client_options(
        self, server: Callable[[], str] | None = None, host: Callable[[], str | None] | None = None
    ) -> dict[str, Any]:
        """What `mcpx.connect()` / `Client()` take to answer through this queue. `server` and `host` name
        who asks (a workspace has many servers); by default, the app's connected server."""

        async def elicit(params: Any) -> Any:
            return await self._ask("elicitation", params, server, host)

        async def sample(params: Any) -> Any:
            return await self._ask("sampling", params, server, host)

        # sampling with tools: the user can answer with tool_use blocks in the reply's JSON
        return {
            "roots": list(self.roots),
            "on_elicit": elicit if server is not None else self.elicit,
            "on_sample": sample if server is not None else self.sample,
            "sampling": {"tools": {}},
        }

    async def _ask(
        self,
        kind: AskKind,
        params: Any,
        server: Callable[[], str] | None = None,
        host: Callable[[], str | None] | None = None,
    ) -> Any:
        from mcpx.protocol.client import RETRY_KEY

        params = dict(params) if isinstance(params, dict) else {}
        retries = params.pop(RETRY_KEY, None)
        ask = Ask(
            kind,
            params,
            next(self._numbers),
            server() if server is not None else self._server_label(),
            host() if host is not None else self._server_host(),
            retries=retries if isinstance(retries, str) else None,
        )
        self.queue.append(ask)
        self._changed()
        self.app.call_next(self.show_next)
        try:
            return await ask.future
        finally:
            # answered, withdrawn by the server, or lost with the connection
            if ask in self.queue:
                self.queue.remove(ask)
            self._changed()
            screen = ask.screen
            if screen is not None and ask.future.cancelled() and screen.is_attached:
                self.app.notify(
                    f"The {kind} request #{ask.number} is no longer asked: the server withdrew it or the "
                    "connection ended.",
                    severity="warning",
                )
                screen.dismiss(None)
            self.app.call_next(self.show_next)

    def _changed(self) -> None:
        self.state.waiting = len(self.queue)

    # -- showing ------------------------------------------------------------------------------------
    @property
    def showing(self) -> Ask | None:
        return next((ask for ask in self.queue if ask.screen is not None), None)

    def show_next(self) -> None:
        """Show the first waiting ask, unless one is shown or the user is in another modal screen (then
        look again shortly, for as long as a question waits: the user may close that screen any time)."""
        if self.showing is not None or not self.app.is_running:
            return
        ask = next((a for a in self.queue if a.pending), None)
        if ask is None:
            return
        if not self.at_rest():
            if not self._look_again:
                self._look_again = True
                self.app.set_timer(LOOK_AGAIN, self._looked_again, name="asking-look-again")
            return
        screen = self._screen_for(ask)
        ask.screen = screen

        def done(result: Any) -> None:
            ask.screen = None
            self.app.call_next(self.show_next)

        self.app.push_screen(screen, done)

    def _looked_again(self) -> None:
        self._look_again = False
        self.show_next()

    def at_rest(self) -> bool:
        """The user is where a question may show: the main screen, no other screen over it."""
        return len(self.app.screen_stack) == 1

    def position(self, ask: Ask) -> tuple[int, int]:
        """(place of `ask`, how many wait) for the screen's title."""
        place = self.queue.index(ask) + 1 if ask in self.queue else 1
        return place, max(len(self.queue), place)

    def _screen_for(self, ask: Ask) -> Screen[Any]:
        if ask.kind == "sampling":
            from mcpx.tui.asking.sampling_screen import SamplingScreen

            return SamplingScreen(ask, self)
        if ask.params.get("mode") == "url":
            from mcpx.tui.asking.url_elicitation_screen import UrlElicitationScreen

            return UrlElicitationScreen(ask, self)
        from mcpx.tui.asking.elicitation_screen import ElicitationScreen

        return ElicitationScreen(ask, self)

    def remember_reply(self, reply: dict[str, Any]) -> None:
        if reply in self.replies:
            self.replies.remove(reply)
        self.replies.insert(0, reply)
        del self.replies[MAX_REPLIES:]

    # -- who asks -----------------------------------------------------------------------------------
    def _server_label(self) -> str:
        session = self.state.session
        if session.server_name:
            label = session.server_name
            if session.server_version:
                label += f" {session.server_version}"
            if session.server_title and session.server_title != session.server_name:
                label += f" “{session.server_title}”"
            return label
        return self.state.target or "the server"

    def _server_host(self) -> str | None:
        client = self.state.client
        if client is None:
            return None
        url = client.session.describe().get("url")
        return urlparse(url).hostname if isinstance(url, str) else None

    # -- elicitation completions --------------------------------------------------------------------
    def elicitation_completed(self, elicitation_id: str) -> None:
        """The server says an out-of-band (URL) elicitation finished: its screen closes as done."""
        self.completed.add(elicitation_id)
        for ask in self.queue:
            if ask.params.get("elicitationId") == elicitation_id and ask.pending:
                self.app.notify(f"The server says elicitation {elicitation_id} is complete.")
                ask.answer({"action": "accept"})
                if ask.screen is not None and ask.screen.is_attached:
                    ask.screen.dismiss(None)

    # -- roots --------------------------------------------------------------------------------------
    def set_roots(self, roots: list[dict[str, Any]]) -> None:
        """Advertise `roots` from now on (this connection and the next ones); tell the server."""
        self.roots = list(roots)
        self.state.roots = tuple(roots)
        for client in self.clients():
            self.app.run_worker(
                self._tell(client, list(roots)), name="roots", group="requests", exit_on_error=False
            )

    def clients(self) -> list[Client]:
        """The connected clients that advertise the roots (the app's one; a workspace's many)."""
        client = self.state.client
        return [client] if client is not None else []

    async def _tell(self, client: Client, roots: list[dict[str, Any]]) -> None:
        if await client.set_roots(roots):
            self.app.notify("Sent notifications/roots/list_changed.")

    # -- a new connection ---------------------------------------------------------------------------
    def attach(self, client: Client) -> None:
        """Listen to what the new connection's server says about elicitations."""

        def completed(message: Any, event: Any) -> None:
            params = message.params if isinstance(message.params, dict) else {}
            elicitation_id = params.get("elicitationId")
            if isinstance(elicitation_id, str):
                self.elicitation_completed(elicitation_id)

        client.on_notification("notifications/elicitation/complete", completed)
