"""Writes 20 MB to stderr while handling initialize (argv[1] sets the megabytes), then behaves.

A client that does not read stderr concurrently deadlocks here: the pipe fills and the server blocks.
"""

import sys

import bare

MEGABYTES = float(sys.argv[1]) if len(sys.argv) > 1 else 20


def flood():
    line = ("x" * 99 + "\n").encode()
    for _ in range(int(MEGABYTES * 1024 * 1024 / len(line))):
        sys.stderr.buffer.write(line)
    sys.stderr.buffer.write(b"flood done\n")
    sys.stderr.flush()


bare.serve(name="stderr-flood", on_initialize=flood)
