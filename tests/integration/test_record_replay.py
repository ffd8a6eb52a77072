"""`mcpx replay FILE --against TARGET`: the recording as a regression test, against real servers.

The recordings are full sessions with tests/servers/record_server.py (every catalogue, every tool,
progress, elicitation); its `--changed` build is the drift a replay must find."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SERVERS = Path(__file__).parent.parent / "servers"
RECORD_SERVER = str(SERVERS / "record_server.py")
ASKING = str(SERVERS / "sdk_asking.py")
VOLATILE = "$..at"  # the `stamp` tool's time


def run(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout)


def mcpx(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return run("-m", "mcpx", *args, timeout=timeout)


@pytest.fixture(scope="module")
def legacy_recording() -> Path:
    """The committed legacy session of record_server.py (what `record_session.py --era legacy` writes;
    the TUI's replay tests and test_record_diff read it too): one SDK server start fewer per run."""
    return SERVERS.parent / "tui" / "recordings" / "record_server.mcpx.jsonl"


@pytest.fixture(scope="module")
def modern_recording() -> Path:
    """The committed modern session of record_server.py (what `record_session.py --era modern` writes;
    test_record_diff reads it too): one SDK server start and one mcpx process fewer per run."""
    return SERVERS.parent / "tui" / "recordings" / "record_server_modern.mcpx.jsonl"


def replay_json(recording: Path, *args: str) -> tuple[int, dict]:
    proc = mcpx("replay", str(recording), "--against", RECORD_SERVER, "--format", "json", *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 7), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_replay_against_the_same_server_is_exit_0(
    era: str, legacy_recording: Path, modern_recording: Path
) -> None:
    recording = legacy_recording if era == "legacy" else modern_recording
    code, report = replay_json(recording, "--ignore", VOLATILE)
    assert code == 0, report
    assert report["drift"] is False and report["era"] == era
    methods = [item["label"] for item in report["items"]]
    assert methods[0] == ("initialize" if era == "legacy" else "server/discover")
    assert "tools/call slow" in methods and "resources/read memo://readme" in methods
    assert ("tools/call book" in methods) == (era == "legacy")
    assert report["summary"] == {"same": len(methods), "changed": 0, "missing": 0, "new": 0}


def test_the_elicitation_is_answered_from_the_recording(legacy_recording: Path) -> None:
    code, report = replay_json(legacy_recording, "--ignore", VOLATILE)
    book = next(item for item in report["items"] if item["label"] == "tools/call book")
    assert book["status"] == "same" and "notes" not in book
    # had the recorded answer not been given, the result would say so
    assert code == 0


def test_volatile_fields_are_drift_until_ignored(legacy_recording: Path) -> None:
    code, report = replay_json(legacy_recording)
    assert code == 7
    [stamp] = [item for item in report["items"] if item["status"] != "same"]
    assert stamp["label"] == "tools/call stamp"
    assert sorted(c["path"] for c in stamp["changes"]) == [
        "$.result.content[0].text.at",
        "$.result.structuredContent.result.at",
    ]


def test_replay_against_the_changed_server_is_exit_7_with_the_paths(legacy_recording: Path) -> None:
    code, report = replay_json(legacy_recording, "--ignore", VOLATILE, "--", "--changed")
    assert code == 7 and report["drift"] is True
    changed = {
        item["label"]: sorted(c["path"] for c in item["changes"])
        for item in report["items"]
        if item["changes"]
    }
    assert changed == {
        "initialize": ["$.result.serverInfo.version"],
        "tools/list": [
            "$.result.tools[name=add].description",
            "$.result.tools[name=add].inputSchema.properties.c",
            "$.result.tools[name=legacy_tool]",
            "$.result.tools[name=shiny]",
        ],
        "tools/call echo": ["$.result.content[0].text", "$.result.structuredContent.result"],
        "tools/call stats": ["$.result.content[0].text.count", "$.result.structuredContent.result.count"],
        "resources/read memo://readme": ["$.result.contents[uri=memo://readme].text"],
    }
    kinds = {c["path"]: c["kind"] for item in report["items"] for c in item["changes"]}
    assert kinds["$.result.tools[name=legacy_tool]"] == "removed"
    assert kinds["$.result.tools[name=shiny]"] == "added"
    echo = next(item for item in report["items"] if item["label"] == "tools/call echo")
    assert echo["changes"][0] == {
        "path": "$.result.content[0].text",
        "kind": "changed",
        "before": "hello",
        "after": "HELLO",
    }
    assert report["summary"] == {"same": 8, "changed": 5, "missing": 0, "new": 0}


def test_the_text_report_names_what_changed(legacy_recording: Path) -> None:
    proc = mcpx(
        "replay", str(legacy_recording), "--against", RECORD_SERVER, "--ignore", VOLATILE,
        "--ignore", "$.result.serverInfo", "--", "--changed",
    )  # fmt: skip
    assert proc.returncode == 7, proc.stderr
    out = proc.stdout
    assert "CHANGED  #" in out and "tools/call echo" in out
    assert '$.result.content[0].text: "hello" → "HELLO"' in out
    assert "(3 difference(s) ignored by --ignore) — drift (exit 7)" in out
    assert "initialize" not in out.split("\n", 1)[1].split("tools/list")[0]  # its only change was ignored


def test_modern_input_requests_are_answered_from_the_recording(tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"name": "Ann", "seats": 4}))
    reply = tmp_path / "reply.json"
    reply.write_text(
        json.dumps({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"})
    )
    for tool, extra in (("book", ["--elicit", f"@{answers}"]), ("capital", ["--sample", f"@{reply}"])):
        proc = mcpx(
            "call", ASKING, "--protocol-era", "modern", "--method", "tools/call", "--tool-name", tool,
            "--record", str(tmp_path / f"{tool}.jsonl"), *extra,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        replayed = mcpx("replay", str(tmp_path / f"{tool}.jsonl"), "--against", ASKING, "--format", "json")
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        report = json.loads(replayed.stdout)
        assert report["era"] == "modern" and report["summary"]["same"] == 2


def test_a_call_the_recording_never_saw_answered_is_new(tmp_path: Path) -> None:
    import signal
    import time

    path = tmp_path / "cut.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcpx",
            "call",
            RECORD_SERVER,
            "--method",
            "tools/call",
            "--tool-name",
            "slow",
            "--tool-arg",
            "steps=3",
            "--protocol-era",
            "legacy",
            "--record",
            str(path),
            "--timeout",
            "30",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # kill mcpx the moment the request is on record, before the answer can be
    deadline = time.monotonic() + 60
    while not (path.exists() and b'"method\\":\\"tools/call' in path.read_bytes()):
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    from mcpx.record.reader import read_recording

    recorded = read_recording(path)
    call = next(e for e in recorded.log if e.direction == "out" and e.method == "tools/call")
    if call.response_seq is not None:
        pytest.skip("the server answered before mcpx could be killed")
    code, report = replay_json(path)
    assert code == 7
    [slow] = [item for item in report["items"] if item["label"] == "tools/call slow"]
    assert slow["status"] == "new" and slow["recorded"] is None
    assert slow["live"]["result"]["content"][0]["text"] == "done after 3 steps"


def test_a_server_that_cannot_start_is_exit_4_not_drift(legacy_recording: Path) -> None:
    proc = mcpx("replay", str(legacy_recording), "--against", "/no/such/server-binary")
    assert proc.returncode == 4
    assert "not found" in json.loads(proc.stderr.strip().splitlines()[-1])["error"]["message"]


def test_replay_without_against_describes_the_recording(legacy_recording: Path) -> None:
    proc = mcpx("replay", str(legacy_recording))
    assert proc.returncode == 0, proc.stderr
    assert "a recording of" in proc.stdout and "6 × tools/call" in proc.stdout
    assert "in a terminal to open it in the TUI" in proc.stdout
    proc = mcpx("replay", str(legacy_recording), "--format", "json")
    summary = json.loads(proc.stdout)
    assert summary["era"] == "legacy" and summary["requests"]["tools/call"] == 6


def test_a_truncated_recording_still_replays_what_it_has(legacy_recording: Path, tmp_path: Path) -> None:
    lines = legacy_recording.read_bytes().splitlines(keepends=True)
    # cut the file 20 bytes into the line after the prompts/list response
    index = next(i for i, line in enumerate(lines) if b'"direction":"in"' in line and b"greet" in line)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[: index + 1]) + lines[index + 1][:20])
    proc = mcpx("replay", str(cut), "--against", RECORD_SERVER, "--ignore", VOLATILE, "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "cut off" in proc.stderr and "events before it are complete" in proc.stderr
    assert json.loads(proc.stdout)["summary"]["same"] >= 2


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        ('{"mcpx_recording": 7, "mcpx_version": "3.0.0"}\n', "was written by a newer mcpx"),
        ("not a recording\n", "is not an mcpx recording"),
    ],
)
def test_unreadable_recordings_are_one_sentence(tmp_path: Path, content: str, sentence: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    for args in ([], ["--against", RECORD_SERVER]):
        proc = mcpx("replay", str(path), *args)
        assert proc.returncode == 1
        assert sentence in proc.stderr and "Traceback" not in proc.stderr


def test_bad_ignore_patterns_are_usage_errors(legacy_recording: Path) -> None:
    proc = mcpx("replay", str(legacy_recording), "--against", RECORD_SERVER, "--ignore", "$.a[")
    assert proc.returncode == 1 and "is not a path" in proc.stderr


async def record_asking_session(path: Path, era: str) -> None:
    """A session where the server asks for roots, a model's answer and a form, and the roots change."""
    import mcpx
    from mcpx.record.writer import start_recording
    from mcpx.transports.spec import resolve_target
    from mcpx.wire.traffic import TrafficLog

    async def sample(params: object) -> dict:
        return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "stub"}

    async def elicit(params: object) -> dict:
        return {"action": "accept", "content": {"name": "Ann", "seats": 5}}

    spec = resolve_target(ASKING)
    log = TrafficLog()
    recorder = start_recording(path, log, spec, era=era)
    roots = [{"uri": "file:///work/a", "name": "a"}]
    async with mcpx.connect(
        spec, traffic=log, protocol_era=era, roots=roots, on_elicit=elicit, on_sample=sample
    ) as client:
        assert "file:///work/a" in (await client.call_tool("roots", {})).content[0]["text"]
        await client.set_roots(roots)  # a client notification the replay sends again
        assert "Paris" in (await client.call_tool("capital", {})).content[0]["text"]
        assert "5 seats for Ann" in (await client.call_tool("book", {})).content[0]["text"]
    recorder.close()


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_recorded_answers_to_roots_sampling_and_elicitation_replay_cleanly(
    era: str, tmp_path: Path
) -> None:
    path = tmp_path / f"asking-{era}.jsonl"
    await record_asking_session(path, era)
    mcpx_script = str(Path(sys.executable).parent / "mcpx")
    for against in ([ASKING], [mcpx_script, "mock", str(path)]):
        proc = mcpx("replay", str(path), "--against", *against, "--format", "json")
        report = json.loads(proc.stdout)
        assert proc.returncode == 0, json.dumps(report, indent=1)
        labels = [item["label"] for item in report["items"]]
        assert labels[1:] == ["tools/call roots", "tools/call capital", "tools/call book"]
        assert all("notes" not in item for item in report["items"])
