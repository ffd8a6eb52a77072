"""The Subscriptions tab on the scripted server: hidden until the session subscribes; then each
subscribed URI with its updates and the time since the last one, an update for a URI not subscribed
marked as such, and u unsubscribes."""

from __future__ import annotations

import json

from scripted import RESOURCES, Script, scripted_app, settle, wait_for
from textual.widgets import OptionList, TabbedContent

from mcpx.tui.subscriptions.subscriptions_view import SubscriptionsView


def updated(uri: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})


async def test_subscribe_see_updates_and_unsubscribe() -> None:
    session = scripted_app(Script())
    app = session.app
    uri = RESOURCES[0]["uri"]
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot, app)
        side = app.query_one("#side", TabbedContent)
        assert not side.get_tab("subscriptions-tab").display
        client = app.connection.client
        await client.subscribe_resource(uri)
        await wait_for(pilot, lambda: side.get_tab("subscriptions-tab").display)
        side.active = "subscriptions-tab"
        await wait_for(pilot, lambda: bool(app.query(SubscriptionsView)))
        view = app.query_one(SubscriptionsView)
        listing = view.query_one("#subscription-list", OptionList)
        await wait_for(pilot, lambda: listing.option_count == 1)

        session.transport.emit(updated(uri))
        session.transport.emit(updated(uri))
        session.transport.emit(updated("file:///elsewhere"))
        await wait_for(
            pilot,
            lambda: listing.option_count == 2 and "2 updates" in str(listing.get_option_at_index(0).prompt),
        )
        first, other = (str(listing.get_option_at_index(i).prompt) for i in (0, 1))
        assert first.startswith(uri) and "ago" in first
        assert "file:///elsewhere" in other and "not subscribed" in other

        listing.highlighted = 0
        view.action_unsubscribe()
        await wait_for(pilot, lambda: uri not in client.watching.uris)
        assert any(e.method == "resources/unsubscribe" and e.direction == "out" for e in app.traffic)
        await wait_for(
            pilot,
            lambda: (
                "not subscribed" in str(listing.get_option_at_index(0).prompt) or listing.option_count == 2
            ),
        )
