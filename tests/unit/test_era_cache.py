"""The era verdicts file keeps the newest verdicts only, and survives what another program left in it."""

from __future__ import annotations

import json
from pathlib import Path

from mcpx.protocol.auto import MAX_VERDICTS, EraCache


def test_the_cache_keeps_only_the_newest_verdicts(tmp_path: Path) -> None:
    cache = EraCache(tmp_path / "eras.json")
    for n in range(MAX_VERDICTS + 40):
        cache.put(f"python server-{n}.py", "legacy" if n % 2 else "modern")
    kept = json.loads(cache.path.read_text())
    assert len(kept) == MAX_VERDICTS
    assert cache.get("python server-0.py") is None  # the oldest went first
    assert cache.get(f"python server-{MAX_VERDICTS + 39}.py") == "legacy"
    assert cache.get(f"python server-{40}.py") == "modern"  # the oldest kept


def test_entries_without_a_time_go_first_and_junk_is_no_verdict(tmp_path: Path) -> None:
    path = tmp_path / "eras.json"
    junk = {f"junk{n}": "not an entry" for n in range(MAX_VERDICTS)}
    path.write_text(json.dumps(junk))
    cache = EraCache(path)
    cache.put("https://example.test/mcp", "modern")
    kept = json.loads(path.read_text())
    assert len(kept) == MAX_VERDICTS and cache.get("https://example.test/mcp") == "modern"
    assert cache.get("junk0") is None


def test_the_key_is_sha256_whichever_implementation_computes_it() -> None:
    # the era cache hashes with Python's built-in SHA-256 where there is one (no OpenSSL set-up at start)
    import hashlib

    key = "python server.py --token=s3cr3t \udcff"
    expected = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    assert EraCache.hashed(key) == expected
