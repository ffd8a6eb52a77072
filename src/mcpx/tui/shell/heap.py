"""After a big catalogue arrives, take it out of the garbage collector's full passes.

A 20,000-tool listing is ~300,000 long-lived objects. CPython's full collection walks every tracked object,
~0.2 s of CPU for that heap and more for a bigger one, and it comes due while the user moves through the list
(building a form allocates enough to trigger one): a key that takes a quarter of a second longer, at random.
Collecting once when the listing arrives and then freezing what is alive (`gc.freeze`) makes later full
passes skip it. The collect first means no garbage is frozen; the frozen objects are still freed by reference
counting when a later listing replaces them (catalogue items hold no reference cycles).

The app's own heap is as big: the imported code (Textual, Rich, pydantic, httpx, mcpx) and the first screen's
widgets, over 100,000 objects before any catalogue, and a full pass over them landed on a random key (~100 ms
of a Tab on a loaded machine). `settle` is called `SETTLE_AFTER` seconds after a screen's first catalogue,
whatever its size: the collect runs once the catalogue and its detail are painted, not between them.

After a big read (a 200 MB recording replayed), most of what the process took is free again but still its:
C's allocator keeps freed heap pages unless asked to give them back. `return_freed_memory` asks (glibc's
`malloc_trim`; elsewhere it does nothing): the replay's steady RSS went from 192 MB to 109 MB. `trim_heap`
asks without collecting first, cheap enough (2-10 ms) to call while the reading goes on.

`map_big_blocks` makes every block of 256 KB or more a mapping of its own, given back when freed. glibc
otherwise raises that bound as big blocks are freed (up to 32 MB), so a replay's 1 MB reads and the arrays
of its index, which grow by reallocation, were carved out of the heap and left holes in it: 4-10 MB of a
200 MB recording's RSS, free but resident.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable
from functools import cache

#: seconds from a screen's first catalogue to its settle: the list, the detail (a few refreshes) and the
#: call panel (`PANEL_DELAY` after them) are painted by then
SETTLE_AFTER = 0.5
#: items in one listing from which the heap is settled (below it, a full pass is cheap)
BIG_LISTING = 1_000
#: glibc's mallopt parameter, and the block size from which `map_big_blocks` maps
M_MMAP_THRESHOLD = -3
MAP_FROM = 256 << 10


def settle_after_listing(count: int) -> bool:
    """Collect and freeze the heap when a listing of `count` items is big; True when it did."""
    if count < BIG_LISTING:
        return False
    settle()
    return True


def settle() -> None:
    """Collect, then freeze what is alive: later full passes skip it (no garbage is frozen)."""
    gc.collect()
    gc.freeze()


def return_freed_memory() -> bool:
    """Give the heap pages freed after a big read back to the system (glibc); True when it could ask."""
    if _malloc_trim() is None:
        return False
    gc.collect()
    return trim_heap()


def map_big_blocks() -> bool:
    """Blocks of `MAP_FROM` bytes or more get a mapping of their own (glibc); True when it could ask."""
    libc = _libc()
    if libc is None:
        return False
    try:
        mallopt = libc.mallopt
    except AttributeError:
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MAP_FROM))


def trim_heap() -> bool:
    """Give free heap pages back to the system now, without a collection first; True when it could ask."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    libc = _libc()
    try:
        trim: Callable[[int], int] | None = libc.malloc_trim if libc is not None else None
    except AttributeError:  # not glibc (musl, macOS): nothing to ask
        return None
    return trim
