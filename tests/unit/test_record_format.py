"""The recording format: writing a traffic log as it happens, and reading it back forgivingly."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from mcpx.record import format as fmt
from mcpx.record import reader as reader_module
from mcpx.record.format import FORMAT_VERSION, RecordingError
from mcpx.record.reader import open_recording, parse_recording, read_recording
from mcpx.record.writer import Recorder, recording_path, start_recording
from mcpx.transports.spec import ServerSpec
from mcpx.wire import Notification, Request, Response
from mcpx.wire.jsonrpc import encode
from mcpx.wire.traffic import TrafficLog

SPEC = ServerSpec(command=["python", "server.py"], env={"API_TOKEN": "tok-1234567890abcd", "MODE": "fast"})


def fake_clock() -> tuple[TrafficLog, list[float]]:
    now = [100.0]
    return TrafficLog(clock=lambda: now[0], wall=lambda: 1_700_000_000.0 + now[0]), now


def session(log: TrafficLog, now: list[float]) -> None:
    """A small legacy session: spawn, initialize, a call with a notification, stderr, an odd frame."""
    log.info("spawned python server.py (pid 7)", "process", event="spawned", pid=7)
    init = Request(
        1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}
    )
    log.sent(encode(init.to_obj()), init, "stdio")
    now[0] += 0.25
    log.stderr("server starting")
    result = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "s", "version": "1"},
    }
    log.received(encode(Response(1, result).to_obj()).encode(), "stdio")
    note = Notification("notifications/initialized")
    log.sent(encode(note.to_obj()), note, "stdio")
    call = Request(2, "tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    log.sent(encode(call.to_obj()), call, "stdio")
    now[0] += 0.5
    log.received(
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}', "stdio"
    )
    log.received(b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}]}}', "stdio")
    log.received(b"this is not json", "stdio")
    log.received(b'{"jsonrpc":"2.0","id":99,"result":{}}', "stdio")  # a stray response: flagged
    log.info("server exited with code 0", "process", event="exited", returncode=0)


def test_round_trip_keeps_every_event_with_its_timing_flags_and_links(tmp_path: Path) -> None:
    log, now = fake_clock()
    path = tmp_path / "s.mcpx.jsonl"
    recorder = start_recording(path, log, SPEC, era="legacy")
    session(log, now)
    recorder.close()

    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["mcpx_recording"] == FORMAT_VERSION
    assert header["target"]["command"] == ["python", "server.py"]
    assert header["target"]["env"] == {"API_TOKEN": "••••abcd", "MODE": "fast"}
    assert header["transport"] == "stdio" and header["era"] == "legacy" and header["secrets"] == "masked"
    assert len(lines) == 1 + len(log)

    recording = read_recording(path)
    assert recording.problems == [] and not recording.truncated
    assert len(recording.log) == len(log)
    for original, copy in zip(log, recording.log, strict=True):
        assert (copy.seq, copy.direction, copy.channel, copy.raw) == (
            original.seq,
            original.direction,
            original.channel,
            original.raw,
        )
        assert copy.flags == original.flags
        assert copy.facts == original.facts
        assert recording.log.elapsed(copy) == pytest.approx(log.elapsed(original), abs=1e-6)
        assert copy.wall == pytest.approx(original.wall, abs=1e-6)
        assert copy.method == original.method and copy.request_seq == original.request_seq
    response = recording.log[7]
    assert response.method == "tools/call" and response.latency == pytest.approx(0.5)
    assert recording.era == "legacy" and recording.protocol_version == "2025-11-25"
    assert recording.summary()["requests"] == {"initialize": 1, "tools/call": 1}
    assert any("no request in flight" in flag for flag in recording.log[9].flags)


def test_events_logged_before_the_recorder_attached_are_written_too(tmp_path: Path) -> None:
    log, _ = fake_clock()
    log.info("early fact", "protocol")
    recorder = start_recording(tmp_path / "r.jsonl", log, SPEC)
    log.info("late fact", "protocol")
    recorder.close()
    log.info("after close", "protocol")
    assert [e.raw for e in read_recording(tmp_path / "r.jsonl").log] == ["early fact", "late fact"]


def test_each_event_is_on_disk_before_the_next_one_happens(tmp_path: Path) -> None:
    log, _ = fake_clock()
    path = tmp_path / "r.jsonl"
    start_recording(path, log, SPEC)
    for index in range(5):
        log.stderr(f"line {index}")
        # read the file back while the recorder is still open: nothing is waiting in a buffer
        assert [e.raw for e in read_recording(path).log] == [f"line {i}" for i in range(index + 1)]


def test_secrets_are_masked_in_raw_text_and_facts(tmp_path: Path) -> None:
    log, _ = fake_clock()
    spec = ServerSpec(url="https://h/mcp", headers={"Authorization": "Bearer sk-live-abcdefgh1234"})
    path = tmp_path / "r.jsonl"
    recorder = start_recording(path, log, spec)
    log.info(
        "POST https://h/mcp",
        "http",
        headers={"authorization": "Bearer sk-live-abcdefgh1234", "accept": "*/*"},
    )
    log.stderr("using token sk-live-abcdefgh1234 for upstream")
    log.received(
        b'{"jsonrpc":"2.0","id":1,"result":{"access_token":"at-0123456789xyz","token_type":"Bearer"}}', "http"
    )
    log.info("env", "process", env={"GITHUB_TOKEN": "ghp_abcdefgh12345678", "HOME": "/root"})
    recorder.close()
    text = path.read_text()
    for secret in ("sk-live-abcdefgh1234", "at-0123456789xyz", "ghp_abcdefgh12345678"):
        assert secret not in text
    recording = read_recording(path)
    assert recording.header["target"]["headers"] == {"Authorization": "Bearer ••••1234"}
    assert recording.log[0].facts["headers"] == {"authorization": "Bearer ••••1234", "accept": "*/*"}
    assert recording.log[1].raw == "using token ••••1234 for upstream"
    assert (
        recording.log[2].raw
        == '{"jsonrpc":"2.0","id":1,"result":{"access_token":"••••9xyz","token_type":"Bearer"}}'
    )
    assert recording.log[3].facts["env"] == {"GITHUB_TOKEN": "••••5678", "HOME": "/root"}
    assert recording.redacted == {0, 1, 2, 3}


def test_a_read_of_many_frames_is_recorded_as_frame_by_frame(tmp_path: Path) -> None:
    """A relay's read of pipelined frames, logged by `frames()` and written by the recorder in one write,
    makes the very bytes the event-by-event way makes: in order, masked where a frame holds a secret (the
    batch's fallback), flagged where a frame is odd, exact bytes kept; and the template of a read without
    secrets writes what the event's own dict would."""
    frames = [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}',
        b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"h\\u00e9 \\"q\\""}]}}',
        b"not json at all",
        b'{"jsonrpc":"2.0","id":2,"result":{"t":"a\xffb"}}',
        b'{"jsonrpc":"2.0","id":3,"method":"ping"}\r',
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"tok-1234567890abcd"}}',
    ]
    files = []
    for batched in (False, True):
        log, now = fake_clock()
        path = tmp_path / f"{batched}.jsonl"
        recorder = start_recording(path, log, SPEC)
        log.info("spawned", "process", event="spawned", pid=7)
        note = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}'
        for chunk in (frames[:3], frames[3:5], frames[5:], [note, note]):
            now[0] += 0.125
            if batched:
                log.frames("in", "stdio", chunk)
            else:
                for raw in chunk:
                    log.received(raw, "stdio")
        recorder.close()
        files.append(path.read_bytes())
    assert files[0] == files[1]
    assert b"tok-1234567890abcd" not in files[1] and b"not a JSON-RPC message" in files[1]
    assert len(read_recording(tmp_path / "True.jsonl").log) == 1 + 3 + 2 + 1 + 2


