"""The Tasks tab: the session's tasks, both ways, with their status, polls, results and cancel."""
