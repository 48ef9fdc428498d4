"""benchmarks/service_pages.py stays runnable: two small portals, their pages timed."""

from __future__ import annotations

from tests.cli import run_benchmark


def test_the_pages_benchmark_runs() -> None:
    output = run_benchmark("service_pages.py", "--members", "300", "600")
    assert "    300 members: " in output and "    600 members: " in output
    assert "users page at 600 / at 300 members: " in output
