"""`DeathBanner`: when the server dies or the connection drops — what happened, its last words, and `r`."""

from __future__ import annotations

import shlex

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from mcpx.tui.session_state import SessionState
from mcpx.tui.widgets.event_list_view import printable


class DeathBanner(Static):
    """Shown only while the session is dead (exited, disconnected, failed to connect)."""

    DEFAULT_CSS = """
    DeathBanner {
        display: none;
        height: auto;
        max-height: 14;
        padding: 0 1;
        background: $error 20%;
        border-left: thick $error;
        &.-visible { display: block; }
    }
    """

    session: reactive[SessionState] = reactive(SessionState)
    """The connection as the app last saw it."""
    read_only: reactive[bool] = reactive(False)
    """A recording is open: the end is told as recorded, with no key to reconnect."""

    def __init__(self, doctor_hint: str | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: `mcpx doctor …` reaching the same server, runnable as printed (None: the target's label)
        self.doctor_hint = doctor_hint

    def watch_session(self) -> None:
        self._show()

    def watch_read_only(self) -> None:
        self._show()

    def _show(self) -> None:
        session = self.session
        self.set_class(session.is_dead, "-visible")
        if session.is_dead:
            self.update(self.describe(session))

    def describe(self, session: SessionState) -> Content:
        if session.state == "exited":
            headline = session.state_label[0].upper() + session.state_label[1:] + "."
        elif session.state == "failed":
            headline = "Could not connect to the server."
        else:
            headline = "The connection was lost."
        parts: list[tuple[str, str] | str] = [("✖ " + headline, "bold $text-error")]
        detail = (session.error or "").split("; last stderr lines")[0].splitlines()[0:1]
        sentence = detail[0] if detail else ""
        if session.state == "exited":  # the headline says how it ended; keep only what it was doing
            sentence = "It happened " + sentence.split(" while ", 1)[1] + "." if " while " in sentence else ""
        if sentence:
            parts.append("  " + printable(sentence))
        if session.stderr_tail:
            parts.append(("\nLast lines on stderr:", "$foreground-muted"))
            for line in session.stderr_tail:
                parts.append("\n  │ " + printable(line[:300]))
        if self.read_only:
            parts.append(("\nAs recorded: the session ended here.", "$foreground-muted"))
            return Content.assemble(*parts)
        if session.state == "failed" and (self.doctor_hint or session.target):
            hint = self.doctor_hint or shlex.join(["mcpx", "doctor", session.target])
            parts += ["\nTo see which step fails: ", (printable(hint), "bold")]
        parts += ["\nPress ", (" r ", "bold reverse"), " to reconnect (the traffic log is kept), "]
        parts += [(" q ", "bold reverse"), " to quit."]
        return Content.assemble(*parts)
