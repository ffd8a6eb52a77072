"""Exits with a code after writing a few stderr lines: at start, during initialize, or mid-call.

usage: dies.py [start|initialize|call] [exit code]
"""

import sys

import bare

WHEN = sys.argv[1] if len(sys.argv) > 1 else "call"
CODE = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def die():
    for line in ("working on it", "still working", "FATAL: the disk is on fire"):
        sys.stderr.write(line + "\n")
    sys.stderr.flush()
    raise SystemExit(CODE)


if WHEN == "start":
    bare.start()
    die()


def crash(message):
    die()


bare.serve(
    name="dies",
    tools=[bare.tool("crash")],
    calls={"crash": crash},
    on_initialize=die if WHEN == "initialize" else None,
)
