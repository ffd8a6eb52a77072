"""The demo tools' input and output schemas, and the elicitation form: data only.

Between them they use every JSON Schema construct a form generator has to handle (issue 4): string
formats, `pattern`, `minLength`/`maxLength`; number and integer bounds, exclusive bounds and `multipleOf`;
booleans; `enum`, `const` and titled `oneOf` enums; nullable types in both spellings; arrays (of objects,
with `minItems`/`maxItems`, with `uniqueItems`); nested objects; `oneOf`/`anyOf` variants; `$ref`/`$defs`
with a recursive schema; `additionalProperties` maps; `default`, `required`, `description`, `readOnly`;
both the 2020-12 and the draft-07 dialects; an `x-mcp-header` property.
"""

from __future__ import annotations

from typing import Any

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DRAFT_07 = "http://json-schema.org/draft-07/schema#"

ECHO: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "What to say back."},
        "times": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1, "description": "How often."},
    },
    "required": ["text"],
    "additionalProperties": False,
}

ADD: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "number", "description": "First addend."}, "b": {"type": "number"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}
ADD_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"sum": {"type": "number"}},
    "required": ["sum"],
    "additionalProperties": False,
}

WEATHER: dict[str, Any] = {
    "type": "object",
    "properties": {
        # x-mcp-header: over Streamable HTTP (2026-07-28) the client mirrors it into `Mcp-Param-City`
        "city": {"type": "string", "minLength": 1, "description": "A city name.", "x-mcp-header": "City"},
        "units": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
    },
    "required": ["city"],
    "additionalProperties": False,
}
WEATHER_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature": {"type": "number", "description": "In the requested units."},
        "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "conditions": {"type": "string", "enum": ["sunny", "cloudy", "rain", "snow", "fog"]},
        "humidity": {"type": "integer", "minimum": 0, "maximum": 100},
        "forecast": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "day": {"type": "string"},
                    "high": {"type": "number"},
                    "low": {"type": "number"},
                },
                "required": ["day", "high", "low"],
            },
        },
    },
    "required": ["city", "temperature", "units", "conditions", "humidity"],
}

EVENT: dict[str, Any] = {
    "$schema": DRAFT_2020_12,
    "type": "object",
    "title": "New event",
    "properties": {
        "id": {
            "type": "string",
            "readOnly": True,
            "default": "evt-0001",
            "description": "Assigned by the server: shown, not sent.",
        },
        "title": {"type": "string", "title": "Title", "minLength": 3, "maxLength": 80},
        "slug": {
            "type": "string",
            "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
            "description": "Lowercase words joined by dashes, e.g. pycon-2026.",
        },
        "organiser_email": {"type": "string", "format": "email", "title": "Organiser e-mail"},
        "website": {"type": "string", "format": "uri"},
        "date": {"type": "string", "format": "date", "description": "YYYY-MM-DD"},
        "starts_at": {
            "type": "string",
            "format": "date-time",
            "description": "RFC 3339, e.g. 2026-09-01T18:30:00Z",
        },
        "capacity": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 100},
        "price": {
            "type": "number",
            "exclusiveMinimum": 0,
            "multipleOf": 0.25,
            "description": "Euros, in steps of 0.25 (free events are not events).",
        },
        "discount": {
            "type": "number",
            "minimum": 0,
            "exclusiveMaximum": 1,
            "default": 0,
            "description": "A fraction below 1.",
        },
        "volume": {"type": "integer", "multipleOf": 5, "minimum": 0, "maximum": 100, "default": 50},
        "public": {"type": "boolean", "default": True, "description": "Listed on the front page."},
    },
    "required": ["title", "slug", "organiser_email", "date", "price"],
    "additionalProperties": False,
}

_SHAPE_COMMON = {"type": "object", "additionalProperties": False}
WIDGET: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"const": "widget", "description": "Always 'widget' (a const)."},
        "color": {"type": "string", "enum": ["red", "green", "blue"], "default": "green"},
        "size": {
            "type": "string",
            "title": "Size",
            "default": "m",
            "oneOf": [
                {"const": "s", "title": "Small"},
                {"const": "m", "title": "Medium"},
                {"const": "l", "title": "Large"},
            ],
        },
        "theme": {
            "type": ["string", "null"],
            "enum": ["light", "dark", None],
            "default": None,
            "description": "A nullable enum: null follows the system theme.",
        },
        "priority": {
            "type": ["integer", "null"],
            "minimum": 1,
            "maximum": 5,
            "description": "Nullable integer.",
        },
        "label": {
            "anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}],
            "description": "Nullable through anyOf.",
        },
        "shape": {
            "description": "One of two variants, told apart by `type`.",
            "oneOf": [
                {
                    **_SHAPE_COMMON,
                    "title": "Circle",
                    "properties": {
                        "type": {"const": "circle"},
                        "radius": {"type": "number", "exclusiveMinimum": 0},
                    },
                    "required": ["type", "radius"],
                },
                {
                    **_SHAPE_COMMON,
                    "title": "Rectangle",
                    "properties": {
                        "type": {"const": "rectangle"},
                        "width": {"type": "number", "exclusiveMinimum": 0},
                        "height": {"type": "number", "exclusiveMinimum": 0},
                    },
                    "required": ["type", "width", "height"],
                },
            ],
        },
        "target": {
            "anyOf": [
                {"type": "string", "format": "uri", "title": "A URL"},
                {"type": "integer", "minimum": 1, "title": "A record id"},
            ]
        },
        "enabled": {"type": "boolean", "default": True},
    },
    "required": ["kind", "color", "shape"],
    "additionalProperties": False,
}

