"""The heap is settled (collected, then frozen) only after a big listing; freed heap goes back to the system."""

from __future__ import annotations

import ctypes.util
import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator

import pytest

from mcpx.tui.shell.heap import BIG_LISTING, return_freed_memory, settle_after_listing


class Node:
    other: object


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_a_small_listing_leaves_the_collector_alone(unfrozen: None) -> None:
    assert not settle_after_listing(BIG_LISTING - 1)
    assert gc.get_freeze_count() == 0


def test_a_big_listing_freezes_what_is_alive_but_no_garbage(unfrozen: None) -> None:
    alive = Node()
    garbage = Node()
    garbage.other = garbage  # a reference cycle: only the collector can free it
    gone = weakref.ref(garbage)
    del garbage
    assert gone() is not None
    assert settle_after_listing(BIG_LISTING)
    assert gc.get_freeze_count() > 0
    # what is alive is out of the collector's passes; the cyclic garbage was freed first, not frozen forever
    assert all(o is not alive for o in gc.get_objects())
    assert gone() is None


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or ctypes.util.find_library("c") is None,
    reason="glibc's malloc_trim",
)
def test_freed_heap_goes_back_to_the_system() -> None:
    chunks = [bytes(1024) + bytes([i % 256]) for i in range(40_000)]  # ~40 MB in C's heap (over 512 bytes)
    keeper = bytes(2048)  # above them: the heap's top cannot simply shrink when they go
    del chunks
    gc.collect()
    held = rss_mb()
    assert return_freed_memory()
    assert rss_mb() < held - 20, (held, rss_mb())
    del keeper


BLOCKS = """
import sys
from mcpx.tui.shell.heap import map_big_blocks
def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20
if sys.argv[1] == "mapped":
    assert map_big_blocks()
bytearray(b"x") * (4 << 20)  # a big block, freed at once: glibc puts the next ones in its heap unless told
blocks, keepers = [], []
for _ in range(30):  # 1 MB blocks (a reading's), each with a small long-lived object after it
    blocks.append(bytearray(b"x") * (1 << 20))
    keepers.append(bytearray(2048))
held = rss_mb()
del blocks
print(held - rss_mb())
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or ctypes.util.find_library("c") is None,
    reason="glibc's mallopt",
)
def test_big_blocks_freed_go_back_to_the_system_at_once() -> None:
    def given_back(how: str) -> float:
        done = subprocess.run([sys.executable, "-c", BLOCKS, how], capture_output=True, text=True, check=True)
        return float(done.stdout)

    assert given_back("mapped") > 25
    assert given_back("heap") < 5  # without: holes between the long-lived objects, resident until a trim
