"""What a non-2xx reply to a Streamable HTTP POST means, as the error of the request it answered.

Kept apart from the transport (`http.py`) because it is a judgement with many cases, read on its own: a
401/403 is a sign-in to do; a 404 (or a TS SDK server's 400 naming the session) to a request that carried
a session id is that session gone; a JSON-RPC error answering the request is its answer; a 400/404/405 to
the very first POST is "no Streamable HTTP endpoint here" (what auto-detection looks for); anything else
is the server failing, in one sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mcpx.errors import ConnectError, RpcError, SessionExpiredError
from mcpx.transports.http_common import Reply, answers, record_reply
from mcpx.transports.http_errors import status_error
from mcpx.transports.http_streams import Exchange
from mcpx.wire import ErrorResponse, TrafficEvent, TrafficLog


class NoStreamableHttpError(ConnectError):
    """The first POST was refused in a way that says no Streamable HTTP endpoint is there (400/404/405)."""

    code = "no_streamable_http"

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message, status=status)
        self.status = status


@dataclass(frozen=True, slots=True)
class Refused:
    """A POST's non-2xx reply and what the transport knew when it sent the POST."""

    response: Reply
    body: bytes
    ex: Exchange
    #: the session id the POST carried (None: none, or the handshake-free era)
    had_session: str | None
    #: the transport's first POST to this URL
    first_contact: bool


def refuse_post(
    traffic: TrafficLog,
    url: str,
    refused: Refused,
    *,
    answer: Callable[[TrafficEvent], None],
    forget_session: Callable[[str, int, str], None],
) -> None:
    """Log the reply and raise the error of its request; return only when the body is the JSON-RPC error
    answer to the request itself, handed to `answer` (the peer raises it). `forget_session(id, status,
    doing)` is told of a session the server no longer knows, before `SessionExpiredError` is raised."""
    response, body, ex = refused.response, refused.body, refused.ex
    had_session, first_contact = refused.had_session, refused.first_contact
    status, rid, doing = response.status_code, ex.rid, ex.doing
    # 404/405 to the very first POST is how a URL says "no Streamable HTTP endpoint here": the answer
    # the transport's auto-detection and the era's probe look for, not a fault in the server's frames
    refusal = first_contact and had_session is None and status in (404, 405)
    reply = record_reply(traffic, body, rid, {"status": status}, f"HTTP {status}", expected=refusal)
    message = reply.message
    if status in (401, 403):
        raise status_error(response, body, url, doing)
    rpc_error = message if isinstance(message, ErrorResponse) else None
    method_unknown = rpc_error is not None and rpc_error.code == -32601
    if (
        had_session is not None
        and not method_unknown
        and (status == 404 or _mentions_session(status, rpc_error))
    ):
        forget_session(had_session, status, doing)
        note = "" if status == 404 else " (a 400 naming the session: not what the spec says, taken as 404)"
        raise SessionExpiredError(
            f"{url} no longer knows session {had_session} (HTTP {status} to {doing}){note}",
            session_id=had_session,
            status=status,
        )
    if rpc_error is not None and rid is not None:
        if answers(rpc_error, rid):
            answer(reply)  # the error answer to this very request: the peer raises it
            return
        if rpc_error.id is None:
            # servers often send errors about an HTTP request with id null; this POST carried `rid`
            raise RpcError(ex.method, rpc_error.code, rpc_error.message, rpc_error.data)
    if first_contact and had_session is None and rpc_error is None and status in (400, 404, 405):
        raise NoStreamableHttpError(
            f"{url} has no Streamable HTTP endpoint: it answered the first POST with HTTP {status} "
            f"{response.reason_phrase} (for a legacy HTTP+SSE server use --transport sse or auto)",
            status,
        )
    raise status_error(response, body, url, doing)


def _mentions_session(status: int, error: ErrorResponse | None) -> bool:
    # Servers on the TS SDK (server-everything among them) answer a stale session with 400 "No valid session
    # ID" instead of 404; taking that as 404 is a workaround, labelled as such where it is reported.
    return status == 400 and error is not None and "session" in error.message.lower()
