"""What a test answers when the server asks (elicitation, sampling), as `mcpx call`'s --elicit/--sample.

A test's `elicit` is accept-defaults, decline, cancel, or a mapping of field answers (an `@answers.json`
file is read into one when the collection loads); `sample` is decline or a CreateMessageResult mapping.
Without either, elicitation is declined and sampling refused with a sentence saying how to answer it —
a test never waits on a person. A URL elicitation is declined: there is nobody to open the address.
"""

from __future__ import annotations

from typing import Any

from mcpx.errors import RpcError
from mcpx.schema.elicitation import fill

USER_REJECTED = -1


def elicit_answer(spec: Any, params: Any) -> dict[str, Any]:
    """The answer to one `elicitation/create` for a test whose `elicit` is `spec`."""
    params = params if isinstance(params, dict) else {}
    if params.get("mode") == "url" or spec in (None, "decline"):
        return {"action": "decline"}
    if spec == "cancel":
        return {"action": "cancel"}
    answers = spec if isinstance(spec, dict) else None
    filled = fill(params.get("requestedSchema"), answers)
    for name in filled.unknown:  # an answer for a field this form does not have
        filled.content.pop(name, None)
    if filled.missing:
        return {"action": "cancel"}
    return {"action": "accept", "content": filled.content}


def sample_answer(spec: Any) -> Any:
    """The answer to one `sampling/createMessage` for a test whose `sample` is `spec`."""
    if isinstance(spec, dict):
        return spec
    if spec == "decline":
        raise RpcError("sampling/createMessage", USER_REJECTED, "User rejected sampling request")
    raise RpcError(
        "sampling/createMessage",
        USER_REJECTED,
        "mcpx test cannot sample a model; give the test `sample:` with a CreateMessageResult (or decline)",
    )
