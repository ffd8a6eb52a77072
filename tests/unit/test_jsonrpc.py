"""Lenient decoding: every frame becomes exactly one message, and decode never raises."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpx.wire.jsonrpc import (
    ErrorResponse,
    Malformed,
    Notification,
    Request,
    Response,
    decode,
    encode,
)


def test_classifies_the_four_message_kinds() -> None:
    assert decode(b'{"jsonrpc":"2.0","id":1,"method":"ping"}').message == Request(1, "ping", None)
    assert decode(b'{"jsonrpc":"2.0","method":"n","params":{"a":1}}').message == Notification("n", {"a": 1})
    assert decode(b'{"jsonrpc":"2.0","id":"x","result":{}}').message == Response("x", {})
    error = decode(b'{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope","data":[1]}}').message
    assert error == ErrorResponse(3, -32601, "nope", [1])


def test_not_json_is_malformed_with_a_reason_and_the_text_kept() -> None:
    decoded = decode(b"Server starting on stdio...")
    assert isinstance(decoded.message, Malformed)
    assert "not JSON" in decoded.message.reason
    assert decoded.text == "Server starting on stdio..."


def test_invalid_utf8_is_replaced_and_flagged() -> None:
    decoded = decode(b'{"jsonrpc":"2.0","id":1,"result":{"t":"a\xffb"}}')
    assert isinstance(decoded.message, Response)
    assert decoded.message.result == {"t": "a\ufffdb"}
    assert any("invalid UTF-8" in flag for flag in decoded.flags)


def test_deep_nesting_is_malformed_and_the_id_is_still_found() -> None:
    depth = 100_000
    raw = b'{"jsonrpc":"2.0","id":7,"result":' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"
    decoded = decode(raw)
    assert isinstance(decoded.message, Malformed)
    assert "nested too deeply" in decoded.message.reason
    assert decoded.message.id == 7


def test_a_schema_three_thousand_objects_deep_decodes_on_every_python() -> None:
    """6,000 JSON levels: legal, and sent by a hostile catalogue. Python 3.12's C scanner refused it
    whatever the recursion limit (tests/tui/catalogue/test_hostile_catalogue.py failed on 3.12 only)."""
    depth = 6_000
    raw = b'{"jsonrpc":"2.0","id":7,"result":' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"
    decoded = decode(raw)
    assert isinstance(decoded.message, Response), decoded.message
    node = decoded.message.result
    for _ in range(depth):
        node = node["a"]
    assert node == 1


def test_integers_beyond_64_bits_stay_exact() -> None:
    for number in (123456789012345678901234567890, 18446744073709551616, -9223372036854775809):
        decoded = decode(b'{"jsonrpc":"2.0","id":1,"result":{"big":%d}}' % number)
        assert isinstance(decoded.message, Response)
        assert decoded.message.result["big"] == number
        assert isinstance(decoded.message.result["big"], int)


def test_integers_beyond_64_bits_and_nan_survive() -> None:
    decoded = decode(b'{"jsonrpc":"2.0","id":1,"result":{"big":123456789012345678901234567890,"n":NaN}}')
    assert isinstance(decoded.message, Response)
    assert decoded.message.result["big"] == 123456789012345678901234567890


def test_wrong_shapes_say_what_is_wrong() -> None:
    assert "batch" in decode(b"[]").message.reason  # type: ignore[union-attr]
    assert "jsonrpc" in decode(b'{"id":1,"result":{}}').message.reason  # type: ignore[union-attr]
    assert isinstance(decode(b'{"jsonrpc":"2.0","id":null,"method":"x"}').message, Malformed)
    assert isinstance(decode(b'{"jsonrpc":"2.0","id":true,"result":1}').message, Malformed)
    odd = decode(b'{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}').message
    assert isinstance(odd, ErrorResponse) and odd.id == 1


def test_encode_is_one_compact_line() -> None:
    text = encode(Request(1, "tools/call", {"text": "a\nb", "big": 2**70}).to_obj())
    assert "\n" not in text
    assert json.loads(text)["params"] == {"text": "a\nb", "big": 2**70}


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_decode_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    decoded = decode(raw)
    assert decoded.message is not None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]), json_values)
)
def test_decode_never_raises_on_arbitrary_objects(obj: dict[str, object]) -> None:
    decoded = decode(json.dumps(obj).encode())
    assert decoded.message is not None
