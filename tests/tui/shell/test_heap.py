"""The heap is settled (collected, then frozen) only after a big listing; freed heap goes back to the system."""

from __future__ import annotations

import ctypes.util
import gc
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
