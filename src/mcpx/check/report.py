"""A check run's findings as data, JSON and JUnit XML (the text report is the CLI's)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

from mcpx.check.model import GROUP_TITLES, STATUSES, CheckResult, ExchangeRef
from mcpx.wire import TrafficEvent, TrafficLog

EXIT_FAILED = 6
#: nothing failed, but some rules could not be judged (mcpx's own error, a connection that broke)
EXIT_INCOMPLETE = 4
#: characters XML 1.0 cannot carry (a server's frames may hold any of them)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
FRAME_LIMIT = 4000


@dataclass(slots=True)
class CheckReport:
    target: str
    results: list[CheckResult] = field(default_factory=list)
    server: dict[str, str] = field(default_factory=dict)
    #: the era the main connection speaks; the other era's checks ran on their own connection
    main_era: str = ""
    #: era → negotiated version, or None when the server does not speak it (or it was not checked)
    eras: dict[str, str | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: every connection's traffic log, by label (what the exchanges point into)
    logs: dict[str, TrafficLog] = field(default_factory=dict)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def failed(self) -> bool:
        return any(r.status == "fail" for r in self.results)

    @property
    def incomplete(self) -> bool:
        return any(r.status == "incomplete" for r in self.results)

    @property
    def exit_code(self) -> int:
        """6 when a rule failed; else 4 when some could not be judged (never a failure); else 0."""
        if self.failed:
            return EXIT_FAILED
        return EXIT_INCOMPLETE if self.incomplete else 0

    def summary(self) -> dict[str, int]:
        return {status: self.count(status) for status in STATUSES}

    def by_group(self) -> list[tuple[str, list[CheckResult]]]:
        groups: dict[str, list[CheckResult]] = {}
        for result in self.results:
            groups.setdefault(result.check.group, []).append(result)
        return [(GROUP_TITLES.get(g, g), rs) for g, rs in groups.items()]

    def events(self, ref: ExchangeRef) -> list[TrafficEvent]:
        log = self.logs.get(ref.log)
        if log is None:
            return []
        return [log[s] for s in ref.seqs if 0 <= s < len(log)]

    def frames(self, result: CheckResult) -> list[dict[str, Any]]:
        """The exchange of a finding as JSON-ready frames (the raw text, cut at FRAME_LIMIT characters)."""
        out = []
        for ref in result.exchanges:
            for event in self.events(ref):
                raw = event.raw if len(event.raw) <= FRAME_LIMIT else event.raw[:FRAME_LIMIT] + "…"
                out.append(
                    {
                        "log": ref.log,
                        "seq": event.seq,
                        "direction": event.direction,
                        "channel": event.channel,
                        "raw": raw,
                    }
                )
        return out

    def to_json(self, *, frames: bool = True) -> dict[str, Any]:
        """The whole report; `frames` adds the exchange of every failure and warning."""
        checks = []
        for result in self.results:
            item = result.to_json()
            if frames and result.status in ("fail", "warn", "incomplete"):
                item["frames"] = self.frames(result)
            checks.append(item)
        return {
            "target": self.target,
            "server": self.server,
            "main_era": self.main_era,
            "eras": self.eras,
            "ok": not self.failed,
            "complete": not self.incomplete,
            "exit_code": self.exit_code,
            "summary": self.summary(),
            "notes": self.notes,
            "checks": checks,
        }

    def junit(self) -> str:
        """JUnit XML for CI: one test case per check; fail → <failure>, skip → <skipped>, warn → a passing
        case whose <system-out> carries the warning (JUnit has no warning)."""
        root = ElementTree.Element("testsuites", name=f"mcpx check {self.target}")
        for title, results in self.by_group():
            suite = ElementTree.SubElement(
                root,
                "testsuite",
                name=title,
                tests=str(len(results)),
                failures=str(sum(r.status == "fail" for r in results)),
                skipped=str(sum(r.status == "skip" for r in results)),
                errors=str(sum(r.status == "incomplete" for r in results)),
                time=f"{sum(r.took for r in results):.3f}",
            )
            for result in results:
                case = ElementTree.SubElement(
                    suite,
                    "testcase",
                    name=result.id,
                    classname=f"mcpx.check.{result.check.group}",
                    time=f"{result.took:.3f}",
                )
                body = self._junit_body(result)
                if result.status == "fail":
                    detail = _NOT_XML.sub("\ufffd", result.detail)
                    failure = ElementTree.SubElement(case, "failure", message=detail, type=result.check.level)
                    failure.text = body
                elif result.status == "incomplete":
                    error = ElementTree.SubElement(
                        case, "error", message=_NOT_XML.sub("\ufffd", result.detail), type="incomplete"
                    )
                    error.text = body
                elif result.status == "skip":
                    ElementTree.SubElement(case, "skipped", message=_NOT_XML.sub("\ufffd", result.detail))
                elif result.status == "warn":
                    ElementTree.SubElement(
                        case, "system-out"
                    ).text = f"WARNING ({result.check.level}): {body}"
        ElementTree.indent(root)
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"
        )

    def _junit_body(self, result: CheckResult) -> str:
        lines = [
            result.detail,
            f"rule ({result.check.level}): {result.check.rule}",
            f"source: {result.check.cite} ({result.check.source})",
        ]
        for frame in self.frames(result):
            lines.append(f"{frame['log']}#{frame['seq']} {frame['direction']} {frame['raw']}")
        return _NOT_XML.sub("\ufffd", "\n".join(lines))
