"""The opaque `requestState` of multi round-trip requests (2026-07-28 MRTR), sealed by this process.

The server keeps no memory between rounds: everything it learnt so far (the client's earlier
`inputResponses`) travels in `requestState`, which the client must echo byte for byte. It is signed with
a key made at start-up and bound to the request it belongs to (method and params without the MRTR
fields), so a state that was altered, or replayed onto another call, is refused with -32602 instead of
being trusted. It is signed, not encrypted: a debugger's user may well decode it to see what it holds.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any

from mcpx.errors import RpcError
from mcpx.wire.jsonrpc import INVALID_PARAMS

#: params that change from round to round and so are not part of what a state is bound to
ROUND_FIELDS = ("_meta", "inputResponses", "requestState")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def request_digest(method: str, params: dict[str, Any]) -> str:
    stable = {k: v for k, v in params.items() if k not in ROUND_FIELDS}
    body = json.dumps([method, stable], sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


class StateSealer:
    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)

    def seal(self, method: str, params: dict[str, Any], answers: dict[str, Any]) -> str:
        payload = json.dumps(
            {"v": 1, "for": request_digest(method, params), "answers": answers},
            separators=(",", ":"),
            default=repr,
        ).encode("utf-8")
        signature = hmac.new(self._key, payload, hashlib.sha256).digest()
        return f"{_b64(payload)}.{_b64(signature)}"

    def open(self, method: str, params: dict[str, Any], state: Any) -> dict[str, Any]:
        """The answers a state carries; -32602 for anything this process did not seal for this request."""
        if not isinstance(state, str) or state.count(".") != 1:
            raise _refused(method, "requestState is not one this server issued")
        payload_text, signature_text = state.split(".")
        try:
            payload, signature = _unb64(payload_text), _unb64(signature_text)
        except ValueError:
            raise _refused(method, "requestState is not valid base64") from None
        expected = hmac.new(self._key, payload, hashlib.sha256).digest()
        if not hmac.compare_digest(signature, expected):
            raise _refused(
                method,
                "requestState was altered, or was issued by another run of this server (echo it byte "
                "for byte)",
            )
        body = json.loads(payload)
        if body.get("for") != request_digest(method, params):
            raise _refused(method, "requestState belongs to a different request (other name or arguments)")
        answers = body.get("answers")
        return answers if isinstance(answers, dict) else {}


def _refused(method: str, why: str) -> RpcError:
    return RpcError(method, INVALID_PARAMS, why)
