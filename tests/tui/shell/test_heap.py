"""The heap is settled (collected, then frozen) only after a big listing."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from mcpx.tui.shell.heap import BIG_LISTING, settle_after_listing


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
