"""benchmarks/fleet.py stays runnable: a tiny fleet, every drift in sync."""

from __future__ import annotations

import re

from tests.cli import run_benchmark


def test_the_fleet_benchmark_runs_on_a_small_fleet() -> None:
    output = run_benchmark("fleet.py", "--portals", "2", "--members", "20", "--pairs", "2")
    assert "(2 portals: 2 in sync)" in output
    assert "2 x orgctl drift PORTAL, one after the other" in output
    (ratio,) = [line for line in output.splitlines() if line.startswith("--jobs 2 over")]
    # The median of the pairs' ratios, each pair's listed: one pair alone is too noisy.
    assert re.search(r"over --jobs 1: \d+\.\d\dx, median of \d+\.\d\d, \d+\.\d\d \(", ratio)
    assert output.count("orgctl drift FLEET --jobs 1: ") == 1
