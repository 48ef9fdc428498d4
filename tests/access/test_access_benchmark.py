"""benchmarks/access.py stays runnable: a small portal's report in every format."""

from __future__ import annotations

from tests.cli import run_benchmark


def test_the_access_benchmark_runs() -> None:
    output = run_benchmark("access.py", "--members", "300", "--roles", "20")
    assert "access: 300 members, 23 roles" in output, output
    for name in ("document", "text", "json", "csv", "markdown"):
        assert f"\n  {name} " in output, output
    assert "OVER GOAL" not in output, output
