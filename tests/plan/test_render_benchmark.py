"""benchmarks/render.py stays runnable: a small plan rendered in every format."""

from __future__ import annotations

from tests.cli import run_benchmark


def test_the_render_benchmark_runs() -> None:
    output = run_benchmark("render.py", "--changes", "300")
    assert "plan: 300 changes" in output
    for name in ("text", "markdown", "markdown --split 65000", "json", "html"):
        assert f"\n{name} " in output, output
