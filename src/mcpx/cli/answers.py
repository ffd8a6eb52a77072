"""How `mcpx call` answers what a server asks, so a script never hangs on a question.

`--elicit accept-defaults|decline|cancel|@answers.json`, `--sample decline|@reply.json`, `--root URI`.
With none given, elicitation is declined and sampling refused with a sentence saying how to answer it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcpx.errors import RpcError, UsageError
from mcpx.protocol.client import ServerRequestHandler
from mcpx.wire.controls import escape_controls

USER_REJECTED = -1


def _load_json(spec: str, flag: str) -> Any:
    path = spec[1:]
    try:
        with open(path, encoding="utf-8") as file:
            return json.loads(file.read())
    except FileNotFoundError:
        raise UsageError(f"{flag}: the file {path!r} does not exist") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{flag}: cannot read JSON from {path!r}: {exc}") from None


def _note(text: str) -> None:
    sys.stderr.write(f"mcpx: {escape_controls(text)}\n")
    sys.stderr.flush()


def elicitation_handler(spec: str | None) -> ServerRequestHandler:
    mode = spec or "decline"
    answers: dict[str, Any] | None = None
    if mode.startswith("@"):
        loaded = _load_json(mode, "--elicit")
        if not isinstance(loaded, dict):
            raise UsageError("--elicit: the answers file must hold a JSON object of field names to values")
        answers = loaded
    elif mode not in ("accept-defaults", "decline", "cancel"):
        raise UsageError(f"--elicit must be accept-defaults, decline, cancel or @answers.json, not {mode!r}")

    async def answer(params: Any) -> dict[str, Any]:
        params = params if isinstance(params, dict) else {}
        if params.get("mode") == "url":
            return await _url_elicitation(params)
        if mode in ("decline", "cancel"):
            return {"action": mode}
        from mcpx.schema.elicitation import fill  # only once a form is to be filled

        filled = fill(params.get("requestedSchema"), answers)
        if filled.unknown:
            _note(
                "elicitation: ignoring answers for fields the form does not have: "
                + ", ".join(filled.unknown)
            )
            for name in filled.unknown:
                filled.content.pop(name, None)
        if filled.missing:
            _note(
                f"elicitation: required field(s) {', '.join(filled.missing)} have no default and no answer; "
                "answered cancel (give them with --elicit @answers.json)"
            )
            return {"action": "cancel"}
        return {"action": "accept", "content": filled.content}

    return answer


async def _url_elicitation(params: dict[str, Any]) -> dict[str, Any]:
    from urllib.parse import urlparse

    url = str(params.get("url", ""))
    host = urlparse(url).hostname or "?"
    _note(f"the server asks you to open {url} (host {host}): {params.get('message', '')}")
    if not sys.stdin.isatty():
        _note("stdin is not a terminal: declined the URL elicitation")
        return {"action": "decline"}
    import asyncio

    _note("press Enter when done (Ctrl-C to cancel)")
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return {"action": "accept"}


def sampling_handler(spec: str | None) -> ServerRequestHandler:
    reply: Any = None
    if spec is not None:
        if spec.startswith("@"):
            reply = _load_json(spec, "--sample")
            if not isinstance(reply, dict):
                raise UsageError("--sample: the reply file must hold a CreateMessageResult object")
        elif spec != "decline":
            raise UsageError(f"--sample must be decline or @reply.json, not {spec!r}")

    async def answer(params: Any) -> Any:
        if reply is not None:
            return reply
        if spec == "decline":
            raise RpcError("sampling/createMessage", USER_REJECTED, "User rejected sampling request")
        raise RpcError(
            "sampling/createMessage",
            USER_REJECTED,
            "mcpx call cannot sample a model; answer with --sample @reply.json (a CreateMessageResult) "
            "or --sample decline",
        )

    return answer


def roots_from_flags(items: list[str] | None) -> list[dict[str, Any]] | None:
    if not items:
        return None
    from pathlib import Path  # only with --root: `mcpx call` imports neither otherwise
    from urllib.parse import urlparse

    roots = []
    for item in items:
        uri = item if "://" in item else Path(item).resolve().as_uri()
        roots.append({"uri": uri, "name": Path(urlparse(uri).path).name or uri})
    return roots
