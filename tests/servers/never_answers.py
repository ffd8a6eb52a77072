"""Never answers a tool call (or, with argv `initialize`, never answers initialize).

What it receives is recorded (MCPX_TEST_RECORD), so a test can see the client's
notifications/cancelled; `hang` also ignores stdin closing and SIGTERM, to need a SIGKILL.

usage: never_answers.py [call|initialize|stubborn]
"""

import signal
import sys
import time

import bare

MODE = sys.argv[1] if len(sys.argv) > 1 else "call"

if MODE == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def silent(message):
    return bare.NO_ANSWER


bare.serve(
    name="never-answers",
    tools=[bare.tool("wait")],
    calls={"wait": silent},
    methods={"initialize": silent} if MODE == "initialize" else None,
)
if MODE == "stubborn":
    while True:  # stdin is closed: keep running anyway
        time.sleep(1)
