"""Collections: saved calls with expectations (`*.mcpx.yaml`), run by `mcpx test`, the pytest plugin
and the TUI. `docs/testing.md` describes the file.

    collection = load_collection("calc.mcpx.yaml")        # .server, .tests, .warnings
    results = await run_collection(collection)             # one connection; a TestResult per test
    for difference in evaluate(test.expect, answer): ...   # pure: field by field
    append_test("calc.mcpx.yaml", {...}, server="./server.py")   # the user's text kept as written

A feature above the others (it runs a recording through `record`'s mock, reads `workspace` configs and
checks `schema` output): no face imports below it, and it never imports a face. Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpx.collection.expect import Answer, Difference, ErrorAnswer, evaluate
    from mcpx.collection.model import (
        SUFFIX,
        Collection,
        CollectionError,
        ServerRef,
        TestCase,
        load_collection,
    )
    from mcpx.collection.record import expectation_from, updated
    from mcpx.collection.runner import CollectionRunner, TestResult, run_collection
    from mcpx.collection.writer import append_test, update_expectations

_LAZY = {
    "Answer": "mcpx.collection.expect",
    "Difference": "mcpx.collection.expect",
    "ErrorAnswer": "mcpx.collection.expect",
    "evaluate": "mcpx.collection.expect",
    "SUFFIX": "mcpx.collection.model",
    "Collection": "mcpx.collection.model",
    "CollectionError": "mcpx.collection.model",
    "ServerRef": "mcpx.collection.model",
    "TestCase": "mcpx.collection.model",
    "load_collection": "mcpx.collection.model",
    "expectation_from": "mcpx.collection.record",
    "updated": "mcpx.collection.record",
    "CollectionRunner": "mcpx.collection.runner",
    "TestResult": "mcpx.collection.runner",
    "run_collection": "mcpx.collection.runner",
    "append_test": "mcpx.collection.writer",
    "update_expectations": "mcpx.collection.writer",
}

__all__ = [
    "SUFFIX",
    "Answer",
    "Collection",
    "CollectionError",
    "CollectionRunner",
    "Difference",
    "ErrorAnswer",
    "ServerRef",
    "TestCase",
    "TestResult",
    "append_test",
    "evaluate",
    "expectation_from",
    "load_collection",
    "run_collection",
    "update_expectations",
    "updated",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcpx.collection' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