def test_record_secrets_keeps_them_and_makes_the_file_private(tmp_path: Path) -> None:
    log, _ = fake_clock()
    path = tmp_path / "r.jsonl"
    recorder = start_recording(path, log, SPEC, record_secrets=True)
    log.stderr("token tok-1234567890abcd")
    recorder.close()
    recording = read_recording(path)
    assert recording.header["secrets"] == "included"
    assert recording.header["target"]["env"]["API_TOKEN"] == "tok-1234567890abcd"
    assert recording.log[0].raw == "token tok-1234567890abcd"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_recorder_that_cannot_write_stops_and_says_so_once(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    log, _ = fake_clock()
    errors: list[OSError] = []
    recorder = Recorder(
        "/dev/full", {"mcpx_recording": 1}, started_mono=0.0, redactor=None, on_error=errors.append
    )
    recorder.attach(log)
    log.stderr("one")
    log.stderr("two")
    assert len(errors) == 1 and recorder.error is not None
    assert log.listener_errors == []  # the log and its other listeners go on


def test_recording_path_makes_the_folder_and_a_new_name_each_time(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "deep"
    first = recording_path(folder, "python /src/my server.py", when=0)
    first.write_text("")
    second = recording_path(folder, "python /src/my server.py", when=0)
    assert first.parent == folder and first.name.endswith("-server.py.mcpx.jsonl")
    assert second != first and second.name.endswith("-2.mcpx.jsonl")


# -- reading what is not quite right -------------------------------------------------------------------
def write_session(tmp_path: Path) -> Path:
    log, now = fake_clock()
    path = tmp_path / "s.jsonl"
    recorder = start_recording(path, log, SPEC)
    session(log, now)
    recorder.close()
    return path


def test_a_truncated_last_line_is_reported_and_every_complete_line_kept(tmp_path: Path) -> None:
    path = write_session(tmp_path)
    data = path.read_bytes()
    cut = data[: data.rindex(b"\n", 0, len(data) - 1) + 30]  # 30 bytes into the last line
    recording = parse_recording(cut, "cut.jsonl")
    assert recording.truncated
    assert len(recording.log) == 10
    [problem] = recording.problems
    assert (
        problem.line == 12
        and "cut off" in problem.message
        and "10 events before it are complete" in str(problem)
    )


def test_a_corrupt_line_in_the_middle_is_skipped_and_named(tmp_path: Path) -> None:
    path = write_session(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[4] = b'{"seq": 3, "t": 0.1, garbage'
    lines[6] = b'["not", "an", "event"]'
    recording = parse_recording(b"\n".join(lines), "bad.jsonl")
    assert len(recording.log) == 9
    assert [p.line for p in recording.problems] == [5, 7]
    assert "not valid JSON" in recording.problems[0].message
    assert "not an event object" in recording.problems[1].message
    assert not recording.truncated


def test_missing_events_are_noticed(tmp_path: Path) -> None:
    path = write_session(tmp_path)
    lines = path.read_bytes().split(b"\n")
    del lines[3:5]
    recording = parse_recording(b"\n".join(lines), "gap.jsonl")
    [problem] = recording.problems
    assert "event 4 follows event 1" in problem.message


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        (b"", "is empty: not an mcpx recording"),
        (b"hello world\n", "is not an mcpx recording"),
        (b'{"jsonrpc": "2.0"}\n', "is not an mcpx recording"),
        (b'{"mcpx_recording": "one"}\n', "not a version number"),
        (
            b'{"mcpx_recording": 99, "mcpx_version": "9.0.0"}\n',
            "was written by a newer mcpx (recording format 99, by mcpx 9.0.0)",
        ),
    ],
)
def test_what_is_not_a_readable_recording_gets_one_sentence(
    tmp_path: Path, content: bytes, sentence: str
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordingError) as caught:
        read_recording(path)
    assert sentence in caught.value.message
    assert "\n" not in caught.value.message


def test_a_missing_file_or_a_directory_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="does not exist"):
        read_recording(tmp_path / "nope.jsonl")
    with pytest.raises(RecordingError, match="is a directory"):
        read_recording(tmp_path)


