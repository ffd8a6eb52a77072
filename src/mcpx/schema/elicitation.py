"""Elicitation's restricted form schemas (flat objects of primitives), free of any UI.

`fill()` builds the content of an `accept` answer from the schema's defaults (SEP-1034) and the user's
answers, and says which required fields are still missing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Filled:
    content: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def fill(schema: Any, answers: dict[str, Any] | None = None) -> Filled:
    """Defaults first, then answers; required fields with neither are `missing`."""
    answers = answers or {}
    filled = Filled()
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        properties = {}
    required = schema.get("required") if isinstance(schema, dict) else None
    required_names = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    for name, prop in properties.items():
        if name in answers:
            filled.content[name] = answers[name]
        elif isinstance(prop, dict) and "default" in prop:
            filled.content[name] = prop["default"]
    filled.missing = [name for name in required_names if name not in filled.content]
    filled.unknown = [name for name in answers if name not in properties]
    return filled
