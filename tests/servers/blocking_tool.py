"""A server that reads one message at a time and answers in order: its `slow` tool blocks for half a second,
so a cancel sent meanwhile is read only after the tool's answer is written (the spec's race: the answer was
on its way before the server saw the cancel). Standard library only (bare.py)."""

import time

import bare


def slow(message):
    time.sleep(0.5)
    return bare.text("done")


SLOW = {**bare.tool("slow"), "annotations": {"readOnlyHint": True}}  # mcpx check calls read-only tools
bare.serve(name="blocking-tool", tools=[SLOW], calls={"slow": slow})
