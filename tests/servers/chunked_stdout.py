"""Writes a fixed script of stdout bytes in awkward pieces, then exits: a stress test of mcpx's reader.

No JSON-RPC conversation: the client only reads. Each piece is its own `write(2)` followed by a short
pause, so the reader sees lines split across reads, several lines in one read, a CRLF ending, invalid
UTF-8, a frame of tens of megabytes arriving in many reads, and a last line with no newline at all.
`python chunked_stdout.py N` makes the big frame N MB (default 30). The frames are listed by
`frames(n)`, which the tests import, so what was written and what must be read are one definition.
"""

from __future__ import annotations

import os
import sys
import time


def big_frame(megabytes: int) -> bytes:
    text = b"x" * (megabytes << 20)
    return b'{"jsonrpc":"2.0","method":"big","params":{"text":"' + text + b'"}}'


def pieces(megabytes: int) -> list[bytes]:
    big = big_frame(megabytes)
    return [
        b'{"jsonrpc":"2.0","method":"one"',  # a line split across reads
        b',"params":{}}\n{"jsonrpc":"2.0","method":"two"}\n{"jsonrpc"',  # the end of one, a whole one, a start
        b':"2.0","method":"three"}\r\n',  # CRLF
        b'{"jsonrpc":"2.0","method":"four"}\r\n',  # a whole CRLF frame in one read
        b"\n\n",  # empty lines are skipped
        b'{"jsonrpc":"2.0","method":"caf\xe9","params":{"v":"\xff\xfe"}}\n',  # not UTF-8
        big[: len(big) // 3],
        big[len(big) // 3 : 2 * len(big) // 3],
        big[2 * len(big) // 3 :] + b"\n",
        b'{"jsonrpc":"2.0","method":"after-big"}\n',
        b'{"jsonrpc":"2.0","method":"unterminated"}',  # the last line has no newline
    ]


def frames(megabytes: int) -> list[bytes]:
    """The frames a reader must produce from `pieces()`: exact bytes, line ends removed."""
    return [
        b'{"jsonrpc":"2.0","method":"one","params":{}}',
        b'{"jsonrpc":"2.0","method":"two"}',
        b'{"jsonrpc":"2.0","method":"three"}',
        b'{"jsonrpc":"2.0","method":"four"}',
        b'{"jsonrpc":"2.0","method":"caf\xe9","params":{"v":"\xff\xfe"}}',
        big_frame(megabytes),
        b'{"jsonrpc":"2.0","method":"after-big"}',
        b'{"jsonrpc":"2.0","method":"unterminated"}',
    ]


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    for piece in pieces(megabytes):
        view = memoryview(piece)
        while view:
            view = view[os.write(1, view) :]
        time.sleep(0.02)


if __name__ == "__main__":
    main()
