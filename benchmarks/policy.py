"""Policy cost against the plan's own (issue: 20 policies over 10,000 members and 200 roles
add less than the plan's CPU time). One run, process CPU time, best of 3 each:

Run: .venv/bin/python benchmarks/policy.py

The plan is benchmarks/plan_cpu.py's world (a tenth of the roles and members differ);
the policies are benchmarks/cel_libraries.py's 20 rules (15 on members, 5 on roles),
declared as the manifests would declare them, and judged on the live state and after
the plan. The CEL library comparison is benchmarks/cel_libraries.py.
"""

from __future__ import annotations

import time

from cel_libraries import MEMBER_RULES, ROLE_RULES
from plan_cpu import world

from reconciler.kinds.policy import POLICIES, Policy
from reconciler.plan.planner import build_plan
from reconciler.state import DesiredState

MEMBERS, ROLES = 10_000, 200


def _policies() -> list[Policy]:
    rules = [("member", r) for r in MEMBER_RULES] + [("role", r) for r in ROLE_RULES]
    return [
        Policy.model_validate(
            {
                "apiVersion": "orgctl/v1",
                "kind": "Policy",
                "metadata": {"name": f"p{i}"},
                "spec": {
                    "enforcement": "advisory",
                    "subject": subject,
                    "rule": rule,
                    "message": "m",
                },
            }
        )
        for i, (subject, rule) in enumerate(rules)
    ]


def _best_cpu(desired: DesiredState, live: object, repeats: int = 3) -> tuple[float, int]:
    best, verdicts = float("inf"), 0
    for _ in range(repeats):
        start = time.process_time()
        plan = build_plan(desired, live, now=1_793_491_200)  # type: ignore[arg-type]
        best = min(best, time.process_time() - start)
        verdicts = len(plan.policies or ())
    return best, verdicts


def main() -> None:
    desired, live = world(MEMBERS, ROLES)
    plain, _ = _best_cpu(desired, live)
    desired.put(POLICIES, _policies())
    judged, verdicts = _best_cpu(desired, live)
    added = judged - plain
    print(
        f"plan {MEMBERS:,} members + {ROLES} roles: {plain:.2f} s CPU; with 20 policies "
        f"{judged:.2f} s ({verdicts:,} verdicts): policies add {added:.2f} s, "
        f"{added / plain:.2f}x the plan's own CPU time (target < 1)"
    )


if __name__ == "__main__":
    main()
