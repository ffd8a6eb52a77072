"""The collection run from the inspector: on the app's own connection when there is one (the test calls
show in its traffic log, and no second server starts), else on a connection of the runner's own.

The app's client answers the server's questions by asking the user, so a test that carries its own
answers (`elicit`, `sample`) runs on a connection of its own (`CollectionRunner.borrow(answers=False)`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpx.collection.runner import TestResult
    from mcpx.protocol.client import Client


async def run_tests(path: Path, client: Client | None) -> list[TestResult]:
    """Every test of the collection at `path`, read now (raises `McpxError`: a bad file, no server)."""
    from mcpx.collection.model import load_collection
    from mcpx.collection.runner import CollectionRunner

    collection = load_collection(path)
    async with CollectionRunner(collection) as runner:
        if client is not None and client.session.ended is None:
            runner.borrow(client, answers=False)
        return [await runner.run(test) for test in collection.tests]
