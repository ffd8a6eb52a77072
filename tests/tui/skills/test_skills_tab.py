"""The Skills tab on the scripted server: listing reads no file; loading a skill reads and verifies its
files, SKILL.md first; a skill whose SKILL.md does not match its digest is refused and nothing after it
is read. The tab shows only for a server that declares the extension."""

from __future__ import annotations

import hashlib
from typing import Any

from scripted import Script, quiet, scripted_app, settle, wait_for
from textual.pilot import Pilot
from textual.widgets import OptionList, TabbedContent

from mcpx.tui.skills.skills_view import SkillsView

SKILL_MD = "---\nname: pdf-tools\ndescription: Fill PDF forms\n---\n\nUse the forms reference.\n"
FORMS = "# Forms\n\nField names.\n"
SIZE = (130, 40)


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def entry(name: str, files: dict[str, str]) -> dict[str, Any]:
    return {
        "uri": f"skill://{name}/SKILL.md",
        "frontmatter": {"name": name, "description": "Fill PDF forms" if name == "pdf-tools" else "Tampered"},
        "resources": [{"uri": u, "digest": digest(t), "size": len(t.encode())} for u, t in files.items()],
    }


def skills_script() -> Script:
    good = {"skill://pdf-tools/SKILL.md": SKILL_MD, "skill://pdf-tools/FORMS.md": FORMS}
    bad_md = SKILL_MD.replace("pdf-tools", "evil").replace("Fill PDF forms", "Tampered")
    bad = {"skill://evil/SKILL.md": bad_md, "skill://evil/FORMS.md": FORMS}
    reads = {u: {"contents": [{"uri": u, "mimeType": "text/markdown", "text": t}]} for u, t in good.items()}
    # evil's SKILL.md is served with a body its entry's digest does not describe
    reads["skill://evil/SKILL.md"] = {"contents": [{"uri": "x", "text": bad_md + "injected\n"}]}
    reads["skill://evil/FORMS.md"] = reads["skill://pdf-tools/FORMS.md"]
    return Script(skills=[entry("pdf-tools", good), entry("evil", bad)], reads=reads)


def file_reads(app: Any) -> list[str]:
    return [e.raw for e in app.traffic if e.direction == "out" and e.method == "resources/read"]


async def open_skills(pilot: Pilot[Any], app: Any) -> SkillsView:
    side = app.query_one("#side", TabbedContent)
    await wait_for(pilot, lambda: side.get_tab("skills-tab").display)
    side.active = "skills-tab"
    await wait_for(pilot, lambda: bool(app.query(SkillsView)))
    view = app.query_one(SkillsView)
    view.action_list()
    await wait_for(pilot, lambda: len(view.entries) == 2)
    return view


async def test_list_reads_nothing_load_verifies_and_refuses_a_tampered_skill() -> None:
    session = scripted_app(skills_script())
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        view = await open_skills(pilot, app)
        assert file_reads(app) == []  # no prefetch

        view.action_load()
        await wait_for(pilot, lambda: "skill://pdf-tools/SKILL.md" in view.loaded)
        skill = view.loaded["skill://pdf-tools/SKILL.md"]
        assert skill.ok and [v.file.uri for v in skill.files] == [
            "skill://pdf-tools/SKILL.md",
            "skill://pdf-tools/FORMS.md",
        ]

        view.query_one("#skill-list", OptionList).highlighted = 1
        view.action_load()
        await wait_for(pilot, lambda: "skill://evil/SKILL.md" in view.loaded)
        evil = view.loaded["skill://evil/SKILL.md"]
        assert not evil.ok and "digest mismatch" in " ".join(evil.all_problems())
        assert not any("skill://evil/FORMS.md" in raw for raw in file_reads(app))
        assert any("skill evil" in flag for event in app.traffic for flag in event.flags)


async def test_the_tab_stays_hidden_without_the_extension() -> None:
    session = scripted_app(Script())
    app = session.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        side = app.query_one("#side", TabbedContent)
        assert not side.get_tab("skills-tab").display and not side.get_tab("tasks-tab").display


def test_skills_tab(snap_compare: Any) -> None:
    session = scripted_app(skills_script())

    async def run_before(pilot: Pilot[Any]) -> None:
        app = session.app
        await settle(pilot, app)
        view = await open_skills(pilot, app)
        view.action_load()
        await wait_for(pilot, lambda: "skill://pdf-tools/SKILL.md" in view.loaded)
        await quiet(pilot)

    assert snap_compare(session.app, terminal_size=SIZE, run_before=run_before)
