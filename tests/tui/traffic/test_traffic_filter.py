"""The traffic filter syntax, on a log fed from fixed frames (no Textual here)."""

from __future__ import annotations

import pytest

from mcpx.tui.traffic.traffic_filter import FilterError, TrafficFilter
from mcpx.wire import Request
from mcpx.wire.traffic import TrafficLog


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def session() -> TrafficLog:
    clock = Clock()
    log = TrafficLog(clock=clock, wall=clock)

    def send(rid: int, method: str) -> None:
        text = f'{{"jsonrpc":"2.0","id":{rid},"method":"{method}"}}'
        log.sent(text, Request(rid, method), "stdio")

    log.info("spawned server (pid 1)", "process", event="spawned")
    send(1, "initialize")
    clock.now = 0.2
    log.received(b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}', "stdio")
    send(2, "tools/list")
    send(3, "tools/call")
    clock.now = 0.25
    log.received(b'{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}', "stdio")
    clock.now = 1.0
    log.received(b'{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad arguments"}}', "stdio")
    log.received(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}', "stdio")
    log.received(b"garbage here", "stdio")
    log.stderr("Traceback: boom")
    send(4, "ping")
    return log


def matches(text: str, log: TrafficLog | None = None) -> list[int]:
    log = log or session()
    matcher = TrafficFilter.parse(text).compile(log)
    seqs = matcher.scan(log)
    assert seqs == [e.seq for e in log if matcher(e)]
    return seqs


def test_empty_matches_everything() -> None:
    log = session()
    assert matches("", log) == list(range(len(log)))
    assert TrafficFilter.parse("  ").is_empty


def test_free_text_is_case_insensitive_on_the_raw_frame() -> None:
    assert matches("BAD ARGUMENTS") == [6]
    assert matches('"bad arguments"') == [6]
    assert matches("memo://nothing") == []


def test_method_substring_glob_and_any_of() -> None:
    assert matches("method:tools/call") == [4, 6]
    assert matches("method:tools") == [3, 4, 5, 6]
    assert matches("method:tools/*") == [3, 4, 5, 6]
    assert matches("method:ping,initialize") == [1, 2, 10]


def test_direction_kind_channel() -> None:
    assert matches("dir:info") == [0]
    assert matches("dir:→ kind:request") == [1, 3, 4, 10]
    assert matches("channel:stderr") == [9]
    assert matches("kind:notification") == [7]


def test_status_reads_a_requests_response() -> None:
    assert matches("status:error") == [4, 6, 8]
    assert matches("status:-32602") == [4, 6]
    assert matches("status:malformed") == [8]
    assert matches("status:pending") == [10]
    assert matches("status:ok kind:response") == [2, 5]


def test_duration_with_units() -> None:
    assert matches("dur:>500ms") == [4, 6]
    assert matches("dur:<100") == [3, 5]
    assert matches("dur:>=0.2s dur:<1s") == [1, 2, 4, 6]
    assert matches("dur:>=0.2s dur:<0.5s") == [1, 2]


def test_id_negation_and_flags() -> None:
    assert matches("id:3") == [4, 6]
    assert matches("-dir:info -channel:stderr -kind:request") == [2, 5, 6, 7, 8]
    assert matches("is:flagged") == [8]


def test_a_negative_number_is_text_not_negation() -> None:
    assert matches("-32602") == [6]


@pytest.mark.parametrize(
    "text", ["dir:sideways", "status:weird", "dur:fast", "kind:x", "channel:pipe", "method:", "is:nice"]
)
def test_bad_terms_say_why(text: str) -> None:
    with pytest.raises(FilterError, match=text.split(":")[0]):
        TrafficFilter.parse(text)


def test_unbalanced_quote_while_typing_is_not_an_error() -> None:
    assert matches('"bad argu') == [6]


def test_depends_on_response() -> None:
    assert TrafficFilter.parse("status:error").depends_on_response
    assert TrafficFilter.parse("dur:>1s method:x").depends_on_response
    assert not TrafficFilter.parse("method:x dir:in").depends_on_response


def test_typed_values_never_become_code() -> None:
    log = session()
    for text in ['"); import os #', "method:x')]+[1", "id:__import__('os')", "dur:>1s or True", "x\\"]:
        matcher = TrafficFilter.parse(text).compile(log)
        assert "import" not in matcher.condition and "os" not in matcher.condition
        matcher.scan(log)


def outcomes_session() -> TrafficLog:
    """A tool that answered isError, one cancelled, one timed out (then answered late), one left when the
    connection ended."""
    log = session()

    def call(rid: int, tool: str) -> None:
        text = f'{{"jsonrpc":"2.0","id":{rid},"method":"tools/call","params":{{"name":"{tool}"}}}}'
        log.sent(text, Request(rid, "tools/call", {"name": tool}), "stdio")

    call(5, "fail")  # 11
    log.received(b'{"jsonrpc":"2.0","id":5,"result":{"content":[],"isError":true}}', "stdio")  # 12
    call(6, "slow")  # 13
    log.unanswered(6, "cancelled", "the user pressed Esc")  # 14
    call(7, "slower")  # 15
    log.unanswered(7, "timed out", "no answer within 60 s")  # 16
    log.received(b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}', "stdio")  # 17: late
    call(8, "echo")  # 18
    log.unanswered(8, "no answer", "the server exited")  # 19
    assert log.unanswered(8, "cancelled", "twice") is None  # one ending per request
    assert log.unanswered(5, "cancelled", "answered already") is None
    return log


def test_tool_errors_and_unanswered_requests_carry_their_state() -> None:
    from mcpx.tui.traffic.traffic_filter import label_of, status_of

    log = outcomes_session()
    assert [status_of(log[s], log) for s in (11, 12, 13, 15, 18)] == [
        "isError",
        "isError",
        "cancelled",
        "timed out",
        "no answer",
    ]
    assert matches("status:error", log) == [4, 6, 8, 11, 12]
    assert matches("status:ok kind:response", log) == [2, 5, 17]
    assert matches("status:cancelled", log) == [13]
    assert matches("status:timeout", log) == [15]
    assert matches("status:no-answer", log) == [18]
    assert matches("status:unanswered", log) == [13, 15, 18]
    assert matches("status:pending", log) == [10]
    assert label_of(log[11], log) == "tools/call fail" and label_of(log[12], log) == "tools/call fail"
    assert label_of(log[3], log) == "tools/list"