def test_older_format_versions_are_upgraded_step_by_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pretend this mcpx writes format 2, which renamed `raw` to `text`: a format-1 file still reads."""
    path = write_session(tmp_path)
    monkeypatch.setattr(fmt, "FORMAT_VERSION", 2)
    monkeypatch.setattr(reader_module, "FORMAT_VERSION", 2)
    monkeypatch.setitem(fmt.UPGRADES, 1, lambda header: {**header, "upgraded": True})
    monkeypatch.setitem(reader_module.EVENT_UPGRADES, 1, lambda event: {**event, "raw": event["raw"]})
    recording = read_recording(path)
    assert recording.header["upgraded"] is True
    assert len(recording.log) == 11 and recording.problems == []


def test_the_loader_gives_a_first_screen_before_the_rest(tmp_path: Path) -> None:
    path = write_session(tmp_path)
    loader = open_recording(path)
    assert len(loader.recording.log) == 0 and loader.recording.header["mcpx_recording"] == 1
    assert loader.load(5) is True
    assert len(loader.recording.log) == 5
    assert loader.load() is False and loader.done
    assert len(loader.recording.log) == 11


def test_invalid_utf8_and_huge_integers_survive_the_round_trip(tmp_path: Path) -> None:
    log, _ = fake_clock()
    path = tmp_path / "r.jsonl"
    recorder = start_recording(path, log, SPEC)
    log.received(b'{"jsonrpc":"2.0","method":"x","params":{"v":"\xff\xfe"}}', "stdio")
    log.received(b'{"jsonrpc":"2.0","method":"y","params":{"n":123456789012345678901234567890}}', "stdio")
    recorder.close()
    recording = read_recording(path)
    assert recording.problems == []
    assert any("invalid UTF-8" in f for f in recording.log[0].flags)
    # the raw text is kept exactly, and decodes to what the live decoder made of it
    assert recording.log[1].raw == log[1].raw and "123456789012345678901234567890" in recording.log[1].raw
    assert recording.log[1].message == log[1].message


async def test_inside_a_loop_a_step_s_events_are_written_together_before_anything_waits(
    tmp_path: Path,
) -> None:
    import asyncio

    log, _ = fake_clock()
    path = tmp_path / "r.jsonl"
    recorder = start_recording(path, log, SPEC)
    log.stderr("one")
    log.stderr("two")
    assert read_recording(path).log.__len__() == 0  # still this loop step
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert [e.raw for e in read_recording(path).log] == ["one", "two"]
    log.stderr("three")
    recorder.close()  # close writes what is pending
    assert [e.raw for e in read_recording(path).log] == ["one", "two", "three"]
    assert recorder.events == 3


async def test_a_flood_within_one_step_is_written_as_it_goes(tmp_path: Path) -> None:
    from mcpx.record.writer import MAX_PENDING

    log, _ = fake_clock()
    path = tmp_path / "r.jsonl"
    recorder = start_recording(path, log, SPEC)
    for index in range(MAX_PENDING * 3):
        log.stderr(f"line {index}")
    assert len(read_recording(path).log) >= MAX_PENDING * 2  # nothing waits for the step to end
    recorder.close()
    assert len(read_recording(path).log) == MAX_PENDING * 3
