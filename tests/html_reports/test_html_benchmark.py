"""benchmarks/html_access.py stays runnable: an access page rendered, and, where Chromium
and Playwright are, loaded, filtered and sorted in the browser with its figures reported.

Whether the page met its speed goal is the benchmark's to say, not a test's (a busy
machine would fail it): the test checks that every figure is a number or said to be
missing, on a small page, which Chromium loads before it paints on a quiet machine."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.e2e.harness import ROOT
from tests.html_reports.browser import missing

FIGURE = re.compile(r"^  (\S.*?)\s+(\d+ ms|not reported)$", re.MULTILINE)
FILTERED = ("filter one username: painted", "sort by level: painted")


def _benchmark(members: int, roles: int) -> str:
    sizes = ["--members", str(members), "--roles", str(roles), "--runs", "2"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "html_access.py"), *sizes],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    goal = re.search(r"^filtering (under|over) 1 s: (met|not met)$", output, re.MULTILINE)
    # 1 only for a missed goal: any other failure is the benchmark's own.
    assert done.returncode == 0 or (done.returncode == 1 and goal), output
    return output


@pytest.mark.parametrize(("members", "roles"), [(20, 3), (800, 20)])
def test_the_access_page_benchmark_reports_every_figure(members: int, roles: int) -> None:
    output = _benchmark(members, roles)
    assert f"access HTML of {members:,} members, {roles:,} roles" in output, output
    if missing() is not None:
        return
    figures = dict(FIGURE.findall(output))
    assert all(name in figures for name in FILTERED), output
    assert figures["filter one username: painted"].endswith(" ms"), output
    assert "firstContentfulPaint" in figures and "firstPaint" in figures, output
