"""The process tree below a server (transports/descendants.py), read down through the kernel's children
lists, is the tree read from every process's parent."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from mcpx.transports import descendants

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc (Linux)")


def test_the_tree_read_down_is_the_tree_read_up() -> None:
    # root sh → (sh → sleep) and sleep: three descendants, two levels
    root = subprocess.Popen(["/bin/sh", "-c", 'sh -c "sleep 60 & wait" & sleep 60 & wait'])
    try:
        deadline = time.monotonic() + 10
        while len(descendants._scan(root.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        scanned = descendants._scan(root.pid)
        assert len(scanned) == 3
        assert descendants.descendants(root.pid) == scanned
    finally:
        descendants.signal_all(descendants._scan(root.pid) | {root.pid})
        root.wait(timeout=5)
