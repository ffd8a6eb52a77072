"""The traffic log links responses to requests and flags what has no partner."""

from __future__ import annotations

from mcpx.wire import Request, Response, TrafficLog, encode


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_response_finds_its_request_method_and_latency() -> None:
    clock = FakeClock()
    log = TrafficLog(clock=clock)
    request = Request(1, "tools/list", None)
    sent = log.sent(encode(request.to_obj()), request, "stdio")
    clock.now += 0.25
    answer = log.received(b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}', "stdio")
    assert answer.request_seq == sent.seq
    assert sent.response_seq == answer.seq
    assert answer.method == "tools/list"
    assert answer.latency == 0.25
    assert log.find_request(answer) is sent


def test_incoming_and_outgoing_ids_do_not_collide() -> None:
    log = TrafficLog()
    ours = Request(1, "tools/call", {})
    log.sent(encode(ours.to_obj()), ours, "stdio")
    theirs = log.received(b'{"jsonrpc":"2.0","id":1,"method":"roots/list"}', "stdio")
    answer = log.received(b'{"jsonrpc":"2.0","id":1,"result":{}}', "stdio")
    assert answer.method == "tools/call"
    assert theirs.method == "roots/list"


def test_unknown_and_duplicate_responses_are_flagged_not_raised() -> None:
    log = TrafficLog()
    request = Request(5, "ping", None)
    log.sent(encode(request.to_obj()), request, "stdio")
    first = log.received(b'{"jsonrpc":"2.0","id":5,"result":{}}', "stdio")
    second = log.received(b'{"jsonrpc":"2.0","id":5,"result":{}}', "stdio")
    stray = log.received(b'{"jsonrpc":"2.0","id":99,"result":{}}', "stdio")
    assert first.flags == []
    assert "duplicate answer to ping" in second.flags[0]
    assert second.request_seq == first.request_seq
    assert "99" in stray.flags[0] and "no request in flight" in stray.flags[0]


def test_listeners_see_every_event_and_a_broken_one_is_dropped() -> None:
    log = TrafficLog()
    seen: list[int] = []
    log.subscribe(lambda event: seen.append(event.seq))

    def broken(event: object) -> None:
        raise RuntimeError("view bug")

    log.subscribe(broken)
    log.info("spawned", "process")
    log.stderr("hello")
    assert seen == [0, 1]
    assert len(log.listener_errors) == 1
    assert log[1].kind == "stderr"


def test_an_answer_to_a_raw_request_is_linked_not_flagged() -> None:
    from mcpx.wire import decode

    log = TrafficLog()
    text = '{"jsonrpc":"2.0","id":"raw-1","method":"ping"}'
    log.sent(text, decode(text.encode()).message, "stdio")  # type: ignore[arg-type]
    answer = log.received(b'{"jsonrpc":"2.0","id":"raw-1","result":{}}', "stdio")
    assert answer.flags == []
    assert answer.method == "ping"


FRAMES = [
    b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}',
    b'{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope"}}',
    b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}',
    b'{"jsonrpc":"2.0","id":"s","method":"ping"}',
    b'{"jsonrpc":"2.0","id":3,"result":{"n":123456789012345678901234567890}}',  # beyond 64 bits
    b'{"jsonrpc":"2.0","id":4,"result":{"t":"a\xffb"}}',  # invalid UTF-8
    b"Server starting on stdio...",  # not JSON
    b'[{"jsonrpc":"2.0","id":5,"result":{}}]',  # a batch
    b'{"id":6,"result":{}}',  # no "jsonrpc"
    b'{"jsonrpc":"2.0","id":7,"result":NaN}',  # JSON orjson refuses
    b"",
]


def test_a_received_frame_is_logged_as_the_full_decode_would_log_it() -> None:
    """`received()` takes a short way for a well-formed frame (jsonrpc.decode_clean) and `decode()` for
    anything odd: either way the event is the one the full decode makes, flags and exact bytes included."""
    from mcpx.wire.jsonrpc import decode

    short, full = TrafficLog(), TrafficLog()
    for raw in FRAMES:
        got, want = short.received(raw, "stdio"), full.received_decoded(decode(raw), "stdio")
        assert (got.raw, got.message, got.flags, got.facts) == (
            want.raw,
            want.message,
            want.flags,
            want.facts,
        )
    unreadable = [e for e in short if any(f.startswith("not a JSON-RPC message") for f in e.flags)]
    assert len(unreadable) == 4  # not JSON, the batch, no "jsonrpc", the empty line
    (broken,) = [e for e in short if any("invalid UTF-8" in f for f in e.flags)]
    assert "wire_base64" in broken.facts
    assert short[4].message == Response(3, {"n": 123456789012345678901234567890})


def test_a_read_of_many_frames_is_logged_as_frame_by_frame() -> None:
    """`frames()` (a relay's read of pipelined frames, in one call) makes the events `received()` and
    `sent_raw()` make one by one: the same text, decode, flags, exact bytes and pairing, in order; a
    listener hears of each, a batch listener of all in one call."""
    one, many = TrafficLog(), TrafficLog()
    heard: list[int] = []
    batches: list[list[int]] = []
    many.subscribe(lambda e: heard.append(e.seq))
    many.subscribe(lambda e: None, batch=lambda events: batches.append([e.seq for e in events]))
    requests = [b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"e"}}' % i for i in (1, 2)]
    for raw in requests:
        one.sent_raw(raw, "stdio")
    many.frames("out", "stdio", requests)
    short = [f for f in FRAMES if b"1234567890123456789" not in f]  # no long number: the quick decode
    for batch in (short, FRAMES):  # and with one: every frame decoded the exact way
        for raw in batch:
            one.received(raw, "stdio")
        many.frames("in", "stdio", batch)

    def seen(log: TrafficLog) -> list[tuple[object, ...]]:
        return [(e.direction, e.raw, e.message, e.flags, e.facts, e.request_seq, e.method) for e in log]

    assert seen(many) == seen(one)
    assert many[2].request_seq == 0 and many[0].response_seq == 2  # the answer to id 1 found its request
    assert heard == list(range(len(many)))
    assert batches == [[0, 1], list(range(2, 2 + len(short))), list(range(2 + len(short), len(many)))]
