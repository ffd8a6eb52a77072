"""The inspector screen's keys: every binding `InspectScreen` has, and the sets of actions its
`check_action` hides (a form that keeps its letters; the traffic panel before it has mounted)."""

from __future__ import annotations

from textual.binding import Binding, BindingType

#: the letter keys of the catalogue's tabs (the official inspector's TUI has them too)
CATALOGUE_KEYS = (
    ("T", "tools", "Tools"),
    ("R", "resources", "Resources"),
    ("M", "resourceTemplates", "Templates"),
    ("P", "prompts", "Prompts"),
)
#: actions that need the traffic panel (see check_action)
PANEL_ACTIONS = {"focus_traffic", "clear_log", "toggle_follow", "copy_event"}
#: actions bound to a bare letter only: a form that owns its letters hides them (see check_action)
LETTER_ACTIONS = {
    "ask_quit",
    "focus_traffic",
    "reconnect",
    "refuse_reconnect",
    "show_info",
    "focus_browser",
    "show_check",
    "show_kind",
}
INSPECT_BINDINGS: list[BindingType] = [
    Binding("q", "app.ask_quit", "Quit", id="quit", tooltip="Stop the server and quit"),
    Binding("question_mark,f1", "help", "Help", id="help", tooltip="Help for the focused pane, and its keys"),
    Binding("t", "focus_traffic", "Traffic", id="focus-traffic", tooltip="Jump to the traffic log"),
    Binding("r", "reconnect", "Reconnect", id="reconnect", tooltip="Restart the server / connect again"),
    # a recording has nothing to reconnect to: r only says so, and the footer does not offer it
    Binding("r", "refuse_reconnect", "Reconnect", show=False, tooltip="Nothing to reconnect"),
    Binding("i", "show_info", "Info", id="show-info", tooltip="Instructions, capabilities, handshake"),
    Binding("b", "focus_browser", "Browser", show=False, id="focus-browser", tooltip="Jump to the catalogue"),
    Binding("C", "show_check", "Check", show=False, id="show-check", tooltip="Run mcpx check on the server"),
    Binding(
        "ctrl+r", "call_tool", "Call", show=False, id="call-selected-tool", tooltip="Call the tool shown"
    ),
    Binding(
        "ctrl+t",
        "save_as_test",
        "Save as test",
        show=False,
        id="save-as-test",
        tooltip="Call → collection",
    ),
    *(
        Binding(
            key,
            f"show_kind('{kind}')",
            title,
            show=False,
            id=f"show-{title.lower()}",
            tooltip=f"{title} tab",
        )
        for key, kind, title in CATALOGUE_KEYS
    ),
]
