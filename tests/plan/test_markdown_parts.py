"""`plan --split SIZE`: a plan too long for one comment as numbered parts, each within
SIZE, that together hold every change with its values and every call."""

from __future__ import annotations

import re

import pytest

from reconciler.plan.model import Action, Change, Plan
from reconciler.plan.planner import build_plan
from reconciler.plan.render.markdown import render_markdown
from reconciler.plan.render.markdown_parts import render_markdown_parts
from reconciler.state import Role
from tests.plan.test_reviewer_output import USER_PRIVILEGES
from tests.plan.world import NOW, hq_desired, hq_live

MARK = re.compile(r"<!-- orgctl part (\d+)/(\d+) -->\n")


def roles_plan(count: int) -> Plan:
    desired = hq_desired()
    desired.roles = {
        f"Role {n:04d}": Role(f"Role {n:04d}", f"role number {n}", frozenset(USER_PRIVILEGES))
        for n in range(count)
    }
    return build_plan(desired, hq_live(), now=NOW)


def test_a_short_plan_is_one_part_with_the_one_comment_body() -> None:
    plan = roles_plan(2)
    [part] = render_markdown_parts(plan, size=65_000)
    assert MARK.match(part) and MARK.match(part).groups() == ("1", "1")  # type: ignore[union-attr]
    body = part.split("\n", 1)[1]
    # Same content as the one comment: the parts mode leaves nothing out and adds nothing.
    assert body.strip() == render_markdown(plan).strip()


@pytest.mark.parametrize("size", [65_000, 20_000])
def test_parts_of_a_2000_role_plan_each_fit_and_together_hold_everything(size: int) -> None:
    plan = roles_plan(2000)
    parts = render_markdown_parts(plan, size=size)
    # One comment had to leave most of it out.
    assert "left out" in render_markdown(plan)
    assert len(parts) > 2
    for index, part in enumerate(parts, 1):
        assert len(part) <= size, (index, len(part))
        found = MARK.match(part)
        assert found and found.groups() == (str(index), str(len(parts)))
        assert f"(part {index} of {len(parts)})" in part.splitlines()[1]
        assert part.count("```") % 2 == 0, "a part closes every code block it opens"
        assert part.count("<details") == part.count("</details>")
    joined = "".join(parts)
    # Every change with its values, and every call, exactly once.
    assert joined.count("\n+ Role/Role ") == 2000
    assert joined.count('+     description: "role number ') == 2000
    calls = re.findall(r"^(\d+)\. POST ", joined, flags=re.MULTILINE)
    assert sorted(map(int, calls)) == list(range(1, len(plan.calls) + 1))
    assert "left out" not in joined
    assert "Changes (2000, continued)" in parts[1]


def test_a_change_longer_than_a_part_is_cut_between_its_lines() -> None:
    many = [f"portal:user:p{n:04d}" for n in range(300)]
    # A change no catalog would allow, built directly: 300 privileges added, one a line.
    change = Change("Role/Huge", Action.UPDATE, {"privileges": []}, {"privileges": many})
    plan = Plan(build_plan(hq_desired(), hq_live(), now=NOW).portal, changes=(change,))
    parts = render_markdown_parts(plan, mode="drift", size=2_000)
    assert len(parts) > 1 and all(len(p) <= 2_000 for p in parts)
    joined = "".join(parts)
    assert all(f'+       "{privilege}"' in joined for privilege in many)
