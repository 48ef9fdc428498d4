"""benchmarks/fleet.py stays runnable: a tiny fleet, every drift in sync."""

from __future__ import annotations

from tests.cli import run_benchmark


def test_the_fleet_benchmark_runs_on_a_small_fleet() -> None:
    output = run_benchmark("fleet.py", "--portals", "2", "--members", "20")
    assert "(2 portals: 2 in sync)" in output
    assert "2 x orgctl drift PORTAL, one after the other" in output
    assert "--jobs 2 over --jobs 1: " in output
