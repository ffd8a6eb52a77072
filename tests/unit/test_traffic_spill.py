"""The traffic log spills old events to disk and reads every one back, in order, as it was.

A long session must stay within bounded memory without dropping anything: the oldest events leave
memory for an on-disk log in the recording format, and `log[seq]`, iteration, `since` and the
request/response links read them back. A recording being replayed is indexed in place the same way.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from mcpx.record import reader as reader_module
from mcpx.record.reader import open_recording, read_recording
from mcpx.record.writer import start_recording
from mcpx.transports.spec import ServerSpec
from mcpx.wire import Request, TrafficLog, encode
from mcpx.wire.event_line import dumps, event_obj
from mcpx.wire.spill import ColdEvents
from mcpx.wire.traffic import TrafficEvent


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def snapshot(event: TrafficEvent) -> tuple[Any, ...]:
    """What a reader can see of an event (times to the microsecond, as the format keeps them)."""
    message = event.message
    return (
        event.seq,
        round(event.mono, 6),
        event.direction,
        event.channel,
        event.raw,
        type(message).__name__,
        getattr(message, "id", None),
        getattr(message, "method", None),
        event.facts,
        list(event.flags),
        event.request_seq,
        event.response_seq,
        None if event.latency is None else round(event.latency, 5),
        event.method,
        event.kind,
    )


def busy_session(log: TrafficLog, calls: int) -> None:
    """Requests and answers, a long request answered at the end, stderr, facts, junk and a stray answer."""
    log.info("spawned server (pid 42)", "process", event="spawned", pid=42)
    listen = Request("listen", "subscriptions/listen", {})
    log.sent(encode(listen.to_obj()), listen, "stdio")  # answered only at the end, long after it spilled
    for n in range(calls):
        request = Request(n, "tools/call", {"name": "echo", "arguments": {"text": f"hello {n}"}})
        log.sent(encode(request.to_obj()), request, "stdio", {"http_status": 200} if n % 7 == 0 else None)
        if n % 13 == 0:
            log.stderr(f"working on {n}")
        if n % 101 == 0:
            log.received(
                b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}', "stdio"
            )
        answer = f'{{"jsonrpc":"2.0","id":{n},"result":{{"content":[{{"type":"text","text":"hello {n}"}}]}}}}'
        log.received(answer.encode(), "stdio")
    log.received(b"this is not json", "stdio")
    log.received(b'{"jsonrpc":"2.0","id":999999,"result":{}}', "stdio")
    log.received(b'{"jsonrpc":"2.0","id":"listen","result":{}}', "stdio")


def test_the_log_spills_and_reads_back_every_event_in_order() -> None:
    live = TrafficLog(clock=Clock(), keep=None)  # never spills: what the session really was
    spilling = TrafficLog(clock=Clock(), keep=100, keep_bytes=1 << 30)
    seen: list[TrafficEvent] = []
    spilling.subscribe(seen.append)
    busy_session(live, 2_000)
    busy_session(spilling, 2_000)
    # the problem found later, on an event long gone to disk
    spilling.flag(spilling[5], "a problem found later")
    live.flag(live[5], "a problem found later")

    assert spilling.spilled > len(spilling) - 101  # nearly all of it is on disk
    assert len(spilling) == len(live) == len(seen)
    expected = [snapshot(event) for event in live]
    assert [snapshot(spilling[seq]) for seq in range(len(spilling))] == expected
    assert [snapshot(event) for event in spilling] == expected
    assert [snapshot(event) for event in spilling.since(1_500)] == expected[1_500:]
    # a piece at a time (a view catching up): on disk, across the edge, in memory, past the end
    total = len(spilling)
    for start, stop in ((0, 700), (1_000, total - 50), (total - 80, total), (total - 5, total + 10)):
        assert [snapshot(e) for e in spilling.between(start, stop)] == expected[start:stop]
    assert [event.seq for event in seen] == list(range(len(live)))

    # the long request, spilled while in flight, knows its late answer; the answer knows its request
    listen = spilling[1]
    assert listen.method == "subscriptions/listen" and listen.response_seq == len(spilling) - 1
    assert spilling.find_request(spilling[len(spilling) - 1]) is not None
    assert spilling.find_request(spilling[len(spilling) - 1]).seq == 1  # type: ignore[union-attr]
    assert spilling[-1].seq == len(spilling) - 1
    with pytest.raises(IndexError):
        spilling[len(spilling)]


def test_a_byte_bound_spills_big_frames_and_the_newest_event_stays() -> None:
    log = TrafficLog(keep=1_000, keep_bytes=1 << 20)
    big = "x" * (300 << 10)
    events = [log.stderr(f"{n} {big}") for n in range(20)]
    assert log.spilled >= 15
    assert log[len(log) - 1] is events[-1]
    assert [log[n].raw for n in range(20)] == [e.raw for e in events]


def test_a_reader_thread_sees_every_event_while_the_log_spills() -> None:
    log = TrafficLog(keep=50, keep_bytes=1 << 30)
    problems: list[str] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            count = len(log)
            for seq in range(max(0, count - 300), count):
                if log[seq].raw != f"line {seq}":
                    problems.append(f"{seq}: {log[seq].raw}")

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for n in range(5_000):
            log.stderr(f"line {n}")
    finally:
        done.set()
        thread.join()
    assert problems == []
    assert [event.raw for event in log] == [f"line {n}" for n in range(5_000)]


def test_a_replayed_recording_is_indexed_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "session.mcpx.jsonl"
    live = TrafficLog(clock=Clock(), keep=None)
    recorder = start_recording(path, live, ServerSpec(command=["python", "server.py"]))
    busy_session(live, 1_500)
    recorder.close()

    monkeypatch.setattr(reader_module, "KEEP_EVENTS", 64)
    loader = open_recording(path)
    loader.load(500)
    assert len(loader.recording.log) == 500
    loader.load()
    recording = loader.recording
    log = recording.log
    assert log.spilled > 1_000
    assert log._cold is not None and log._cold.file_bytes == 0  # read where it is, not copied
    whole = read_recording(path)  # the same file read into memory at once agrees
    assert [snapshot(e) for e in log] == [snapshot(whole.log[n]) for n in range(len(whole.log))]
    assert [e.raw for e in log] == [e.raw for e in live]
    assert recording.summary()["requests"] == {"subscriptions/listen": 1, "tools/call": 1_500}
    assert recording.summary()["events"] == len(live)


def test_the_spill_file_is_private_and_gone_from_the_directory() -> None:
    log = TrafficLog(keep=10, keep_bytes=1 << 30)
    for n in range(100):
        log.stderr(f"secret {n}")
    cold = log._cold
    assert cold is not None and cold._own is not None
    assert os.fstat(cold._own).st_mode & 0o777 == 0o600
    assert os.fstat(cold._own).st_nlink == 0  # unlinked: it goes with the process


def test_a_recording_past_2_gb_and_a_peer_with_70_000_method_names_read_back(tmp_path: Path) -> None:
    # the per-event arrays start narrow (4-byte offsets, 2-byte method codes) and are widened when a
    # value does not fit: a line past 2 GB of a (sparse) recording, and more names than 65,535
    far, names = 3 << 30, 70_000
    log = TrafficLog(keep=None)
    first = log.stderr("the first line")
    line = dumps(event_obj(first, log.started_mono, first.raw, first.facts, False)).rstrip(b"\n")
    fd = os.open(tmp_path / "sparse.jsonl", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.pwrite(fd, line, 0)
        os.pwrite(fd, line, far)
        cold = ColdEvents.over(fd, log.started_mono)
        for seq in range(names):  # (every event but the last is the first line again)
            cold.origin(seq, far if seq == names - 1 else 0, len(line))
        cold.put([TrafficEvent(n, 0.0, 0.0, "in", "stderr", "", method=f"method/{n}") for n in range(names)])
        assert [(cold.get(n).raw, cold.get(n).method) for n in (0, 65_534, 65_535, names - 1)] == [
            ("the first line", "method/0"),
            ("the first line", "method/65534"),
            ("the first line", "method/65535"),
            ("the first line", f"method/{names - 1}"),
        ]
    finally:
        os.close(fd)


def test_lines_longer_than_the_read_buffer_are_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "long-lines.mcpx.jsonl"
    live = TrafficLog(keep=None)
    recorder = start_recording(path, live, ServerSpec(command=["python", "server.py"]))
    for n, size in enumerate((10, 3 * reader_module.BLOCK + 7, 5, reader_module.BLOCK - 300, 2)):
        live.stderr(f"{n}:" + "x" * size)
    recorder.close()
    loader = open_recording(path)
    loader.load()
    assert [e.raw for e in loader.recording.log] == [e.raw for e in live]
    assert loader.recording.problems == []
