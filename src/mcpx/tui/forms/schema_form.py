"""`SchemaForm`: a form generated from a JSON Schema, validated as the user types, with a raw JSON view.

    form = SchemaForm(tool["inputSchema"])      # or SchemaForm(schema, value={...})
    form.value                                  # the JSON value to send (typed: "012" stays a string)
    form.issues / form.errors                   # jsonschema problems, by field path
    form.load({...})                            # show a value (history, saved calls)

F2 switches between the fields and a raw JSON editor of the whole value; both ways keep what was typed
(going back without an edit keeps the fields exactly as they were, "1.50" included). Every change posts
`SchemaForm.Changed`; Enter in a field posts `SchemaForm.Submitted` when the value is valid (else it
moves on to the next field). Tab always leaves a JSON editor (it never indents: focus is never trapped).
The model is `mcpx.schema.form.FormModel`, free of any UI.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, ContentSwitcher, Input, Static, TextArea

from mcpx.schema.form import ArrayNode, FormModel, Issue, Path, VariantNode
from mcpx.schema.validate import validate
from mcpx.tui.forms.form_keys import shown_focusable
from mcpx.tui.forms.form_reuse import fits, retarget
from mcpx.tui.forms.schema_fields import FieldView, field_view, retext


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


class SchemaForm(Vertical):
    """Fields for a schema (or a raw JSON editor of the same value), with errors beside each field."""

    HELP: ClassVar[str] = """\
