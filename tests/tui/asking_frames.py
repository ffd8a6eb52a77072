"""What the scripted weather server asks the user, as raw frames: a form elicitation with every field
kind, a sampling request with every content type, and a URL elicitation. Shared by the snapshot tests and
`scripts/export_screenshots.py`."""

from __future__ import annotations

import json
from typing import Any

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

FORM: dict[str, Any] = {
    "mode": "form",
    "message": "Save **Lisbon** to your cities? The forecast is kept for *10 minutes*.",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "label": {"type": "string", "title": "Label", "minLength": 1, "maxLength": 30},
            "email": {"type": "string", "format": "email", "title": "Alerts to"},
            "since": {"type": "string", "format": "date", "title": "Watch from"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3, "title": "Days"},
            "threshold": {"type": "number", "minimum": -20, "maximum": 50, "default": 30.5},
            "alerts": {"type": "boolean", "title": "Storm alerts", "default": True},
            "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
            "region": {
                "type": "string",
                "title": "Region",
                "oneOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "Americas"}],
            },
            "feeds": {
                "type": "array",
                "title": "Feeds",
                "minItems": 1,
                "maxItems": 2,
                "items": {"type": "string", "enum": ["rain", "wind", "uv"]},
                "default": ["rain"],
            },
        },
        "required": ["label", "email"],
    },
}

SAMPLING: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": {"type": "text", "text": "Will it rain in Lisbon tomorrow?"}},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "call-1",
                    "name": "get_forecast",
                    "input": {"city": "Lisbon", "days": 1},
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "toolUseId": "call-1",
                    "content": [{"type": "text", "text": "rain 80%, 14-19 °C"}],
                }
            ],
        },
        {"role": "user", "content": {"type": "image", "mimeType": "image/png", "data": PIXEL}},
    ],
    "systemPrompt": "You are a terse weather assistant.",
    "modelPreferences": {"hints": [{"name": "claude-sonnet"}], "speedPriority": 0.7, "costPriority": 0.2},
    "maxTokens": 120,
    "stopSequences": ["\n\n"],
    "includeContext": "thisServer",
    "tools": [
        {"name": "get_forecast", "description": "Forecast for a city.", "inputSchema": {"type": "object"}}
    ],
    "toolChoice": {"mode": "auto"},
}

URL: dict[str, Any] = {
    "mode": "url",
    "elicitationId": "link-7",
    "message": "Sign in to the weather service to see **premium** forecasts.",
    "url": "https://auth.weather.example/connect?state=abc123",
}


def request(rid: str, method: str, params: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
