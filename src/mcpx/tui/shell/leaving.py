"""Asking before a key throws work away: quit and restart confirm while a call runs, a question from the
server waits, or a form holds what the user typed (one stray `q` or `r` used to lose all three)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcpx.tui.catalogue.item_detail import ItemDetail

if TYPE_CHECKING:
    from textual.app import App


def work_at_risk(app: App[Any], questions: int = 0) -> list[str]:
    """What `verb`ing now would lose, in words (empty: nothing); `questions`: how many the server's
    questions wait in the app's queue."""
    lost: list[str] = []
    calls = [w for w in app.workers if w.group == "requests" and w.is_running]
    if calls:
        names = ", ".join(sorted({w.name or "a request" for w in calls}))
        lost.append(f"{len(calls)} request{'s' if len(calls) != 1 else ''} in flight ({names})")
    if questions:
        lost.append(f"{questions} question{'s' if questions != 1 else ''} from the server waiting for you")
    if any(detail.holds_typed_input() for detail in app.query(ItemDetail)):
        lost.append("what you typed in the form")
    return lost


def confirm_then(app: App[Any], verb: str, go: Callable[[], None], *, questions: int = 0) -> None:
    """Run `go` at once when nothing would be lost, else after the user says yes."""
    lost = work_at_risk(app, questions)
    if not lost:
        go()
        return
    from mcpx.tui.widgets.confirm_screen import ConfirmScreen

    def answered(yes: bool | None) -> None:
        if yes:
            go()

    details = "\n".join(f"• {item}" for item in lost)
    question = f"{verb} now? This would lose:"
    app.push_screen(ConfirmScreen(question, details, confirm=verb), answered)
