"""`SkillsView`: the server's skills (the Skills extension, SEP-2640, protocol/skills.py).

**L** lists them (`skills/list`, every page): each skill's frontmatter and the files its entry declares,
with sizes and digests — and nothing is read yet. **v** (or enter) loads the highlighted skill: its
files are read, SKILL.md first, each verified against the declared size and digest and the SKILL.md's
frontmatter against the entry's; a file that fails stops the load and says why (the problem is flagged
in the traffic log too), and only verified content is shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from mcpx.errors import McpxError
from mcpx.protocol.skills import LoadedSkill, SkillEntry
from mcpx.tui.context import InspectContext
from mcpx.tui.results.content_view import json_renderable
from mcpx.tui.session_state import SessionState
from mcpx.tui.widgets.event_list_view import printable

if TYPE_CHECKING:
    from mcpx.protocol.client import Client


def _size(n: int | None) -> str:
    if n is None:
        return "?"
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


class SkillsView(Vertical):
    """The skills the server lists; the highlighted one's entry, and its files once loaded."""

    HELP: ClassVar[str] = """\
The server's skills (SEP-2640). **L** lists them: frontmatter, files, sizes and digests — no file is
fetched. **v** loads the highlighted skill: each file is read and verified (size, sha256 digest, and the
SKILL.md frontmatter against the entry's); the first that fails stops the load, and its content is not
shown.
"""
    BINDING_GROUP_TITLE = "Skills"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("L", "list", "List skills", id="skills-list", tooltip="skills/list (reads no file)"),
        Binding("v", "load", "Load & verify", id="skills-load", tooltip="Read and verify the skill's files"),
    ]
    DEFAULT_CSS = """
    SkillsView { height: 1fr; }
    SkillsView > #skills-summary { height: auto; color: $text-muted; }
    SkillsView > #skills-bar { height: auto; }
    SkillsView > #skills-bar > Button { margin-right: 1; }
    SkillsView > #skill-list { height: 8; border: none; }
    SkillsView > #skill-detail { height: 1fr; }
    """

    session: reactive[SessionState | None] = reactive(None, init=False)
    """The session (bound from the app): a new connection forgets what the last one listed."""

    def __init__(self, context: InspectContext, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.context = context
        self.entries: list[SkillEntry] = []
        #: loaded skills by their SKILL.md URI
        self.loaded: dict[str, LoadedSkill] = {}
        self._client: Client | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            "Press L to list the server's skills (no file is read until you load one).", id="skills-summary"
        )
        with Horizontal(id="skills-bar"):
            yield Button("List  L", id="skills-list", compact=True)
            yield Button("Load & verify  v", id="skills-load", variant="primary", compact=True, disabled=True)
        yield OptionList(id="skill-list")
        with VerticalScroll(id="skill-detail"):
            yield Static("", id="skill-detail-body")

    def watch_session(self, session: SessionState | None) -> None:
        if self.context.client is not self._client:
            self._client = self.context.client
            self.entries, self.loaded = [], {}
            self._show()

    # -- actions -------------------------------------------------------------------------------------
    @on(Button.Pressed, "#skills-list")
    def _list_pressed(self) -> None:
        self.action_list()

    @on(Button.Pressed, "#skills-load")
    def _load_pressed(self) -> None:
        self.action_load()

    @on(OptionList.OptionSelected, "#skill-list")
    def _selected(self) -> None:
        self.action_load()

    @on(OptionList.OptionHighlighted, "#skill-list")
    def _highlighted(self) -> None:
        self._show_detail()

    def action_list(self) -> None:
        client = self.context.client_for(self, "Not listed")
        if client is not None:
            self.run_worker(
                self._run(client.skills.list, self._listed), group="requests", exit_on_error=False
            )

    def action_load(self) -> None:
        entry = self.highlighted
        client = self.context.client_for(self, "Not loaded")
        if entry is None or client is None:
            return

        async def load() -> LoadedSkill:
            return await client.skills.load(entry)

        self.run_worker(self._run(load, self._loaded), group="requests", exit_on_error=False)

    async def _run(self, call: Callable[[], object], then: Callable[[object], None]) -> None:
        try:
            result = await call()  # type: ignore[misc]
        except McpxError as exc:
            self.notify(exc.message, severity="error")
            return
        then(result)

    def _listed(self, entries: object) -> None:
        self.entries = list(entries) if isinstance(entries, list) else []
        self._show()

    def _loaded(self, skill: object) -> None:
        if isinstance(skill, LoadedSkill):
            self.loaded[skill.entry.uri] = skill
            if not skill.ok:
                self.notify(f"{skill.entry.name} failed verification: it was not loaded", severity="error")
        self._show()

    # -- what is shown -------------------------------------------------------------------------------
    @property
    def highlighted(self) -> SkillEntry | None:
        listing = self.query_one("#skill-list", OptionList)
        index = listing.highlighted
        return self.entries[index] if index is not None and index < len(self.entries) else None

    def _show(self) -> None:
        if not self.is_attached or not self.query("#skill-list"):
            return
        listing = self.query_one("#skill-list", OptionList)
        keep = listing.highlighted
        listing.clear_options()
        listing.add_options([Option(self._row(entry), id=entry.uri) for entry in self.entries])
        if self.entries:
            listing.highlighted = keep if keep is not None and keep < len(self.entries) else 0
            failed = sum(not s.ok for s in self.loaded.values())
            text = f"{len(self.entries)} skill(s); {len(self.loaded)} loaded"
            self.query_one("#skills-summary", Static).update(
                text + (f", {failed} failed verification" if failed else "")
            )
        self.query_one("#skills-load", Button).disabled = not self.entries
        self._show_detail()

    def _row(self, entry: SkillEntry) -> Text:
        skill = self.loaded.get(entry.uri)
        mark = ("✓ " if skill.ok else "✗ ") if skill is not None else "· "
        row = Text(mark, style=("green" if skill.ok else "bold red") if skill is not None else "dim")
        row.append(printable(entry.name), style="bold")
        files = entry.files
        count = (
            "dynamic files"
            if files is None
            else f"{len(files)} file(s), {_size(sum(f.size or 0 for f in files))}"
        )
        row.append(f"  {count}  ", style="dim")
        row.append(printable(entry.description)[:80])
        return row

    def _show_detail(self) -> None:
        body = self.query_one("#skill-detail-body", Static)
        entry = self.highlighted
        if entry is None:
            body.update("")
            return
        parts: list[RenderableType] = [Text(entry.uri, style="bold"), json_renderable(entry.frontmatter)]
        for problem in entry.problems:
            parts.append(Text(f"entry: {problem}", style="bold red"))
        skill = self.loaded.get(entry.uri)
        verdicts = {v.file.uri: v for v in skill.files} if skill is not None else {}
        table = Table("file", "size", "digest", "verified", box=None, padding=(0, 1), expand=True)
        for file in entry.files or ():
            verdict = verdicts.get(file.uri)
            mark = "" if verdict is None else ("[green]✓[/]" if verdict.ok else "[bold red]✗[/]")
            table.add_row(
                escape(printable(file.uri)), _size(file.size), escape((file.digest or "?")[:23] + "…"), mark
            )
        parts.append(table)
        if skill is not None:
            for problem in skill.all_problems():
                parts.append(Text(printable(problem), style="bold red"))
            first = skill.files[0] if skill.files else None
            if first is not None and first.ok and first.content is not None:
                parts.append(Text("SKILL.md (verified)", style="bold"))
                parts.append(Text(printable(first.content.decode("utf-8", "replace"), multiline=True)[:4000]))
        body.update(Group(*parts))
