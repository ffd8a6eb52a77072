"""mcpx.tui, the Textual face (DESIGN.md; docs/architecture.md says where a new pane goes).

The names in `__all__` are the TUI's public entry points — what `mcpx.cli`, the scripts and the
benchmarks use; the feature folders behind them (`shell/`, `catalogue/`, `traffic/`, …) may move. They
load on first use (PEP 562), so `import mcpx.tui` never imports Textual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpx.tui.attach.attach_app import make_attach_app, run_attach
    from mcpx.tui.replay.replay_app import ReplayApp, make_replay_app
    from mcpx.tui.settings import InspectSettings
    from mcpx.tui.shell.app import InspectApp, make_app, run_inspect
    from mcpx.tui.shell.sign_in_screen import TuiSignIn
    from mcpx.tui.workspace.workspace_app import WorkspaceApp, run_workspace

_HOMES = {
    "make_attach_app": "mcpx.tui.attach.attach_app",
    "run_attach": "mcpx.tui.attach.attach_app",
    "InspectApp": "mcpx.tui.shell.app",
    "make_app": "mcpx.tui.shell.app",
    "run_inspect": "mcpx.tui.shell.app",
    "InspectSettings": "mcpx.tui.settings",
    "ReplayApp": "mcpx.tui.replay.replay_app",
    "make_replay_app": "mcpx.tui.replay.replay_app",
    "WorkspaceApp": "mcpx.tui.workspace.workspace_app",
    "run_workspace": "mcpx.tui.workspace.workspace_app",
    "TuiSignIn": "mcpx.tui.shell.sign_in_screen",
}
__all__ = [
    "InspectApp",
    "InspectSettings",
    "ReplayApp",
    "TuiSignIn",
    "WorkspaceApp",
    "make_app",
    "make_attach_app",
    "make_replay_app",
    "run_attach",
    "run_inspect",
    "run_workspace",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # the next lookup is a plain attribute (and monkeypatch can replace it)
    return value
