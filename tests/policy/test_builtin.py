"""The shipped policies: the default-administrator check, judged in CEL, behaves as the
check it replaces did (an error at Portal, word for word) and is listed in plan JSON."""

from __future__ import annotations

import itertools

from reconciler.plan.model import PolicyStatus
from reconciler.policy.builtin import BUILTINS, DEFAULT_ADMINISTRATOR, judged
from reconciler.policy.rules import check

ADDRESS = "Portal/hq"


def _portal(before: tuple[str, ...], after: tuple[str, ...]) -> tuple[dict[str, object], ...]:
    def fields(names: tuple[str, ...], earlier: tuple[str, ...]) -> dict[str, object]:
        return {
            "name": "hq",
            "deployment": "self-hosted",
            "version": "10.6.1",
            "members": 5,
            "administrators": len(names),
            "administratorsBefore": len(earlier),
            "administratorNames": names,
            "administratorNamesBefore": earlier,
        }

    return fields(before, before), fields(after, before)


def test_every_built_in_rule_checks_against_its_subject() -> None:
    for policy in BUILTINS:
        for expression in (policy.match, policy.rule):
            if expression is not None:
                assert check(expression, policy.subject) is None, policy.name


def test_demoting_every_default_administrator_with_none_moved_in_is_introduced() -> None:
    before, after = _portal(("admin", "admin2"), ())
    [verdict] = judged(before, after, ADDRESS, 0)
    assert (verdict.policy, verdict.subject, verdict.status, verdict.enforcement) == (
        DEFAULT_ADMINISTRATOR.name,
        ADDRESS,
        PolicyStatus.INTRODUCED,
        "mandatory",
    )
    assert verdict.message == (
        "this plan leaves the portal without a default administrator: it moves every"
        " org_admin (admin, admin2) to another role, and the portal refuses to move the last"
        " one (ORG_1090); keep at least one"
    )


def test_it_holds_wherever_the_old_check_was_silent() -> None:
    # The old check: an error only when the portal had default administrators and the
    # plan moved every one of them out, with none moved in.
    people = ("a", "b", "c")
    subsets = [tuple(x) for n in range(len(people) + 1) for x in itertools.combinations(people, n)]
    for was, will in itertools.product(subsets, subsets):
        before, after = _portal(was, will)
        errs = bool(was) and not will
        assert bool(judged(before, after, ADDRESS, 0)) == errs, (was, will)
    # On the live state alone the after-values equal the before-values: it holds.
    for was in subsets:
        live, _ = _portal(was, was)
        assert judged(live, live, ADDRESS, 0) == []


_LOADS_CEL = """
import sys
import reconciler.kinds
from reconciler.plan.planner import build_plan
from reconciler.state import Member
from tests.plan.world import hq_desired, hq_live

desired = hq_desired()
if sys.argv[1] == "demote":
    desired.members["admin"] = Member("admin", "org_user", 2)
plan = build_plan(desired, hq_live())
print("cel.cel" in sys.modules, len(plan.errors))  # the CEL core, without its package
"""


def _plan_loads_cel(mode: str) -> str:
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-c", _LOADS_CEL, mode]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, check=True).stdout


def test_a_plan_moving_no_member_judges_no_built_in_and_loads_no_cel() -> None:
    # Every built-in holds where the plan changes nothing it reads (above), so a plan
    # moving no member out of or into a role skips them and never loads the CEL engine.
    assert _plan_loads_cel("keep") == "False 0\n"
    # Demoting the only default administrator is judged in CEL, and refused.
    assert _plan_loads_cel("demote") == "True 1\n"
