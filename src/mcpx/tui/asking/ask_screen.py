"""`AskScreen`: the modal every question from the server opens in — who asks, which request it is and
how many more wait — answered exactly once (the ask's future), then dismissed."""

from __future__ import annotations

from typing import Any

from textual.screen import ModalScreen

from mcpx.tui.asking.asking import Ask, Asking


class AskScreen(ModalScreen[None]):
    """The base of the elicitation, URL and sampling screens."""

    #: the dialog container's id (its border shows the title)
    DIALOG_ID = "ask-dialog"

    def __init__(self, ask: Ask, asking: Asking) -> None:
        super().__init__()
        self.ask = ask
        self.asking = asking
        self._what = ""

    def on_mount(self) -> None:
        # more questions may arrive while this one is open: the title counts them
        self.set_interval(0.25, self._retitle, name="ask-title")

    def _retitle(self) -> None:
        for dialog in self.query(".ask-dialog"):
            if self._what:
                dialog.border_title = self.title_for(self._what)

    def title_for(self, what: str) -> str:
        self._what = what
        place, waiting = self.asking.position(self.ask)
        more = f" · {waiting - place} more waiting" if waiting > place else ""
        return f"{what} #{self.ask.number}{more}"

    def who_asks(self, doing: str) -> str:
        return f"[b]{_escape(self.ask.server)}[/b] {doing}"

    def answer(self, result: Any) -> None:
        """Send `result` as the answer and close."""
        self.ask.answer(result)
        self.dismiss(None)

    def fail(self, error: BaseException) -> None:
        """Answer with a JSON-RPC error (the server sees it) and close."""
        self.ask.reject(error)
        self.dismiss(None)


def _escape(text: str) -> str:
    from textual.markup import escape

    return escape(text)