A form generated from the schema: **\\*** marks required fields, errors show under each field as you type.
**F2** switches to a raw JSON editor of the whole value and back, keeping what was typed. Optional objects
start as a **+** button; arrays add, move (**↑ ↓**) and remove (**✕**) items; **null** sends an explicit
null; what cannot be shown as fields is a JSON editor for that part only. Typed values stay typed: text in
a string field is sent as a string, a number field sends a number.
"""
    BINDING_GROUP_TITLE = "Form"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f2", "toggle_raw", "Raw JSON", id="toggle-raw-json", tooltip="Switch between fields and raw JSON"
        ),
    ]
    DEFAULT_CSS = """
    SchemaForm { height: auto; }
    SchemaForm > #form-bar { height: auto; }
    SchemaForm > #form-bar > #form-errors { width: 1fr; color: $text-error; height: auto; }
    SchemaForm > #form-bar > #form-raw-toggle { width: auto; min-width: 12; }
    SchemaForm > ContentSwitcher { height: auto; }
    SchemaForm #form-fields { height: auto; }
    SchemaForm #form-raw { height: auto; min-height: 6; max-height: 24; }
    SchemaForm .array-item { border-left: outer $panel-lighten-2; padding-left: 1; margin-bottom: 1; }
    """

    class Changed(Message):
        """The value or its problems changed (posted after every edit, in either view)."""

        def __init__(self, form: SchemaForm) -> None:
            super().__init__()
            self.form = form

        @property
        def control(self) -> SchemaForm:
            return self.form

    class Submitted(Message):
        """Enter in a field of a valid form: the user wants it sent."""

        def __init__(self, form: SchemaForm) -> None:
            super().__init__()
            self.form = form

        @property
        def control(self) -> SchemaForm:
            return self.form

    raw_mode: reactive[bool] = reactive(False, init=False)
    """True while the raw JSON editor is shown instead of the fields."""

    def __init__(
        self,
        schema: Any,
        *,
        value: Any = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.model = FormModel(schema)
        if value is not None:
            self.model.load(value)
        self._raw_text = ""
        self._raw_base = ""
        #: known before mounting, so a panel can be composed in its first state (validated again on mount)
        self._issues: list[Issue] = self.model.issues()
        #: the value as the form was built or last loaded (what `touched` compares with)
        self._pristine = _dump(self.model.value())

    # -- what the outside reads ----------------------------------------------------------------------
    @property
    def schema(self) -> dict[str, Any]:
        return self.model.schema

    @property
    def value(self) -> Any:
        """The value to send: the fields' (typed), or the raw editor's while it is shown and parses."""
        if self.raw_mode:
            try:
                return json.loads(self._raw_text)
            except ValueError:
                return None
        return self.model.value()

    @property
    def touched(self) -> bool:
        """True when the user has typed something the form did not start with (quitting would lose it)."""
        if self.raw_mode:
            return self._raw_text != self._raw_base
        return _dump(self.model.value()) != self._pristine

    @property
    def issues(self) -> list[Issue]:
        return list(self._issues)

    @property
    def errors(self) -> dict[Path, list[str]]:
        grouped: dict[Path, list[str]] = {}
        for issue in self._issues:
            grouped.setdefault(issue.path, []).append(issue.message)
        return grouped

    @property
    def raw_valid_json(self) -> bool:
        """False while the raw editor holds text that is not JSON (nothing can be sent then)."""
        if not self.raw_mode:
            return True
        try:
            json.loads(self._raw_text)
        except ValueError:
            return False
        return True

    def summary(self) -> str:
        """One line saying what is wrong (for a disabled call button), or "" when the value is valid."""
        if not self._issues:
            return ""
        first = self._issues[0]
        where = ".".join(str(p) for p in first.path) or "arguments"
        more = f" (+{len(self._issues) - 1} more)" if len(self._issues) > 1 else ""
        return f"{where}: {first.message}{more}"

    def load(self, value: Any) -> None:
        """Show `value` (in the fields; in the raw editor too when it is open)."""
        self.model.load(value)
        self._pristine = _dump(self.model.value())
        if self.raw_mode:
            self._raw_text = self._raw_base = _dump(self.model.value())
            self.query_one("#form-raw", TextArea).load_text(self._raw_text)
        self._rebuild()

    def fits(self, schema: Any) -> bool:
        """Whether `retarget(schema)` would succeed (the same shape; nothing changes here)."""
        return self._fitting(schema) is not None

    def retarget(self, schema: Any) -> bool:
        """Become the form of another schema of the same shape, as if built anew for it (nothing typed
        kept, its defaults in, its errors shown), retexting the fields in place; False (and nothing
        changed) when the shape differs, the raw editor is open or a change is still being shown."""
        found = self._fitting(schema)
        if found is None:
            return False
        root, model = found
        retarget(root, model.root)
        self.model = model
        self._raw_text = self._raw_base = ""
        self._issues = model.issues()
        self._pristine = _dump(model.value())
        self._validate()
        return True

    def _fitting(self, schema: Any) -> tuple[FieldView, FormModel] | None:
        """The root field view and the new schema's model, when the views can show it."""
        if self.raw_mode or not self.is_mounted:
            return None
        roots = self.query_one("#form-fields", Vertical).query_children(FieldView)
        root = roots.first() if len(roots) == 1 else None
        if root is None or root.node is not self.model.root:
            return None  # a load's new fields are still to be mounted
        model = FormModel(schema)
        return (root, model) if fits(root, model.root) else None

    # -- building ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="form-bar"):
            yield Static("", id="form-errors")
            yield Button("{ } JSON", id="form-raw-toggle", compact=True, tooltip="Raw JSON (F2)")
        with ContentSwitcher(initial="form-fields"):
            with Vertical(id="form-fields"):
                yield field_view(self.model.root, bare=True)
            yield TextArea("", id="form-raw", tab_behavior="focus", show_line_numbers=True)

    def on_mount(self) -> None:
        self._validate()

    def _rebuild(self) -> None:
        async def rebuild() -> None:
            fields = self.query_one("#form-fields", Vertical)
            await fields.remove_children()
            await fields.mount(field_view(self.model.root, bare=True))
            self._validate()  # now that the new fields can show their errors

        self.call_later(rebuild)

    async def focus_first(self) -> Widget | None:
        """Focus the first field on screen (never a hidden editor) and return it. A form that starts as
        an empty array gets its first item, so typing lands in a field; else the first button."""
        for _ in range(2):
            shown = shown_focusable(self)
            fields = [w for w in shown if not isinstance(w, Button)]
            if fields:
                fields[0].focus()
                return fields[0]
            adder = next((w for w in shown if isinstance(w, Button) and w.name == "add"), None)
            owner = adder.parent if adder is not None else None
            if not isinstance(owner, FieldView) or not isinstance(owner.node, ArrayNode):
                break
            owner.node.add()
            owner.edited(structural=True)
            self._pristine = _dump(self.model.value())  # an empty item is no typed input
            for _ in range(50):  # the array recomposes with its item on the next refresh
                await asyncio.sleep(0.01)
                if self.first_field() is not None:
                    break
        shown = shown_focusable(self)
        if shown:
            shown[0].focus()
        return shown[0] if shown else None

    def first_field(self) -> Widget | None:
        shown = shown_focusable(self)
        return next((w for w in shown if not isinstance(w, Button)), None)

    # -- changes -------------------------------------------------------------------------------------
    @on(Input.Submitted)
    def _entered(self, event: Input.Submitted) -> None:
        """Enter in a field: send a valid form, else go on to the next field."""
        event.stop()
        # judged on what was typed: letters typed just before (a burst) are in the fields, while the
        # validation their edits asked for waits for a refresh
        self._validate()
        if not self._issues and self.raw_valid_json:
            self.post_message(self.Submitted(self))
        else:
            self.screen.focus_next()

    @on(FieldView.Edited)
    def _edited(self, event: FieldView.Edited) -> None:
        event.stop()
        self.call_after_refresh(self._validate)  # after a structural change has recomposed

    @on(TextArea.Changed, "#form-raw")
    def _raw_edited(self, event: TextArea.Changed) -> None:
        event.stop()
        if event.text_area.text != self._raw_text:
            self._raw_text = event.text_area.text
            self._validate()

    @on(Button.Pressed, "#form-raw-toggle")
    def _toggle_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_toggle_raw()

    def action_toggle_raw(self) -> None:
        if not self.raw_mode:
            self._raw_text = self._raw_base = _dump(self.model.value())
            self.query_one("#form-raw", TextArea).load_text(self._raw_text)
            self.raw_mode = True
            return
        if self._raw_text != self._raw_base:  # edited: the fields take the new value
            try:
                value = json.loads(self._raw_text)
            except ValueError as exc:
                self.notify(f"Not valid JSON: {exc}", title="Raw JSON", severity="error")
                return
            self.model.load(value)
            self._rebuild()
        self.raw_mode = False

    def watch_raw_mode(self, raw: bool) -> None:
        self.query_one(ContentSwitcher).current = "form-raw" if raw else "form-fields"
        self.query_one("#form-raw-toggle", Button).label = "☰ Fields" if raw else "{ } JSON"
        if raw:
            self.query_one("#form-raw", TextArea).focus()
        elif self.query_one("#form-raw", TextArea).has_focus:
            self.query_one("#form-raw-toggle", Button).focus()  # the raw editor is hidden: stay in the form
        self._validate()

    def _validate(self) -> None:
        if not self.is_attached or not self.query("#form-errors"):
            return  # not composed yet, or already gone (a late call after a rebuild)
        if self.raw_mode:
            try:
                value = json.loads(self._raw_text)
            except ValueError as exc:
                self._issues = [Issue((), f"not valid JSON: {exc}", "json")]
            else:
                chosen = {n.path: n.chosen for n in self.model.root.walk() if isinstance(n, VariantNode)}
                self._issues = validate(self.model.schema, value, chosen=chosen)
        else:
            self._issues = self.model.issues()
        self._show_issues()
        self.post_message(self.Changed(self))

    def _show_issues(self) -> None:
        by_path = self.errors
        views = list(self.query(FieldView))
        shown: dict[Path, FieldView] = {}
        for view in views:
            shown.setdefault(view.node.path, view)
        placed: dict[Path, list[str]] = {}
        top: list[str] = []
        for path, messages in by_path.items():
            target = path
            while target and target not in shown:  # not on screen (a closed group): the nearest parent
                target = target[:-1]
            if target == () or self.raw_mode:
                prefix = ".".join(str(p) for p in path)
                top += [f"{prefix}: {m}" if prefix else m for m in messages]
            else:
                extra = path[len(target) :]
                lead = ".".join(str(p) for p in extra)
                placed.setdefault(target, []).extend(f"{lead}: {m}" if lead else m for m in messages)
        for path, view in shown.items():
            view.show_errors(placed.get(path, []) if path else [])
        retext(self.query_one("#form-errors", Static), Content("\n".join(f"✗ {m}" for m in top)))
