"""benchmarks/render.py stays runnable: a small plan rendered in every format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_render_benchmark_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "render.py"), "--changes", "300"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "plan: 300 changes" in done.stdout
    for name in ("text", "markdown", "markdown --split 65000", "json"):
        assert f"\n{name} " in done.stdout, done.stdout
