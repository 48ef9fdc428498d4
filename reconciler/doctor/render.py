"""A doctor's report as text, Markdown or JSON: the same findings, worst first."""

from __future__ import annotations

import json
from typing import Any

from reconciler.doctor.findings import Report, Severity
from reconciler.doctor.recording import Observations
from reconciler.doctor.wire import extra_keys
from reconciler.shown import safe

LABELS = {
    Severity.BLOCKER: "BLOCKER",
    Severity.DIFFERENCE: "DIFFERS",
    Severity.NOTE: "note",
    Severity.OK: "ok",
}
FORMATS = ("text", "json", "markdown")


def render_text(report: Report) -> str:
    head = f"Doctor: {report.portal}" + (f" ({report.url})" if report.url != report.portal else "")
    if report.release:
        head += f", {report.release}"
    lines = [head, f"{_verdict(report)}."]
    for finding in report.ordered():
        lines.append(f"  {LABELS[finding.severity]:<8} {finding.check.value}: {finding.message}")
        if finding.fix:
            lines.append(f"           fix: {finding.fix}")
    return "".join(safe(line) + "\n" for line in lines)


def render_markdown(report: Report) -> str:
    lines = [
        f"### orgctl doctor: {_cell(report.portal)}",
        "",
        f"**{_verdict(report)}** (exit {report.exit_code}). Portal: `{report.url}`"
        + (f", {report.release}." if report.release else "."),
        "",
        "| | check | finding | fix |",
        "|---|---|---|---|",
    ]
    for finding in report.ordered():
        cells = (
            LABELS[finding.severity],
            finding.check.value,
            _cell(finding.message),
            _cell(finding.fix),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def report_document(report: Report, seen: Observations | None) -> dict[str, Any]:
    document = report.to_json()
    if seen is not None:
        document["reads"] = dict(sorted(seen.reads.items()))
        document["unreadKeys"] = extra_keys(seen)
    return document


def render_json(report: Report, seen: Observations | None) -> str:
    return json.dumps(report_document(report, seen), indent=2) + "\n"


def rendered(report: Report, fmt: str, seen: Observations | None) -> str:
    if fmt == "json":
        return render_json(report, seen)
    if fmt == "markdown":
        return render_markdown(report)
    return render_text(report)


def _verdict(report: Report) -> str:
    counts = [
        f"{report.count(severity)} {word}"
        for severity, word in ((Severity.BLOCKER, "blocking"), (Severity.DIFFERENCE, "differing"))
        if report.count(severity)
    ]
    return report.verdict + (f" ({', '.join(counts)})" if counts else "")


def _cell(text: str) -> str:
    """Text for one Markdown table cell: no pipe or line break ends it early."""
    return safe(text).replace("|", "\\|").replace("\n", " ")
