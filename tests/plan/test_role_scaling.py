"""Renames, ignore rules and pruning stay linear in roles: the work a plan does (every
Python function entered and builtin called, counted, not timed) grows about 4x when the
roles do, never 16x. The worlds are benchmarks/plan_roles.py's, which times 10,000 roles:
real manifests loaded, planned against a live state in memory."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from reconciler.plan.planner import build_plan
from reconciler.state import DesiredState, LiveState
from tests.cli import run_benchmark

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import plan_roles  # a benchmark script, importable from its folder

# Linear work grows 4x from n to 4n (a sort's log factor adds a little); a loop over roles
# inside a loop over roles grows 16x.
LINEAR = 5.5


def calls_to_plan(desired: DesiredState, live: LiveState) -> int:
    count = 0

    def counted(_frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(counted)
    try:
        build_plan(desired, live, allow_deletes=True)
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize("variant", sorted(plan_roles.VARIANTS))
def test_plan_work_grows_linearly_with_roles(tmp_path: Path, variant: str) -> None:
    small = calls_to_plan(*plan_roles.world(tmp_path, variant, 100))
    large = calls_to_plan(*plan_roles.world(tmp_path, variant, 400))
    assert large / small <= LINEAR, f"{variant}: {small:,} calls at 100 roles, {large:,} at 400"


def test_the_role_scaling_benchmark_runs() -> None:
    output = run_benchmark("plan_roles.py", "--roles", "200", "--runs", "1")
    for variant in plan_roles.VARIANTS:
        assert f"200 roles, {variant:>13}: plan" in output, output
