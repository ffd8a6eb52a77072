"""What `mcpx test` prints (text, JSON) and writes (JUnit XML). Server text goes through
`escape_controls` in text output; JSON and XML escape it themselves."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from mcpx.wire.controls import escape_controls

if TYPE_CHECKING:
    from mcpx.cli.testing import FileRun
    from mcpx.collection.runner import TestResult

_MARKS = {"passed": "✓", "failed": "✗", "error": "!", "skipped": "-"}


def _out(text: str) -> None:
    sys.stdout.write(escape_controls(text) + "\n")


def print_file(run: FileRun) -> None:
    collection = run.collection
    server = collection.server.describe() if collection is not None and collection.server else ""
    count = _plural(len(collection.tests), "test") if collection is not None else ""
    _out(f"{run.path}" + (f" ({server}, {count})" if server else ""))
    if collection is not None:
        for warning in collection.warnings:
            _out(f"  warning: {warning}")
    for result in run.results:
        _out("  " + line(result))
        for text in details(result):
            _out("      " + text)
    if run.error is not None:
        _out(f"  ! {run.error.message}")
    if run.diff:
        sys.stdout.write(escape_controls(run.diff).rstrip("\n") + "\n")
    sys.stdout.flush()


def line(result: TestResult) -> str:
    test = result.test
    mark = _MARKS[result.status]
    if result.status == "skipped":
        return f"{mark} {test.name} (skipped: {result.message})"
    if result.status == "error":
        return f"{mark} {test.name}: {result.message}"
    return f"{mark} {test.name}  {_ms(result.elapsed_ms)}"


def details(result: TestResult) -> list[str]:
    """A failed test's differences, one field a line, and where the test is written."""
    if result.status != "failed":
        return []
    lines = [d.describe() for d in result.differences]
    return [*lines, f"(line {result.test.line})"] if result.test.line else lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _ms(ms: float) -> str:
    return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.1f} ms"


def counts(runs: list[FileRun]) -> dict[str, int]:
    out = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for run in runs:
        for result in run.results:
            out[result.status] += 1
    return out


def print_summary(runs: list[FileRun]) -> None:
    tally = counts(runs)
    parts = [f"{tally['passed']} passed", f"{tally['failed']} failed"]
    if tally["error"]:
        parts.append(_plural(tally["error"], "error"))
    if tally["skipped"]:
        parts.append(f"{tally['skipped']} skipped")
    unreachable = sum(1 for run in runs if run.error is not None)
    if unreachable:
        parts.append(f"{_plural(unreachable, 'collection')} not run")
    seconds = sum(run.seconds for run in runs)
    _out(f"{', '.join(parts)} in {seconds:.2f} s")


def print_json(runs: list[FileRun]) -> None:
    document: dict[str, Any] = {
        "files": [_file_json(run) for run in runs],
        "summary": counts(runs),
    }
    sys.stdout.write(json.dumps(document, ensure_ascii=False, default=repr) + "\n")
    sys.stdout.flush()


def _file_json(run: FileRun) -> dict[str, Any]:
    out: dict[str, Any] = {"path": str(run.path), "seconds": round(run.seconds, 3)}
    if run.collection is not None and run.collection.server is not None:
        out["server"] = run.collection.server.describe()
        if run.collection.warnings:
            out["warnings"] = run.collection.warnings
    out["tests"] = [r.to_json() for r in run.results]
    if run.error is not None:
        out["error"] = run.error.to_json()["error"]
    if run.diff:
        out["diff"] = run.diff
    return out


def junit(runs: list[FileRun]) -> str:
    """One testsuite per collection; a collection that could not run is one errored testcase."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites", name="mcpx test")
    for run in runs:
        tally = counts([run])
        suite = ET.SubElement(
            root,
            "testsuite",
            name=str(run.path),
            tests=str(len(run.results) + (1 if run.error is not None else 0)),
            failures=str(tally["failed"]),
            errors=str(tally["error"] + (1 if run.error is not None else 0)),
            skipped=str(tally["skipped"]),
            time=f"{run.seconds:.3f}",
        )
        classname = run.path.name.removesuffix(".mcpx.yaml")
        for result in run.results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=classname,
                name=result.test.name,
                time=f"{result.elapsed_ms / 1000:.3f}",
            )
            if result.status == "failed":
                text = "\n".join(d.describe() for d in result.differences)
                first = result.differences[0].describe() if result.differences else "failed"
                ET.SubElement(case, "failure", message=_clean(first)).text = _clean(text)
            elif result.status == "error":
                ET.SubElement(case, "error", message=_clean(result.message))
            elif result.status == "skipped":
                ET.SubElement(case, "skipped", message=_clean(result.message))
        if run.error is not None:
            case = ET.SubElement(suite, "testcase", classname=classname, name="(connect)", time="0")
            ET.SubElement(case, "error", message=_clean(run.error.message), type=run.error.code)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _clean(text: str) -> str:
    """XML 1.0 cannot hold most control characters: server text keeps them escaped, visibly."""
    return escape_controls(text)
