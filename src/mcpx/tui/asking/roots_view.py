"""`RootsView`: the roots the client advertises (from `--root` and the current directory on request),
added, removed and renamed here. Each change posts `RootsView.Changed`; the app advertises the new list
(legacy era: `notifications/roots/list_changed`). How often the server asked (`roots/list`) shows on top.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable, Input, Label

from mcpx.tui.asking.asking import root_for


def root_from_text(text: str, name: str = "") -> dict[str, Any]:
    """A root from what the user typed: a URI as it is, a path made absolute and turned into file://."""
    text = text.strip()
    if "://" in text:
        root: dict[str, Any] = {"uri": text}
        tail = text.rstrip("/").rsplit("/", 1)[-1]
        if name.strip() or tail:
            root["name"] = name.strip() or tail
        return root
    return root_for(Path(text).expanduser(), name.strip() or None)


class RootsView(Vertical):
    """A table of roots and two inputs (path or URI, name) to add or rename one."""

    BINDING_GROUP_TITLE = "Roots"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "focus_add", "Add", id="roots-add", tooltip="Type a path or URI to add as a root"),
        Binding("full_stop", "add_cwd", "Add cwd", id="roots-add-cwd", tooltip="Add the current directory"),
        Binding("x,delete", "remove", "Remove", id="roots-remove", tooltip="Remove the highlighted root"),
        Binding("n", "rename", "Rename", id="roots-rename", tooltip="Rename the highlighted root"),
    ]
    HELP: ClassVar[str] = """\
**Roots** are the directories (or other URIs) the client tells the server it may work in. The server
asks for them with `roots/list`; mcpx answers with this list, in both eras.

**a** types a path or URI to add (a path becomes a `file://` URI), **.** adds the directory mcpx was
started in, **n** renames the highlighted root, **x** removes it. `--root PATH` on the command line
fills the list at start. In the legacy era each change sends `notifications/roots/list_changed`; the
2026-07-28 era has no such notification (the server asks again when it needs the roots).
"""

    roots: reactive[tuple[dict[str, Any], ...]] = reactive(tuple, init=False)
    """The roots as advertised."""
    asked: reactive[int] = reactive(0, init=False)
    """How many times the server asked for the roots in this session."""

    class Changed(Message):
        """The user changed the roots."""

        def __init__(self, view: RootsView, roots: list[dict[str, Any]]) -> None:
            super().__init__()
            self.view = view
            self.roots = roots

        @property
        def control(self) -> RootsView:
            return self.view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._renaming: int | None = None

    def compose(self) -> ComposeResult:
        yield Label("", id="roots-status")
        yield DataTable(id="roots-table", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="roots-inputs"):
            yield Input(placeholder="path or URI to add (Enter)", id="roots-uri")
            yield Input(placeholder="name (optional)", id="roots-name")
        yield Label("a add · . add the current directory · n rename · x remove", id="roots-keys")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("name", "uri")
        self._fill()

    def focus_table(self) -> None:
        self.query_one(DataTable).focus()

    def watch_roots(self) -> None:
        self._fill()

    def watch_asked(self) -> None:
        self._status()

    def _fill(self) -> None:
        tables = self.query(DataTable)
        if not tables:
            return
        table = tables.first()
        row = table.cursor_row
        table.clear()
        for root in self.roots:
            table.add_row(str(root.get("name", "")), str(root.get("uri", "")))
        if self.roots:
            table.move_cursor(row=min(max(row, 0), len(self.roots) - 1))
        self._status()

    def _status(self) -> None:
        count = len(self.roots)
        asked = f"the server asked {self.asked}×" if self.asked else "the server has not asked yet"
        self.query_one("#roots-status", Label).update(
            f"{count} root{'s' if count != 1 else ''} advertised · {asked}"
        )

    def _change(self, roots: list[dict[str, Any]]) -> None:
        self.roots = tuple(roots)
        self.post_message(self.Changed(self, list(roots)))

    # -- actions -------------------------------------------------------------------------------------
    def action_focus_add(self) -> None:
        self._renaming = None
        self.query_one("#roots-uri", Input).focus()

    def action_add_cwd(self) -> None:
        root = root_for(Path.cwd())
        if any(r.get("uri") == root["uri"] for r in self.roots):
            self.notify(f"{root['uri']} is a root already.")
            return
        self._change([*self.roots, root])

    def action_remove(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.roots):
            self._change([r for i, r in enumerate(self.roots) if i != row])

    def action_rename(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if not 0 <= row < len(self.roots):
            return
        self._renaming = row
        name = self.query_one("#roots-name", Input)
        name.value = str(self.roots[row].get("name", ""))
        name.placeholder = f"new name for {self.roots[row].get('uri')} (Enter)"
        name.focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        uri = self.query_one("#roots-uri", Input)
        name = self.query_one("#roots-name", Input)
        if self._renaming is not None and event.input is name:
            row, self._renaming = self._renaming, None
            if row < len(self.roots):
                renamed = dict(self.roots[row])
                if name.value.strip():
                    renamed["name"] = name.value.strip()
                else:
                    renamed.pop("name", None)
                self._change([renamed if i == row else r for i, r in enumerate(self.roots)])
            name.value, name.placeholder = "", "name (optional)"
            self.query_one(DataTable).focus()
            return
        if not uri.value.strip():
            uri.focus()
            return
        root = root_from_text(uri.value, name.value)
        if any(r.get("uri") == root["uri"] for r in self.roots):
            self.notify(f"{root['uri']} is a root already.")
            return
        self._change([*self.roots, root])
        uri.value = name.value = ""
        self.query_one(DataTable).focus()
