"""-32042 (2025-11-25): a request that needs URL elicitations completed first.

The server's error lists the URLs (`data.elicitations`); the client shows each to the user through its
elicitation handler (marked with `RETRY_KEY`, so a face can say a request waits on it) and, when every one
was accepted, sends the request again — at most `MAX_URL_ROUNDS` times.
"""

from __future__ import annotations

from typing import Any

from mcpx.errors import RpcError
from mcpx.protocol.eras import Answer, Resend
from mcpx.wire import TrafficLog

#: -32042 (2025-11-25): the request needs URL elicitations completed first, listed in `data.elicitations`
URL_ELICITATION_REQUIRED = -32042
#: times a request is sent again after the user completed the URLs a -32042 listed
MAX_URL_ROUNDS = 3
#: added to the params of a URL elicitation that came in a -32042 error: the method to be retried
RETRY_KEY = "_mcpxRetries"


async def after_urls(
    method: str, error: RpcError, resend: Resend, answer: Answer, traffic: TrafficLog
) -> Any:
    """-32042: show the user the URLs the server needs visited first, then send the request again."""
    for _ in range(MAX_URL_ROUNDS):
        data = error.data if isinstance(error.data, dict) else {}
        listed = data.get("elicitations")
        asks = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
        if not asks:
            raise error
        for asked in asks:
            answer = await answer("elicitation/create", {**asked, "mode": "url", RETRY_KEY: method})
            action = answer.get("action") if isinstance(answer, dict) else None
            if action != "accept":
                traffic.info(
                    f"{method} needs a URL visited first and the user chose {action!r}: not retrying",
                    "protocol",
                    event="url-elicitation",
                )
                raise error
        traffic.info(
            f"{method}: the user completed {len(asks)} URL elicitation(s); sending it again",
            "protocol",
            event="url-elicitation",
        )
        try:
            return await resend({})
        except RpcError as again:
            if again.error_code != URL_ELICITATION_REQUIRED:
                raise
            error = again
    raise error
