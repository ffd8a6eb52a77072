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
    # what breaking it costs, and where the rule is written (revision and section, or JSON-RPC)
    assert any(
        line.startswith("jsonrpc.parse-error") and " warn " in line and "JSON-RPC 2.0 § error_object" in line
        for line in lines
    )
    assert any(line.startswith("jsonrpc.tool-error") and "[2025-11-25+]" in line for line in lines)
    listed = json.loads(mcpx_check("--list", "--format", "json").stdout)
    assert {c["id"] for c in listed} >= {"legacy.ping", "modern.discover", "behaviour.cancellation"}
    assert all(c["rule"] and c["source"].startswith("https://") for c in listed)
    assert all(
        re.fullmatch(r"(MCP \d{4}-\d\d-\d\d \S+( § \S+)?|JSON-RPC 2\.0 § \w+|SEP-\d+ § \S+)", c["cite"])
        for c in listed
    )


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
    proc = mcpx_check(SERVER, "wrong-unknown-code", "--only", "jsonrpc", "-v", "--junit", str(junit))
    assert proc.returncode == 6
    out = proc.stdout
    assert "✗ FAIL    jsonrpc.method-not-found" in out
    assert 'rule (MUST): JSON-RPC 2.0 §5: "When a rpc call encounters an error' in out
    assert "source: JSON-RPC 2.0 § error_object — https://www.jsonrpc.org/specification#error_object" in out
    assert re.search(r"isolated#\d+ → .*mcpx/check-unknown-method", out)
    assert "- skipped jsonrpc.tool-error" in out and "--call-tools" in out

    suites = ElementTree.parse(junit).getroot()
    cases = {case.get("name"): case for case in suites.iter("testcase")}
    assert cases["jsonrpc.method-not-found"].find("failure") is not None
    assert "-32600" in (cases["jsonrpc.method-not-found"].find("failure").text or "")
    assert cases["jsonrpc.tool-error"].find("skipped") is not None
    assert cases["jsonrpc.id-echo"].find("failure") is None


def test_a_broken_json_rpc_strictness_warns_saying_why(tmp_path: Path) -> None:
    """No -32700 for a line that is not JSON: what the official SDKs do, and no host leans on it."""
    proc = mcpx_check(SERVER, "silent-on-garbage", "--only", "jsonrpc.parse-error", "-v")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "! warn    jsonrpc.parse-error" in out
    assert "only a warning: JSON-RPC strictness no host leans on" in out
    assert re.search(r"isolated#\d+ → mcpx check: this line is not JSON \{", out)


def test_the_header_and_the_hints_can_be_run_as_printed(tmp_path: Path) -> None:
    """Server arguments follow `--` (a dashed one would be read as mcpx's own option), shell-quoted."""
    import shlex

    proc = mcpx_check(SERVER, "--only", "legacy.ping", "--", "none", "--not-a-flag of mcpx's")
    header = proc.stdout.splitlines()[0]
    assert header == shlex.join(["mcpx", "check", SERVER, "--", "none", "--not-a-flag of mcpx's"])
    words = shlex.split(header)  # mcpx check SERVER -- ARGS: run as printed, with --only added
    again = subprocess.run(
        [sys.executable, "-m", *words[:2], "--only", "legacy.ping", *words[2:]],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout.splitlines()[0] == header
    failed = mcpx_check("/no/such/server", "--", "-x", "two words")
    hint = re.search(r"run `(mcpx doctor [^`]+)`", error_line(failed)["message"])
    assert hint is not None and shlex.split(hint.group(1)) == [
        "mcpx",
        "doctor",
        "/no/such/server",
        "--",
        "-x",
        "two words",
    ]


def test_a_warning_alone_exits_0_and_json_carries_the_frames() -> None:
    proc = mcpx_check(SERVER, "accepts-bad-cursor", "--only", "catalogue.invalid-cursor", "--format", "json")
    assert proc.returncode == 0
    report = json.loads(proc.stdout)
    assert report["ok"] is True and report["exit_code"] == 0
    assert report["summary"] == {"pass": 0, "fail": 0, "warn": 1, "skip": 0, "incomplete": 0}
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
        "isolated": str(tmp_path / "check.isolated.mcpx.jsonl"),
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
    # the passing check's exchange is in the file of its own connection
    parse = checks["jsonrpc.parse-error"]["exchange"][0]
    own = read_recording(report["recordings"]["isolated"])
    assert own.log[parse["seq"][0]].raw == "mcpx check: this line is not JSON {"
