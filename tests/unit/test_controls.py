"""escape_controls: what a terminal would act on becomes visible; everything else is left alone."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from mcpx.wire.controls import drop_c1_and_bidi, escape_controls, escape_json_controls, has_controls

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def test_each_kind_is_escaped_visibly() -> None:
    assert escape_controls("\x1b]52;c;aGk=\x07") == "\\x1b]52;c;aGk=\\x07"
    assert escape_controls("fail\r✓ passed") == "fail\\r✓ passed"
    assert escape_controls("\x9b2J \x7f \x00") == "\\x9b2J \\x7f \\x00"
    assert escape_controls("abc\u202edef") == "abc\\u202edef"


def test_layout_and_printable_text_stay() -> None:
    text = "line one\r\n\tline two — ✓ naïve 日本\n"
    assert escape_controls(text) is text
    assert not has_controls(text)


@given(st.text())
def test_nothing_a_terminal_acts_on_survives(text: str) -> None:
    assert CONTROL.search(escape_controls(text)) is None


@given(st.text())
def test_json_keeps_its_value_and_loses_its_controls(text: str) -> None:
    dumped = json.dumps({"k": text}, ensure_ascii=False)
    safe = escape_json_controls(dumped)
    assert json.loads(safe) == {"k": text}
    assert CONTROL.search(safe) is None


def test_the_tui_output_guard_drops_c1_and_bidi_and_keeps_the_rest() -> None:
    frame = "\x1b[1;1H│ tool \x9b31m\u202eevil ✓\x1b[0m"
    assert drop_c1_and_bidi(frame) == "\x1b[1;1H│ tool 31mevil ✓\x1b[0m"
    plain = "\x1b[2J ascii only"
    assert drop_c1_and_bidi(plain) is plain


@given(st.text())
def test_the_tui_output_guard_removes_exactly_c1_and_bidi(text: str) -> None:
    kept = drop_c1_and_bidi(text)
    assert re.search("[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", kept) is None
    assert kept == re.sub("[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", "", text)
