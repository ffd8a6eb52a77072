"""A form retargeted to another schema of the same shape is the form a fresh build would give.

`SchemaForm.retarget` (used by the tool call panel when the highlight moves to a tool whose form has the
same shape) retexts and resets the widgets already built. Here a user fills a form of schema A by the
keyboard, the form is retargeted to B (other titles, descriptions, defaults, enum options, const), and
every widget of it is compared with a form freshly built for B: nothing typed for A is left, B's defaults
are in, the errors are B's. Shapes that differ are refused and leave the form as it was.
"""

from __future__ import annotations

import copy
from typing import Any

from scripted import wait_for
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Button, Checkbox, Input, Select, Static
from widget_state import widget_state

from mcpx.tui.forms.schema_fields import FieldView
from mcpx.tui.forms.schema_form import SchemaForm

A: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "title": "Query", "description": "What A looks for", "minLength": 3},
        "limit": {"type": "integer", "description": "At most this many", "default": 10, "maximum": 50},
        "exact": {"type": "boolean", "default": False},
        "fuzzy": {"type": "boolean"},
        "order": {"type": "string", "enum": ["asc", "desc"]},
        "kind": {"const": "a"},
        "filter": {
            "type": "object",
            "title": "Filter",
            "description": "Narrow A down",
            "properties": {"tag": {"type": "string"}},
        },
        "where": {"type": "object", "title": "Where", "properties": {"city": {"type": "string"}}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "note": {"type": "string"},
    },
    "required": ["query", "where"],
}
B: dict[str, Any] = copy.deepcopy(A)
B["properties"]["query"].update(title="Search", description="What B looks for", format="email")
B["properties"]["limit"].update(description="B's cap", default=20, minimum=5)
B["properties"]["exact"]["default"] = True
B["properties"]["order"]["enum"] = ["new", "old", "hot"]
B["properties"]["kind"]["const"] = "b"
B["properties"]["filter"].update(title="Sieve", description="Narrow B down")
B["properties"]["where"].update(title="Place")
B["properties"]["ids"]["items"] = {"type": "string"}
B["properties"]["note"] = {"type": "number", "minimum": 0}  # a text field either way
B["required"] = ["where"]  # a text field's required mark is a word of its label, not of its shape


class Forms(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(SchemaForm(A, id="reused"), id="forms")


def field(form: SchemaForm, name: str) -> FieldView:
    return next(view for view in form.query(FieldView) if view.node.path == (name,))


async def type_into(pilot: Any, form: SchemaForm, name: str, typed: str) -> None:
    box = field(form, name).query_one(Input)
    box.focus()
    await pilot.press(*typed)
    await wait_for(pilot, lambda: box.value.endswith(typed))


async def test_a_form_retargeted_to_the_same_shape_is_the_fresh_form_of_the_new_schema() -> None:
    app = Forms()
    async with app.run_test(size=(120, 80)) as pilot:
        form = app.query_one("#reused", SchemaForm)
        await wait_for(pilot, lambda: bool(form.query(Input)))
        # a user fills A: a too short query (an error under it), a limit, a city, exact ticked, a choice
        await type_into(pilot, form, "query", "ab")
        await type_into(pilot, form, "limit", "7")
        city = next(v for v in form.query(FieldView) if v.node.path == ("where", "city"))
        city.query_one(Input).focus()
        await pilot.press(*"NY")
        field(form, "exact").query_one(Checkbox).focus()
        await pilot.press("space")
        field(form, "order").query_one(Select).focus()
        await pilot.press("enter", "down", "enter")
        await wait_for(pilot, lambda: form.value.get("order") == "asc" and form.value.get("exact") is True)
        await wait_for(pilot, lambda: bool(form.errors.get(("query",))))  # too short
        assert form.value["query"] == "ab" and form.value["where"] == {"city": "NY"}
        assert form.touched
        app.set_focus(None)

        assert form.retarget(B)
        fresh = SchemaForm(B, id="fresh")
        await app.query_one("#forms").mount(fresh)
        await wait_for(pilot, lambda: bool(fresh.query(Input)))
        await pilot.pause()
        assert widget_state(form) == widget_state(fresh)
        assert form.value == fresh.value == {"limit": 20, "exact": True, "where": {}}
        assert "*" not in field(form, "query").query_one(".field-label", Static).content.plain  # type: ignore[union-attr]
        assert form.issues == fresh.issues and form.summary() == fresh.summary()
        assert not form.touched and form.schema is B

        # typing goes into B's fields, as in the fresh form
        await type_into(pilot, form, "query", "b@")
        await type_into(pilot, fresh, "query", "b@")
        await pilot.pause()
        assert form.value == fresh.value and form.value["query"] == "b@"
        assert widget_state(form) == widget_state(fresh)


def changed(**edits: Any) -> dict[str, Any]:
    schema = copy.deepcopy(A)
    for name, change in edits.items():
        if change is None:
            del schema["properties"][name]
        else:
            schema["properties"][name] = change
    return schema


async def test_another_shape_is_refused_and_the_form_is_left_as_it_was() -> None:
    not_required = copy.deepcopy(A)
    not_required["required"] = ["query"]  # an optional group can be left out: a button more
    others = {
        "a field renamed": changed(ids=None, ids2={"type": "array", "items": {"type": "integer"}}),
        "a field more": changed(extra={"type": "string"}),
        "a field less": changed(ids=None),
        "required-ness": not_required,
        "a checkbox, not a not-sent/true/false choice": changed(fuzzy={"type": "boolean", "default": True}),
        "another kind": changed(
            limit={"type": "boolean", "description": "At most this many", "default": True}
        ),
        "a nested field renamed": changed(
            where={"type": "object", "title": "Where", "properties": {"town": {"type": "string"}}}
        ),
        "a help text gone": changed(query={"type": "string", "title": "Query", "minLength": 3}),
    }
    app = Forms()
    async with app.run_test(size=(120, 80)) as pilot:
        form = app.query_one("#reused", SchemaForm)
        await wait_for(pilot, lambda: bool(form.query(Input)))
        await type_into(pilot, form, "query", "kept")
        before = widget_state(form)
        for why, schema in others.items():
            assert not form.retarget(schema), why
            assert form.schema is A and form.value["query"] == "kept" and widget_state(form) == before, why
        # what the user opened or switched to is part of the shape: the optional object, the raw editor
        add = next(b for b in form.query(Button) if b.name == "expand")
        await pilot.click(add)
        await wait_for(pilot, lambda: any(v.node.path == ("filter", "tag") for v in form.query(FieldView)))
        assert not form.retarget(B)
        form.action_toggle_raw()
        await pilot.pause()
        assert not form.retarget(A) and form.schema is A
