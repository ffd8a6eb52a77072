"""The bottom panel: the traffic log and its filter, notifications, server log, stderr, problems, one event
in full.
"""
