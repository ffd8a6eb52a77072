"""The inspector's side pane: the selected item's detail, then the session's history, the server's info,
its roots, checks, tasks, skills and subscriptions. Every tab but the first two mounts its view a refresh
after the screen's first paint (`Lazy`), so the catalogue shows sooner; a tab not shown costs a key
nothing (a hidden pane is neither laid out nor drawn). `InspectScreen` hides the tabs that mean nothing
yet (tasks, skills, subscriptions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.widgets import TabbedContent, TabPane

from mcpx.tui.asking.roots_view import RootsView
from mcpx.tui.catalogue.item_detail import ItemDetail
from mcpx.tui.check.check_view import CheckView
from mcpx.tui.history.call_history import CallHistory
from mcpx.tui.shell.info_view import InfoView
from mcpx.tui.skills.skills_view import SkillsView
from mcpx.tui.subscriptions.subscriptions_view import SubscriptionsView
from mcpx.tui.tasks.tasks_view import TasksView
from mcpx.tui.widgets.lazy import Lazy

if TYPE_CHECKING:
    from mcpx.tui.shell.inspect_screen import InspectScreen


def compose_side_pane(screen: InspectScreen) -> ComposeResult:
    """The side pane's tabs, bound to `screen`'s state (called from its compose: binds to the screen)."""
    bound = type(screen)
    context = screen.context
    with TabbedContent(id="side"):
        with TabPane("Detail", id="detail-tab"):
            yield ItemDetail(context, id="detail")
        with TabPane("History", id="history-tab"):
            yield CallHistory(context, id="history").data_bind(bound.session, bound.catalog)
        with TabPane("Info", id="info-tab"):
            yield Lazy(InfoView(id="info").data_bind(info=bound.server_info))
        with TabPane("Roots", id="roots-tab"):
            yield Lazy(RootsView(id="roots").data_bind(bound.roots, asked=bound.roots_asked))
        with TabPane("Check", id="check-tab"):
            yield Lazy(CheckView(context, id="check"))
        with TabPane("Tasks", id="tasks-tab"):
            yield Lazy(TasksView(context, id="tasks").data_bind(bound.session))
        with TabPane("Skills", id="skills-tab"):
            yield Lazy(SkillsView(context, id="skills").data_bind(bound.session))
        with TabPane("Subscriptions", id="subscriptions-tab"):
            yield Lazy(SubscriptionsView(context, id="subscriptions").data_bind(bound.session))
