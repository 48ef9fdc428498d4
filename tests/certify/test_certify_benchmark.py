"""benchmarks/certify.py stays runnable: a small review started both ways."""

from __future__ import annotations

from tests.cli import run_benchmark


def test_the_certify_benchmark_runs() -> None:
    output = run_benchmark("certify.py", "--members", "200", "--runs", "1")
    assert "certify start: 200 members in scope, median of 1:" in output, output
    assert "after the read" in output and "whole command" in output, output
    assert "OVER GOAL" not in output, output
