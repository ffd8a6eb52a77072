"""`mcpx diff A B`: recordings and live servers compared catalogue by catalogue, schema field by field."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SERVERS = Path(__file__).parent.parent / "servers"
RECORD_SERVER = SERVERS / "record_server.py"
RECORDINGS = SERVERS.parent / "tui" / "recordings"
RECORDED = RECORDINGS / "record_server.mcpx.jsonl"


def mcpx(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcpx", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def recordings() -> dict[str, Path]:
    # committed sessions of record_server.py, as `record_session.py OUT [--changed | --era modern]` writes
    # them (paths in them made neutral): read, not made again — each would cost an SDK server's start and
    # an mcpx process (the TUI's replay tests read the first one too)
    return {
        "old": RECORDED,
        "new": RECORDINGS / "record_server_changed.mcpx.jsonl",
        "modern": RECORDINGS / "record_server_modern.mcpx.jsonl",
    }


def test_a_recording_against_itself_is_the_same(recordings: dict[str, Path]) -> None:
    proc = mcpx("diff", str(recordings["old"]), str(recordings["old"]))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tools: same (7)" in proc.stdout and proc.stdout.strip().endswith("same")


def test_two_recordings_of_two_builds(recordings: dict[str, Path]) -> None:
    proc = mcpx("diff", str(recordings["old"]), str(recordings["new"]), "--format", "json")
    assert proc.returncode == 7, proc.stderr
    report = json.loads(proc.stdout)
    assert report["different"] is True
    assert [c["path"] for c in report["server_info"]] == ["$.serverInfo.version"]
    tools = report["catalogues"]["tools"]
    assert tools["added"] == ["shiny"] and tools["removed"] == ["legacy_tool"]
    assert sorted(c["path"] for c in tools["changed"]["add"]) == [
        "$.description",
        "$.inputSchema.properties.c",
    ]
    assert report["catalogues"]["prompts"] == {
        "added": [],
        "removed": [],
        "changed": {},
        "same": 1,
        "unknown": None,
    }
    assert report["catalogues"]["resources"]["same"] == 1  # the text changed, not the catalogue


def test_a_recording_against_a_live_build_in_text(recordings: dict[str, Path]) -> None:
    live = f"{sys.executable} {RECORD_SERVER} --changed"
    proc = mcpx("diff", str(recordings["old"]), live, "--protocol-era", "legacy")
    assert proc.returncode == 7, proc.stderr
    out = proc.stdout
    assert "tools: 1 added, 1 removed, 1 changed, 5 same" in out
    assert "  + shiny" in out and "  - legacy_tool" in out and "  ~ add" in out
    assert "      $.inputSchema.properties.c: added" in out
    assert '$.serverInfo.version: "1.0.0" → "2.0.0"' in out
    assert out.strip().endswith("different (exit 7)")


def test_two_live_servers_and_ignore(recordings: dict[str, Path]) -> None:
    old = f"{sys.executable} {RECORD_SERVER}"
    proc = mcpx("diff", old, old, "--protocol-era", "legacy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the version and every change to `add` and the tool list are ignored: what is left is the same
    proc = mcpx(
        "diff", str(recordings["old"]), str(recordings["new"]), "--ignore", "$.serverInfo.version",
        "--ignore", "$.tools[name=add]",
    )  # fmt: skip
    assert proc.returncode == 7  # added and removed tools still count
    assert "~ add" not in proc.stdout and "difference(s) ignored" in proc.stdout


def test_eras_differ_in_capabilities_not_catalogues(recordings: dict[str, Path]) -> None:
    proc = mcpx("diff", str(recordings["old"]), str(recordings["modern"]), "--format", "json")
    report = json.loads(proc.stdout)
    assert report["era"] == ["legacy", "modern"]
    assert all(
        not c["added"] and not c["removed"] and not c["changed"] for c in report["catalogues"].values()
    )


def test_a_catalogue_a_recording_never_listed_is_not_compared(
    recordings: dict[str, Path], tmp_path: Path
) -> None:
    # the session up to its tools/list answer: what a recording of `mcpx call --method tools/list` holds
    lines = recordings["old"].read_text().splitlines(keepends=True)
    answer = next(i for i, line in enumerate(lines) if '"id\\":2,\\"result\\":{\\"tools' in line)
    only_tools = tmp_path / "tools.jsonl"
    only_tools.write_text("".join(lines[: answer + 1]))
    proc = mcpx("diff", str(only_tools), str(recordings["old"]))
    assert proc.returncode == 0, proc.stdout
    assert "tools: same (7)" in proc.stdout
    assert "prompts: not compared" in proc.stdout and "never listed" in proc.stdout


def test_unreadable_sides_are_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    proc = mcpx("diff", str(bad), str(bad))
    assert proc.returncode == 1 and "is not an mcpx recording" in proc.stderr
    proc = mcpx("diff", "/no/such/server", "/no/such/server")
    assert proc.returncode == 4 and "Traceback" not in proc.stderr
