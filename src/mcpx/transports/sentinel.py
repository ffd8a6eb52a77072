"""The orphan guard: a tiny process that takes a stdio server down if mcpx dies, however abruptly.

mcpx cannot clean up after a SIGKILL, so each server gets a sentinel: a `/bin/sh` that reads a pipe only
mcpx holds the other end of. An end of file cannot be missed the way a death signal can (one that came
while a guard still started up was lost, and uvloop's spawn unblocks every signal), so when the pipe ends
— mcpx died — the sentinel kills the server's whole process group, grandchildren included (`npx → node`),
and then, where `/proc` exists, every process carrying the server's environment mark (descendants that
left the group with setsid(); see descendants.py).

Why a shell and this order. The sentinel starts *before* the server, with the server's mark, and is told
the server's process group in one line once the server exists: mcpx killed between the two spawns still
leaves nothing behind on Linux (the mark finds the server), which is what PR_SET_PDEATHSIG covered
before — at the price of ctypes and a fork without vfork in every server's child. While it waits, the
sentinel is a shell blocked in `read` (≈ 1 ms of CPU to start; a Python interpreter was ≈ 15 ms on every
`mcpx call`); only when it fires does it `exec` Python for the mark scan, a path taken once mcpx is dead.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

from mcpx.transports.descendants import ENV_MARK
from mcpx.wire.waiting import within

#: POSIX sh, run as `sh -c WAIT PYTHON SCAN MARK`: the first line written is the process group (a whole
#: line or nothing: a partial one never names a group), then nothing until the pipe ends
_WAIT = (
    "if read -r group; then :; else group=; fi\n"
    "while read -r _; do :; done\n"
    'case $group in ""|*[!0-9]*) ;; *) kill -s KILL -- "-$group" 2>/dev/null;; esac\n'
    '[ -d /proc ] && [ -n "$0" ] && exec "$0" -I -S -c "$1" "$2"\n'
)
#: the mark scan, in the Python that runs mcpx (sys.argv[1]: the mark); the sentinel itself is exempt
_SCAN = (
    "import os,signal,sys\n"
    f"needle = ('{ENV_MARK}=' + sys.argv[1]).encode()\n"
    "for name in os.listdir('/proc'):\n"
    "    try:\n"
    "        if name.isdigit() and int(name) != os.getpid():\n"
    "            if needle in open('/proc/' + name + '/environ', 'rb').read().split(b'\\0'):\n"
    "                os.kill(int(name), signal.SIGKILL)\n"
    "    except OSError: pass\n"
)


class Sentinel:
    """One server's guard: `start()` it before the server, `guard()` the server's group, `stop()` it
    once the server is stopped (it is killed, never left to fire on a group that may be reused)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @classmethod
    async def start(cls, mark: str) -> Sentinel | None:
        """The sentinel for the server that will carry `mark` (None where no shell can be started)."""
        try:
            process = await asyncio.create_subprocess_exec(
                "/bin/sh", "-c", _WAIT, sys.executable or "", _SCAN, mark,
                stdin=asyncio.subprocess.PIPE,  # written once (the group), then its end is the signal
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,  # no terminal's signals, no group of mcpx's
            )  # fmt: skip
        except OSError:
            return None
        return cls(process)

    def guard(self, pgid: int) -> None:
        """Name the server's process group: one write of one line (atomic on a pipe)."""
        stdin = self.process.stdin
        if stdin is not None:
            with contextlib.suppress(OSError, RuntimeError):
                stdin.write(b"%d\n" % pgid)

    async def stop(self, timeout: float) -> None:
        process = self.process
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await within(process.wait(), timeout=timeout)
