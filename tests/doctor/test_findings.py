"""A report's exit code is its worst finding's: 1 blocker, 2 difference, else 0; and
the report shows the worst first."""

from __future__ import annotations

from reconciler.doctor.findings import Check, Report, Severity
from reconciler.doctor.render import render_markdown, render_text


def test_exit_codes_follow_the_worst_finding() -> None:
    report = Report("hq", "https://portal.example/sharing/rest")
    report.add(Check.REACH, Severity.OK, "answers")
    report.add(Check.PLAN, Severity.NOTE, "a warning")
    assert report.exit_code == 0
    report.add(Check.RELEASE, Severity.DIFFERENCE, "another release", "set spec.version")
    assert report.exit_code == 2
    report.add(Check.SIGN_IN, Severity.BLOCKER, "refused", "set the credentials")
    assert report.exit_code == 1
    assert [f.check for f in report.ordered()][:2] == [Check.SIGN_IN, Check.RELEASE]


def test_text_and_markdown_name_each_finding_with_its_fix() -> None:
    report = Report("hq", "https://portal.example/sharing/rest")
    report.add(Check.SIGN_IN, Severity.BLOCKER, "sign-in refused | twice", "set the credentials")
    text = render_text(report)
    assert "BLOCKER  sign-in: sign-in refused | twice\n           fix: set the credentials" in text
    markdown = render_markdown(report)
    assert "| BLOCKER | sign-in | sign-in refused \\| twice | set the credentials |" in markdown
