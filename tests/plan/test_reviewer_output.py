"""What a reviewer reads: element-level diffs of set-like fields (text, Markdown whose
changed lines GitHub colours, JSON `added`/`removed`), administrative grants flagged,
errors first and last, and a Markdown comment that holds a 400-role plan."""

from __future__ import annotations

import json
from dataclasses import replace

from reconciler import catalog
from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.plan.render.json import render_json
from reconciler.plan.render.markdown import render_markdown
from reconciler.plan.render.text import render_text
from reconciler.state import Member, Role
from reconciler.versions import Platform
from tests.plan.world import NOW, hq_desired, hq_live

REMOVED = "portal:admin:manageSecurity"


def every_privilege() -> list[str]:
    """Every privilege of the live release (64 at 10.6.1), the one removed first."""
    platform = Platform.parse("self-hosted", "10.6.1")
    known = sorted(p for p in catalog.PRIVILEGES if catalog.privilege_problem(p, platform) is None)
    assert REMOVED in known and len(known) == 64
    return [REMOVED, *(p for p in known if p != REMOVED)]


USER_PRIVILEGES = [p for p in every_privilege() if p.startswith("portal:user:")][:11]


def one_privilege_removed() -> Plan:
    privileges = every_privilege()
    live = hq_live()
    live.roles["Analyst"] = replace(live.roles["Analyst"], privileges=privileges)
    desired = hq_desired()
    desired.roles = {"Analyst": Role("Analyst", None, frozenset(privileges[1:]))}
    return build_plan(desired, live, now=NOW)


def test_one_privilege_removed_is_one_line_not_two_lists() -> None:
    text = render_text(one_privilege_removed())
    assert "      privileges: 0 added, 1 removed, 63 unchanged" in text
    assert f"        - {json.dumps(REMOVED)}" in text
    changes = text.split("Calls, in order:")[0]
    assert max(len(line) for line in changes.splitlines()) < 300


def test_markdown_changed_lines_start_with_plus_or_minus() -> None:
    markdown = render_markdown(one_privilege_removed())
    block = markdown.split("```diff\n", 1)[1].split("\n```", 1)[0].splitlines()
    assert block[0] == "@@ ~ Role/Analyst @@"
    assert f'-       "{REMOVED}"' in block
    assert all(line[0] in "+-@ " for line in block), block
    assert not any(line.startswith("~") for line in block)


def test_json_names_the_added_and_removed_elements() -> None:
    [change] = json.loads(render_json(one_privilege_removed()))["changes"]
    assert change["removed"] == {"privileges": [REMOVED]}
    assert change["added"] == {}
    assert len(change["before"]["privileges"]) == 64  # the full values stay


def test_a_grant_of_administrative_privileges_is_flagged() -> None:
    desired = hq_desired()
    desired.roles = {"Root": Role("Root", "r", frozenset({"portal:admin:viewUsers"}))}
    text = render_text(build_plan(desired, hq_live(), now=NOW))
    assert "+ Role/Root  (grants administrative privileges: portal:admin:viewUsers)" in text


def test_errors_come_first_and_last_and_no_calls_are_shown() -> None:
    desired = hq_desired()
    desired.members = {f"user{n:03d}": Member(f"user{n:03d}", "org_user") for n in range(60)}
    desired.members["alice"] = Member("alice", "Analyst", 1)
    desired.roles = {"Zeta": Role("Zeta", "z", frozenset({"portal:user:joinGroup"}))}
    plan = build_plan(desired, hq_live(), now=NOW)
    assert plan.errors and plan.calls
    lines = render_text(plan).splitlines()
    assert lines[0].startswith("Plan: ") and "nothing can be applied" in lines[0]
    assert lines[2] == "Errors:"
    assert lines[-1] == lines[0]
    assert lines.count("Errors:") == 2  # a long output repeats them at the end
    assert "Calls, in order:" not in lines


def test_markdown_holds_every_change_of_a_400_role_plan() -> None:
    desired = hq_desired()
    desired.roles = {
        f"Role {n:03d}": Role(f"Role {n:03d}", f"role number {n}", frozenset(USER_PRIVILEGES))
        for n in range(400)
    }
    plan = build_plan(desired, hq_live(), now=NOW)
    markdown = render_markdown(plan)
    assert len(plan.changes) == 400
    assert len(markdown) <= 65_000
    assert markdown.count("\n+ Role/Role ") == 400, "every change is shown"
    assert "| Role | 400 | 0 | 0 |" in markdown
    assert "<details><summary>Calls (800)</summary>" in markdown or "800 calls left out" in markdown
    assert "run `orgctl plan`" not in markdown
