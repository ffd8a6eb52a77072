"""Keys inside a form belong to the form: where focus may go, and which keys never leave it.

A letter typed while focus is on a form's button or checkbox used to reach the app's one-letter keys
(`r` restarted the server and lost the form). `keep_letters(container, event)` stops a printable key
that bubbled out of the focused widget unless a widget between it and `container` binds that key, so the
app's letters never fire from inside a form while the form's own keys still work.

`shown_focusable(root)` lists what can take focus and is on screen: Textual's `focusable` ignores a
`display: none` ancestor (the raw JSON editor behind a ContentSwitcher), so focusing "the first field"
could land in a hidden editor where keystrokes vanish.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget

#: the class of a container that owns its letter keys (`keep_letters` runs in its `on_key`)
OWNS_LETTERS = "owns-letters"


def is_shown(widget: Widget, root: Widget | None = None) -> bool:
    """True when `widget` and every ancestor (up to `root`) is displayed and visible."""
    node: Widget | None = widget
    while node is not None:
        if not node.display or not node.visible:
            return False
        if node is root:
            return True
        parent = node.parent
        node = parent if isinstance(parent, Widget) else None
    return True


def shown_focusable(root: Widget) -> list[Widget]:
    """Widgets under `root` that can take focus and are on screen, in DOM (screen) order."""
    return [w for w in root.query("*") if w.focusable and is_shown(w, root)]


def keep_letters(container: Widget, event: events.Key) -> bool:
    """Stop a printable key (not space) that would reach bindings outside `container`; True if stopped."""
    if not event.is_printable or event.character in (None, " "):
        return False
    focused = container.app.focused
    if focused is None or (focused is not container and container not in focused.ancestors):
        return False
    node: Widget | None = focused
    while node is not None:
        if event.key in node._bindings.key_to_bindings:  # a key this form binds itself: let it through
            return False
        if node is container:
            break
        parent = node.parent
        node = parent if isinstance(parent, Widget) else None
    event.stop()
    event.prevent_default()
    return True


def letters_owned(focused: Widget | None) -> bool:
    """True while focus is inside a container that keeps the app's letter keys from firing: the footer
    must not offer keys that would do nothing there."""
    node: Widget | None = focused
    while node is not None:
        if node.has_class(OWNS_LETTERS):
            return True
        parent = node.parent
        node = parent if isinstance(parent, Widget) else None
    return False
