"""The Subscriptions tab: the resources this session watches, with their updates."""
