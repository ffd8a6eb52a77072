"""`replay --against`: a value masked when the recording was written is not drift (the live server says
the secret in clear, the recording could not keep it)."""

from __future__ import annotations

from mcpx.record.replay import compare
from mcpx.wire.secret_policy import MASK


def _result(text: str) -> dict[str, object]:
    return {"result": {"content": [{"type": "text", "text": text}], "isError": False}}


def test_a_masked_secret_matches_the_live_value_around_it() -> None:
    item = compare(
        3, "tools/call", "read_env", _result(f"token={MASK};region=eu"), _result("token=s3cr3t;region=eu"), ()
    )
    assert item.status == "same"
    assert [c.where for c in item.ignored] == ["$.result.content[0].text"]
    assert item.notes == ["1 value(s) masked in the recording (secrets) taken as the same"]


def test_what_differs_around_the_mask_is_still_a_change() -> None:
    item = compare(
        3, "tools/call", "read_env", _result(f"token={MASK};region=eu"), _result("token=s3cr3t;region=us"), ()
    )
    assert item.status == "changed"
    assert [c.where for c in item.changes] == ["$.result.content[0].text"]
    assert not item.notes


def test_a_mask_stands_for_something_not_for_nothing() -> None:
    assert compare(1, "tools/call", "x", _result(MASK), _result(""), ()).status == "changed"
    assert compare(1, "tools/call", "x", _result("plain"), _result("other"), ()).status == "changed"
