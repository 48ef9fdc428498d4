"""benchmarks/html_access.py stays runnable: a small access page rendered, and, where
Chromium and Playwright are, loaded, filtered and sorted in the browser."""

from __future__ import annotations

from tests.cli import run_benchmark
from tests.html_reports.browser import missing


def test_the_access_page_benchmark_runs() -> None:
    output = run_benchmark("html_access.py", "--members", "800", "--roles", "20", "--runs", "1")
    assert "access HTML of 800 members, 20 roles" in output, output
    if missing() is None:
        assert "filter one username: painted" in output and "filtering under 1 s: met" in output
