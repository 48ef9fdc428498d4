"""What `orgctl test` says: a line per test as it ends, each failure's differences, and
a last line as pytest's ("2 passed, 1 failed in 9.4s"); JUnit XML for CI's test tabs."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from reconciler.cases.run import Outcome
from reconciler.shown import safe


def line(outcome: Outcome) -> str:
    verdict = "PASSED" if outcome.passed else "FAILED"
    return safe(f"{outcome.case.where} {outcome.case.name} {verdict}")


def failures(outcomes: Sequence[Outcome]) -> list[str]:
    """Each failed test's heading, then one line per difference."""
    lines: list[str] = []
    for outcome in outcomes:
        if outcome.passed:
            continue
        lines += ["", f"___ {outcome.case.name} ({outcome.case.where}) ___"]
        lines += [f"  {failure}" for failure in outcome.failures]
    return [safe(text) for text in lines]


def summary(outcomes: Sequence[Outcome], seconds: float) -> str:
    passed = sum(1 for o in outcomes if o.passed)
    failed = len(outcomes) - passed
    counted = [f"{passed} passed"] if passed else []
    counted += [f"{failed} failed"] if failed else []
    return f"{', '.join(counted)} in {seconds:.1f}s"


def junit(outcomes: Sequence[Outcome], seconds: float) -> str:
    """JUnit XML: one testsuite, one testcase per Test document (classname its file), a
    failure element holding the differences."""
    failed = sum(1 for o in outcomes if not o.passed)
    root = ET.Element("testsuites")
    suite = ET.SubElement(
        root,
        "testsuite",
        name="orgctl test",
        tests=str(len(outcomes)),
        failures=str(failed),
        errors="0",
        skipped="0",
        time=f"{seconds:.3f}",
    )
    for outcome in outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=outcome.case.file,
            name=outcome.case.name,
            file=outcome.case.file,
            line=str(outcome.case.line),
            time=f"{outcome.seconds:.3f}",
        )
        if not outcome.passed:
            failure = ET.SubElement(case, "failure", message=outcome.failures[0])
            failure.text = "\n".join(outcome.failures)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"