ORDER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "customer": {
            "type": "object",
            "title": "Customer",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "email": {"type": "string", "format": "email"},
                "address": {
                    "type": "object",
                    "title": "Address",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"},
                        "postcode": {"type": "string", "pattern": "^[0-9]{5}$"},
                        "country": {
                            "type": "string",
                            "enum": ["FR", "DE", "IT", "ES", "NL"],
                            "default": "FR",
                        },
                    },
                    "required": ["street", "city"],
                },
            },
            "required": ["name"],
        },
        "items": {
            "type": "array",
            "minItems": 1,
            "maxItems": 5,
            "description": "One to five order lines.",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {
                        "type": "string",
                        "pattern": "^[A-Z]{3}-[0-9]{3}$",
                        "description": "e.g. TEA-001",
                    },
                    "quantity": {"type": "integer", "minimum": 1, "default": 1},
                    "gift": {"type": "boolean", "default": False},
                },
                "required": ["sku", "quantity"],
                "additionalProperties": False,
            },
        },
        "tags": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "uniqueItems": True,
            "maxItems": 5,
        },
        "coupons": {
            "type": "array",
            "uniqueItems": True,
            "items": {"type": "string", "enum": ["WELCOME10", "FREESHIP", "VIP"]},
        },
        "metadata": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Free key/value pairs.",
        },
        "stock_overrides": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        "delivery": {"type": "string", "enum": ["standard", "express"], "default": "standard"},
    },
    "required": ["customer", "items"],
    "additionalProperties": False,
}

TREE: dict[str, Any] = {
    "$schema": DRAFT_2020_12,
    "type": "object",
    "$defs": {
        "node": {
            "type": "object",
            "title": "Node",
            "properties": {
                "label": {"type": "string", "minLength": 1},
                "weight": {"$ref": "#/$defs/weight"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}, "default": []},
            },
            "required": ["label"],
            "additionalProperties": False,
        },
        "weight": {"type": "number", "minimum": 0, "default": 1},
    },
    "properties": {
        "root": {
            "$ref": "#/$defs/node",
            "description": "A tree: every node may have child nodes (recursive).",
        },
        "max_depth": {"type": "integer", "minimum": 1, "maximum": 10, "default": 5},
    },
    "required": ["root"],
}

SEARCH_DRAFT_07: dict[str, Any] = {
    "$schema": DRAFT_07,
    "type": "object",
    "definitions": {
        "range": {
            "type": "object",
            "properties": {
                "from": {"type": "string", "format": "date"},
                "to": {"type": "string", "format": "date"},
            },
        },
    },
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        "score_above": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "published": {"$ref": "#/definitions/range"},
        "sort": {"type": "string", "enum": ["relevance", "date"], "default": "relevance"},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def booking_form(version: str) -> dict[str, Any]:
    """The elicitation form with every field kind a form may have, as the client's revision spells them.

    2025-11-25 and later: titled enums (`oneOf` const/title), multi-selects and defaults on every kind.
    2025-06-18 knew only `enum` (+ `enumNames`) and boolean defaults, so older clients get that.
    """
    modern_kinds = version not in ("2025-06-18", "2025-03-26", "2024-11-05")
    props: dict[str, Any] = {
        "name": {"type": "string", "title": "Your name", "minLength": 2, "maxLength": 50},
        "email": {
            "type": "string",
            "title": "E-mail",
            "format": "email",
            "description": "For the confirmation.",
        },
        "website": {"type": "string", "title": "Website", "format": "uri"},
        "date": {"type": "string", "title": "Date", "format": "date"},
        "arrival": {"type": "string", "title": "Arrival", "format": "date-time"},
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 12, "default": 2},
        "budget": {
            "type": "number",
            "title": "Budget per person (EUR)",
            "minimum": 10,
            "maximum": 500,
            "default": 40,
        },
        "window_seat": {"type": "boolean", "title": "Window seat", "default": True},
        "seating": {
            "type": "string",
            "title": "Seating",
            "enum": ["indoor", "outdoor", "bar"],
            "default": "indoor",
        },
        "occasion": {
            "type": "string",
            "title": "Occasion",
            "enum": ["none", "birthday", "anniversary"],
            "enumNames": ["No occasion", "Birthday", "Anniversary"],
            "default": "none",
        },
    }
    if modern_kinds:
        props["menu"] = {
            "type": "string",
            "title": "Menu",
            "default": "veg",
            "oneOf": [
                {"const": "veg", "title": "Vegetarian"},
                {"const": "fish", "title": "Fish"},
                {"const": "meat", "title": "Meat"},
            ],
        }
        props["allergies"] = {
            "type": "array",
            "title": "Allergies",
            "minItems": 0,
            "maxItems": 3,
            "default": [],
            "items": {"type": "string", "enum": ["nuts", "gluten", "dairy", "shellfish"]},
        }
        props["extras"] = {
            "type": "array",
            "title": "Extras",
            "default": ["cake"],
            "items": {
                "anyOf": [
                    {"const": "cake", "title": "Birthday cake"},
                    {"const": "flowers", "title": "Flowers"},
                    {"const": "music", "title": "Live music"},
                ]
            },
        }
    else:
        props["menu"] = {
            "type": "string",
            "title": "Menu",
            "enum": ["veg", "fish", "meat"],
            "enumNames": ["Vegetarian", "Fish", "Meat"],
        }
        for field in props.values():
            if field.get("type") != "boolean":
                field.pop("default", None)
    return {"type": "object", "properties": props, "required": ["name", "email", "date"]}
