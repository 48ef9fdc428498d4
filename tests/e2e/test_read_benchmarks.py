"""benchmarks/latency.py, plan_scale.py and apply_throughput.py stay runnable on small
portals."""

from __future__ import annotations

from tests.cli import run_benchmark


def test_the_latency_benchmark_reads_through_its_proxy() -> None:
    output = run_benchmark(
        "latency.py", "--members", "300", "--rtt-ms", "5", "--sample", "3", "--runs", "1"
    )
    assert "orgctl read, signing in: " in output and "0 calls planned" in output
    assert "orgctl read, token given: " in output
    assert "loading the manifests: " in output
    assert "per-resource read (first 3 members and roles): " in output
    assert "(estimated)" in output


def test_the_plan_scale_benchmark_plans_an_organization() -> None:
    output = run_benchmark("plan_scale.py", "--members", "300", "--runs", "1")
    assert "    300 members + 1,000 roles: plan " in output


def test_the_apply_throughput_benchmark_counts_every_call() -> None:
    output = run_benchmark("apply_throughput.py", "--calls", "40", "--runs", "1")
    assert output.startswith("40 setPrivileges, 8 in flight (median of 1): orgctl apply ")
    assert "apply / raw " in output
