"""benchmarks/fleet.py stays runnable: a tiny fleet, every drift in sync."""

from __future__ import annotations

import subprocess
import sys

from .harness import ROOT


def test_the_fleet_benchmark_runs_on_a_small_fleet() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "fleet.py"),
            "--portals",
            "2",
            "--members",
            "20",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(2 portals: 2 in sync)" in done.stdout
    assert "2 x orgctl drift PORTAL, one after the other" in done.stdout
