"""A plan does not depend on the time zone of the machine that makes it: a laptop in New
York and a CI runner in UTC print byte-identical plans, and a time without an offset is
UTC (the service's own clock), as the README says."""

from __future__ import annotations

import pytest

from .harness import MANIFESTS, World, output_of

pytestmark = pytest.mark.e2e

NAIVE = MANIFESTS / "naive-times"
START_UTC_MS = 1796083200000  # 2026-12-01T00:00:00Z


def test_plans_made_in_two_time_zones_are_byte_identical(demo: World) -> None:
    plans = []
    for zone in ("America/New_York", "Asia/Kolkata", "UTC"):
        env = {**demo.env("field"), "TZ": zone}
        # A process of its own: the time zone is read when the interpreter starts.
        result = demo.orgctl_process("plan", NAIVE, "--format", "json", portal="field", env=env)
        assert result.returncode == 0, output_of(result)
        plans.append(result.stdout)
    assert plans[0] == plans[1] == plans[2]
    (call,) = [c for c in plan_json_of(plans[0])["calls"] if c["operation"] == "updateSchedule"]
    assert call["params"]["startTime"] == str(START_UTC_MS)


def plan_json_of(text: str) -> dict[str, object]:
    import json

    document: dict[str, object] = json.loads(text)
    return document
