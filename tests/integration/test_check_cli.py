"""`mcpx check` from the command line: the text report, --verbose, --format json, --junit, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

SERVER = str(Path(__file__).parent.parent / "servers" / "check_server.py")


def mcpx_check(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "check", *args], capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def error_line(proc: subprocess.CompletedProcess[str]) -> dict:
    return json.loads(proc.stderr.strip().splitlines()[-1])["error"]


def test_list_names_every_check_with_its_level() -> None:
    proc = mcpx_check("--list")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert any(line.startswith("jsonrpc.parse-error") and " MUST " in line for line in lines)
    assert any(line.startswith("catalogue.tool-names") and " SHOULD " in line for line in lines)
    listed = json.loads(mcpx_check("--list", "--format", "json").stdout)
    assert {c["id"] for c in listed} >= {"legacy.ping", "modern.discover", "behaviour.cancellation"}
    assert all(c["rule"] and c["source"].startswith("https://") for c in listed)


def test_a_clean_run_exits_0_with_one_line_per_check() -> None:
    proc = mcpx_check(SERVER, "none", "--only", "jsonrpc.method-not-found,legacy.ping", "--only", "catalogue")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "server check-server 1.0.0" in out and "main connection: modern" in out
    assert "JSON-RPC hygiene" in out and "Lifecycle" in out and "Catalogues" in out
    assert "✓ pass    jsonrpc.method-not-found" in out
    assert "✓ pass    legacy.ping" in out
    assert "12 checks: 12 passed, 0 failed, 0 warnings, 0 skipped" in out


def test_a_failure_exits_6_and_verbose_shows_the_rule_and_the_exchange(tmp_path: Path) -> None:
    junit = tmp_path / "check.xml"
    proc = mcpx_check(SERVER, "silent-on-garbage", "--only", "jsonrpc", "-v", "--junit", str(junit))
    assert proc.returncode == 6
    out = proc.stdout
    assert "✗ FAIL    jsonrpc.parse-error" in out
    assert 'rule (MUST): JSON-RPC 2.0 §5.1: "-32700 Parse error' in out
    assert "source: https://www.jsonrpc.org/specification#error_object" in out
    assert re.search(r"modern#\d+ → mcpx check: this line is not JSON \{", out)
    assert "- skipped jsonrpc.tool-error" in out and "--call-tools" in out

    suites = ElementTree.parse(junit).getroot()
    cases = {case.get("name"): case for case in suites.iter("testcase")}
    assert cases["jsonrpc.parse-error"].find("failure") is not None
    assert "this line is not JSON" in (cases["jsonrpc.parse-error"].find("failure").text or "")
    assert cases["jsonrpc.tool-error"].find("skipped") is not None
    assert cases["jsonrpc.id-echo"].find("failure") is None


def test_a_warning_alone_exits_0_and_json_carries_the_frames() -> None:
    proc = mcpx_check(SERVER, "accepts-bad-cursor", "--only", "catalogue.invalid-cursor", "--format", "json")
    assert proc.returncode == 0
    report = json.loads(proc.stdout)
    assert report["ok"] is True and report["exit_code"] == 0
    assert report["summary"] == {"pass": 0, "fail": 0, "warn": 1, "skip": 0}
    (check,) = report["checks"]
    assert (
        check["id"] == "catalogue.invalid-cursor" and check["status"] == "warn" and check["level"] == "SHOULD"
    )
    assert check["rule"].startswith('MCP pagination: "Invalid cursors SHOULD')
    assert [f["direction"] for f in check["frames"]] == ["out", "in"]
    assert '"cursor":"mcpx-check-invalid-cursor"' in check["frames"][0]["raw"]
    assert check["exchange"] == [{"log": "modern", "seq": [f["seq"] for f in check["frames"]]}]


def test_a_server_that_cannot_start_exits_4_and_points_at_the_doctor() -> None:
    proc = mcpx_check("mcpx-no-such-server-anywhere", "--format", "json")
    assert proc.returncode == 4
    error = error_line(proc)
    assert "not found" in error["message"] and "mcpx doctor" in error["message"]


def test_bad_flags_get_one_sentence() -> None:
    proc = mcpx_check(SERVER, "none", "--format", "yaml")
    assert proc.returncode == 1 and "--format must be text or json" in error_line(proc)["message"]
    proc = mcpx_check(SERVER, "none", "--junit", "/no/such/dir/report.xml")
    assert proc.returncode == 1 and "cannot write the JUnit report" in error_line(proc)["message"]
    proc = mcpx_check(SERVER, "none", "--only", "jsonrpc,nonsense")
    assert proc.returncode == 1 and "--only 'nonsense' names no check" in error_line(proc)["message"]
    proc = mcpx_check(SERVER, "none", "--protocol-era", "future")
    assert proc.returncode == 1 and "--protocol-era" in error_line(proc)["message"]


def test_record_writes_every_connection_and_findings_point_into_the_files(tmp_path: Path) -> None:
    from mcpx.record import read_recording

    main = tmp_path / "check.mcpx.jsonl"
    proc = mcpx_check(
        SERVER, "echo-unknown-version", "--only", "jsonrpc.parse-error,legacy.version", "--format", "json",
        "--record", str(main),
    )  # fmt: skip
    assert proc.returncode == 6, proc.stderr
    report = json.loads(proc.stdout)
    assert report["recordings"] == {
        "modern": str(main),
        "legacy": str(tmp_path / "check.legacy.mcpx.jsonl"),
        "legacy.version-negotiation": str(tmp_path / "check.legacy.version-negotiation.mcpx.jsonl"),
    }
    checks = {c["id"]: c for c in report["checks"]}
    finding = checks["legacy.version-negotiation"]
    assert finding["status"] == "fail"
    (ref,) = finding["exchange"]
    recording = read_recording(report["recordings"][ref["log"]])
    recorded = [recording.log[seq].raw for seq in ref["seq"]]
    assert recorded == [frame["raw"] for frame in finding["frames"]]
    assert '"protocolVersion":"2099-12-31"' in recorded[0] and '"protocolVersion":"2099-12-31"' in recorded[1]
    # the main connection's file holds the passing check's exchange too
    parse = checks["jsonrpc.parse-error"]["exchange"][0]
    assert read_recording(main).log[parse["seq"][0]].raw == "mcpx check: this line is not JSON {"
